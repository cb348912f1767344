#include "pass_options.h"

#include <fusebox/options.h>
#include <fusebox/pass_pipeline.h>

namespace fusebox::cli {

void addPassFlags(CLI::App* app, PassFlags& flags) {
  app->add_option("--config", flags.config,
                  "TOML config file (default: $FUSEBOX_CONFIG, else fusebox's default.toml)");
  app->add_option("--disable-pass", flags.disabled, "Do not run this pass (repeatable)");
  app->add_option("--print-after", flags.print_after,
                  "Print the IR after this pass, after 'all' passes, or after those that "
                  "'changed' it (repeatable)");
  app->add_flag("--time-passes", flags.time_passes, "Print the time each pass took");
  app->add_flag("--verify-passes", flags.verify_passes,
                "Run the IR verifier after each pass and check its 'changed' claim");
  app->add_flag("--no-passes", flags.no_passes, "Run no passes: the fusion as defined");
}

void runPassPipeline(std::unique_ptr<Fusion>& fusion, const PassFlags& flags, std::ostream& out,
                     std::ostream& diagnostics) {
  if (flags.no_passes) return;
  Config config = loadConfig(
      flags.config.empty() ? std::nullopt : std::optional<std::filesystem::path>(flags.config));
  Options options;
  options.applyConfig(config);
  options.applyEnvironment();
  OptionSettings dump, runtime;
  if (!flags.print_after.empty())
    dump["print_after"] = {flags.print_after, {"--print-after", 0, 0}};
  if (flags.time_passes) dump["time_passes"] = {true, {"--time-passes", 0, 0}};
  if (flags.print_transforms) dump["print_transforms"] = {true, {"--transforms", 0, 0}};
  if (flags.verify_passes) runtime["verify_passes"] = {true, {"--verify-passes", 0, 0}};
  options.apply("dump", dump);
  options.apply("runtime", runtime);

  PluginRegistry registry;
  registry.discover(config.plugin_paths);
  for (const auto& d : registry.diagnostics()) diagnostics << "warning: " << d.message << "\n";
  std::vector<NamedSetting> disabled;
  for (const auto& name : flags.disabled) disabled.push_back({name, {"--disable-pass", 0, 0}});
  PassPipeline pipeline = PassPipeline::build(config, registry, disabled);
  pipeline.run(fusion, options, out, &diagnostics);
}

}  // namespace fusebox::cli
