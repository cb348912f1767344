// The flags `run` and `print` share: --config, --set, --disable-pass,
// --print-after, --time-passes, --verify-passes, --no-passes; and the `run`-only ones that
// reach the runtime: --dump, --dump-graph, --disable-scheduler.
#pragma once

#include <fusebox/config.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/options.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/runtime.h>

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
  bool print_transforms = false;      // IR dumps with the transform section
  std::vector<std::string> settings;  // --set KEY=VALUE, applied over the config
  // `run` only: --dump NAME[=VALUE][,...] (any [dump] option, FUSEBOX_DUMP's
  // syntax), --dump-graph FILE, --disable-scheduler NAME.
  std::vector<std::string> dump;
  std::string dump_graph;
  std::vector<std::string> disabled_schedulers;
  bool no_concretize_resize_extents = false;  // [runtime] concretize_resize_extents = false
  std::string shapes;                         // [runtime] shapes, when given
};

void addPassFlags(CLI::App* app, PassFlags& flags);
// The flags only `run` has (they reach the runtime).
void addRuntimeFlags(CLI::App* app, PassFlags& flags);

// What the flags select: the config, the option set (config < environment <
// command line), and the plugins found in the config's paths.
struct Setup {
  Config config;
  Options options;
  PluginRegistry registry;
  std::vector<NamedSetting> disabled_passes;
  std::vector<NamedSetting> disabled_schedulers;
};
// Warnings about plugin files go to `diagnostics`.
Setup loadSetup(const PassFlags& flags, std::ostream& diagnostics);

// Loads the config, finds the plugins and runs the configured passes on
// `fusion` (replaced by a copy if a failing pass is rolled back). IR dumps and
// timings go to `out`, warnings to `diagnostics`.
void runPassPipeline(std::unique_ptr<Fusion>& fusion, const PassFlags& flags, std::ostream& out,
                     std::ostream& diagnostics);

// A runtime for `fusion` as the flags select (config, --set, disabled passes
// and schedulers, --no-passes) on `backend` ("" = cuda when a GPU is usable,
// else host; "cuda" without a usable GPU is a UserError). Warnings go to
// runtime.diagnostics, which must be set.
std::unique_ptr<FusionRuntime> makeConfiguredRuntime(std::unique_ptr<Fusion> fusion,
                                                     const PassFlags& flags,
                                                     const std::string& backend,
                                                     RuntimeOptions runtime);

}  // namespace fusebox::cli
