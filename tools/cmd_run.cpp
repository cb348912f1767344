// `fusebox run FILE.py`: parse, make inputs, print the IR, run, summarize.
#include "cli_common.h"
#include "pass_options.h"

#include <fusebox/ir/printer.h>
#include <fusebox/npy.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>

namespace fusebox::cli {
namespace {

struct RunOptions {
  std::string file;
  std::vector<std::string> inputs;
  std::string save_outputs;
  uint64_t seed = 0;
  bool quiet_ir = false;
  PassFlags passes;
};

int runCommand(const RunOptions& o) {
  PythonDefinition def = parsePythonFile(o.file);
  std::vector<InputOverride> overrides;
  for (const auto& text : o.inputs) overrides.push_back(parseInputOverride(text));
  std::vector<Argument> args = makeInputs(def, overrides, o.seed);
  runPassPipeline(def.fusion, o.passes, std::cout, std::cerr);

  if (!o.quiet_ir) std::cout << printFusion(*def.fusion) << "\n";
  for (size_t i = 0; i < args.size(); ++i)
    std::cout << fmt::format("input {} {}: {}\n", i,
                             i < def.input_names.size() ? def.input_names[i] : "?",
                             summarize(args[i]));

  EvaluatorOptions eval_options;
  eval_options.input_names = def.input_names;
  auto start = std::chrono::steady_clock::now();
  std::vector<Argument> outputs = evaluateFusion(*def.fusion, args, eval_options);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  for (size_t i = 0; i < outputs.size(); ++i)
    std::cout << fmt::format("output {} {}: {}\n", i, def.fusion->outputs()[i]->toString(),
                             summarize(outputs[i]));
  std::cout << fmt::format("ran on the reference evaluator in {:.3f} ms\n", ms);

  if (!o.save_outputs.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.save_outputs, ec);
    FUSEBOX_USER_CHECK(!ec, "--save-outputs {}: cannot create the folder: {}", o.save_outputs,
                       ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = (std::filesystem::path(o.save_outputs) / fmt::format("output_{}.npy", i)).string();
      if (auto* t = std::get_if<Tensor>(&outputs[i])) {
        saveNpy(path, *t);
      } else {
        double v = toDouble(std::get<ScalarValue>(outputs[i]));
        saveNpy(path, Tensor::scalar(def.fusion->outputs()[i]->dtype(), v));
      }
      std::cout << "saved " << path << "\n";
    }
  }
  return kOk;
}

}  // namespace

Command addRunCommand(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand("run", "Parse an nvFuser Python definition, run it, and "
                                               "summarize its outputs");
  app->add_option("file", options->file, "nvFuser Python definition or repro script")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_option("--input,-i", options->inputs,
                  "Override an input: NAME=16x512:float (random), NAME=x.npy, NAME=1.5; NAME is "
                  "the script's variable (T0) or a position (#0)");
  app->add_option("--save-outputs", options->save_outputs,
                  "Write each output to DIR/output_<index>.npy");
  app->add_option("--seed", options->seed, "Seed for random inputs")->capture_default_str();
  app->add_flag("--no-ir", options->quiet_ir, "Do not print the fusion IR");
  addPassFlags(app, options->passes);
  return {app, [options] { return runCommand(*options); }};
}

}  // namespace fusebox::cli
