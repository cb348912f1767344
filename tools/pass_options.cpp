#include "pass_options.h"

#include <fusebox/backend/cuda_backend.h>
#include <fusebox/pass_pipeline.h>
#include <fusebox/scheduler_setup.h>

#include <fmt/format.h>

namespace fusebox::cli {

void addPassFlags(CLI::App* app, PassFlags& flags) {
  app->add_option("--config", flags.config,
                  "TOML config file (default: $FUSEBOX_CONFIG, else fusebox's default.toml)");
  // One value per occurrence, so `--disable-pass x FILE.py` leaves FILE.py alone.
  app->add_option("--disable-pass", flags.disabled, "Do not run this pass (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--print-after", flags.print_after,
                  "Print the IR after this pass, after 'all' passes, or after those that "
                  "'changed' it (repeatable)")
      ->allow_extra_args(false);
  app->add_flag("--time-passes", flags.time_passes, "Print the time each pass took");
  app->add_flag("--verify-passes", flags.verify_passes,
                "Run the IR verifier after each pass and check its 'changed' claim");
  app->add_flag("--no-passes", flags.no_passes, "Run no passes: the fusion as defined");
  app->add_option("--set", flags.settings,
                  "Override one config setting, KEY=VALUE as a TOML line would say it: "
                  "schedulers.pointwise.unroll=4, passes.remove_bcast_squeeze.swap_unary_ops="
                  "false, schedulers.order=[\"no_op\", ...] (repeatable; over the config file "
                  "and the environment)")
      ->allow_extra_args(false);
}

void addRuntimeFlags(CLI::App* app, PassFlags& flags) {
  app->add_option("--dump", flags.dump,
                  "Dump options, as in FUSEBOX_DUMP: NAME[=VALUE][,NAME...], e.g. "
                  "segmented_fusion,segmenter_log,scheduler_params,kernel_source,fusion_ir or "
                  "print_after=all (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--dump-graph", flags.dump_graph,
                  "Write the segment graph to this Graphviz file (and an SVG beside it when "
                  "`dot` is installed)");
  app->add_option("--disable-scheduler", flags.disabled_schedulers,
                  "Do not use this scheduler (repeatable)")
      ->allow_extra_args(false);
  app->add_flag("--no-concretize-resize-extents", flags.no_concretize_resize_extents,
                "Keep pad, slice and cat extents symbolic: a new width reuses the concretization "
                "when the output's IterType is the same ([runtime] concretize_resize_extents)");
  app->add_option("--shapes", flags.shapes,
                  "static: kernels bake sizes in; symbolic: kernels read sizes from parameters "
                  "and are reused across sizes; auto: static until a fusion sees a second size "
                  "([runtime] shapes)")
      ->check(CLI::IsMember({"static", "symbolic", "auto"}));
}

Setup loadSetup(const PassFlags& flags, std::ostream& diagnostics) {
  Setup setup;
  setup.config = loadConfig(
      flags.config.empty() ? std::nullopt : std::optional<std::filesystem::path>(flags.config));
  Config command_line;  // the --set settings alone, for the [dump]/[runtime] ones
  for (const auto& assignment : flags.settings) {
    applySetting(setup.config, assignment);
    applySetting(command_line, assignment);
  }
  Options& options = setup.options;
  options.applyConfig(setup.config);
  options.applyEnvironment();
  // The command line last: --dump first, then the flags that name one option.
  for (const auto& text : flags.dump) options.applyEnvironmentText("--dump", "dump", text);
  OptionSettings dump, runtime;
  if (!flags.print_after.empty())
    dump["print_after"] = {flags.print_after, {"--print-after", 0, 0}};
  if (flags.time_passes) dump["time_passes"] = {true, {"--time-passes", 0, 0}};
  if (flags.print_transforms) dump["print_transforms"] = {true, {"--transforms", 0, 0}};
  if (!flags.dump_graph.empty()) dump["graph_file"] = {flags.dump_graph, {"--dump-graph", 0, 0}};
  if (flags.verify_passes) runtime["verify_passes"] = {true, {"--verify-passes", 0, 0}};
  if (flags.no_concretize_resize_extents)
    runtime["concretize_resize_extents"] = {false, {"--no-concretize-resize-extents", 0, 0}};
  if (!flags.shapes.empty()) runtime["shapes"] = {flags.shapes, {"--shapes", 0, 0}};
  options.apply("dump", command_line.dump);
  options.apply("runtime", command_line.runtime);
  options.apply("dump", dump);
  options.apply("runtime", runtime);

  setup.registry.discover(setup.config.plugin_paths);
  for (const auto& d : setup.registry.diagnostics())
    diagnostics << "warning: " << d.message << "\n";
  for (const auto& name : flags.disabled)
    setup.disabled_passes.push_back({name, {"--disable-pass", 0, 0}});
  for (const auto& name : flags.disabled_schedulers)
    setup.disabled_schedulers.push_back({name, {"--disable-scheduler", 0, 0}});
  return setup;
}

void runPassPipeline(std::unique_ptr<Fusion>& fusion, const PassFlags& flags, std::ostream& out,
                     std::ostream& diagnostics) {
  if (flags.no_passes) return;
  Setup setup = loadSetup(flags, diagnostics);
  PassPipeline pipeline = PassPipeline::build(setup.config, setup.registry, setup.disabled_passes);
  pipeline.run(fusion, setup.options, out, &diagnostics);
}

std::unique_ptr<FusionRuntime> makeConfiguredRuntime(std::unique_ptr<Fusion> fusion,
                                                     const PassFlags& flags,
                                                     const std::string& backend,
                                                     RuntimeOptions runtime) {
  Setup setup = loadSetup(flags, *runtime.diagnostics);
  if (!backend.empty()) {
    runtime.backend = parseBackendChoice(backend, "--backend");
    if (runtime.backend == BackendChoice::Cuda) {
      CudaAvailability cuda = cudaAvailable();
      FUSEBOX_USER_CHECK(cuda.available, "--backend cuda: no usable GPU: {}", cuda.reason);
    }
  }
  if (!flags.no_passes)
    return std::make_unique<FusionRuntime>(std::move(fusion), setup.config, setup.registry,
                                           setup.options, runtime, setup.disabled_passes,
                                           setup.disabled_schedulers);
  SchedulerSetup schedulers =
      buildSchedulers(setup.config, setup.registry, setup.disabled_schedulers);
  for (const auto& message : schedulers.diagnostics)
    *runtime.diagnostics << "warning: " << message << "\n";
  return std::make_unique<FusionRuntime>(std::move(fusion), std::nullopt,
                                         std::move(schedulers.entries), setup.options, runtime);
}

}  // namespace fusebox::cli
