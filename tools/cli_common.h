// Shared pieces of the `fusebox` program's subcommands.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fusebox::cli {

// Exit codes: 0 ok, 1 user error, 2 internal error.
enum ExitCode { kOk = 0, kUserError = 1, kInternalError = 2 };

// A subcommand registers itself on the parent app and says how to run it.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};
Command addRunCommand(CLI::App& parent);
Command addPrintCommand(CLI::App& parent);
Command addPluginsCommand(CLI::App& parent);
Command addCompareCommand(CLI::App& parent);
Command addBenchCommand(CLI::App& parent);
// Checks of a numeric option's text, before CLI11 converts it (cli_numbers.cpp):
// a whole number within the range (a signed one), within uint64 (no sign),
// or a finite-or-not but never NaN number within the range. The error names
// the value and the range; CLI11 prefixes the option.
CLI::Validator integerIn(int64_t lo, int64_t hi);
CLI::Validator unsignedInteger();
CLI::Validator realIn(double lo, double hi);

// `fusebox --version`: version, plugin API version, ABI tag, backends.
std::string versionText();

// `--input NAME=SPEC`: NAME is a script variable ("T0") or a position ("#0");
// SPEC is "16x512x4096[:dtype]" (random values), "file.npy", or a number.
struct InputOverride {
  std::string name;
  std::string spec;
};
InputOverride parseInputOverride(const std::string& text);

// Makes every fusion input: from an override if one names it, else from the
// script's inputs list. Throws UserError naming the input when neither exists
// or an override does not fit.
std::vector<Argument> makeInputs(const PythonDefinition& def,
                                 const std::vector<InputOverride>& overrides, uint64_t seed);

// "T5_g float[16, 512] min=-1.2 max=3.4 mean=0.01 first=[...]".
std::string summarize(const Argument& value);

}  // namespace fusebox::cli
