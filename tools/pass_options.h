// The pass-pipeline flags `run` and `print` share: --config, --disable-pass,
// --print-after, --time-passes, --verify-passes.
#pragma once

#include <fusebox/ir/fusion.h>

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace fusebox::cli {

struct PassFlags {
  std::string config;  // empty: $FUSEBOX_CONFIG, else the default config
  std::vector<std::string> disabled;
  std::vector<std::string> print_after;
  bool time_passes = false;
  bool verify_passes = false;
  bool no_passes = false;
  bool print_transforms = false;  // IR dumps with the transform section
};

void addPassFlags(CLI::App* app, PassFlags& flags);

// Loads the config, finds the plugins and runs the configured passes on
// `fusion` (replaced by a copy if a failing pass is rolled back). IR dumps and
// timings go to `out`, warnings to `diagnostics`.
void runPassPipeline(std::unique_ptr<Fusion>& fusion, const PassFlags& flags, std::ostream& out,
                     std::ostream& diagnostics);

}  // namespace fusebox::cli
