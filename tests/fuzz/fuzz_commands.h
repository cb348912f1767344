// The subcommands of fusebox_fuzz (fuzz_main.cpp wires them to the command line).
#pragma once

#include "generator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox::fuzz {

// Options shared by both fuzzers.
struct RunLimits {
  uint64_t seed = 1;
  int64_t count = 0;   // cases or mutations; 0: only the time limit
  double minutes = 0;  // 0: only the count
  std::string out;     // folder for failing cases ("" = none written)
  std::vector<std::string>
      ignore;  // failures whose signature or message contains one are known bugs
  bool minimize = true;
  double minimize_minutes = 10;  // total time spent minimizing at the end
  double timeout = 120;          // seconds per case before it counts as a hang
  bool quiet = false;
};

struct FusionRunOptions {
  RunLimits limits;
  std::string backend = "mixed";  // eval, host or mixed
  int64_t host_every = 10;        // mixed: every Nth case on the host backend
  int64_t cli_every = 0;          // every Nth host case also through `fusebox run --validate`
  std::string fusebox_exe;        // for cli_every
  GeneratorOptions generator;
  bool second_run = true;
  bool vary_passes = true;  // one case in three without some default passes
  // Report cases both sides refuse (a generator that made an invalid case)
  // as failures, to improve the generator.
  bool report_invalid = false;
};

struct ParserRunOptions {
  RunLimits limits;
  std::vector<std::string> corpus;  // files or folders of .py and .toml seeds
  bool message_checks = false;
  int64_t memory_mb = 4096;
  int64_t max_depth = 50000;  // deepest nesting a mutation makes
};

// The 64-bit seed of case `index` of a run with seed `run_seed`.
uint64_t caseSeed(uint64_t run_seed, int64_t index);

int runFusions(const FusionRunOptions& options);
int runParsers(const ParserRunOptions& options);
// One script through the checker, in this process; prints the verdict.
int checkScriptFile(const std::string& path, const std::string& backend, bool second_run);
// Minimizes a failing script into `out` (keeping its failure's signature).
int minimizeScriptFile(const std::string& path, const std::string& out, const std::string& backend,
                       double timeout);

}  // namespace fusebox::fuzz
