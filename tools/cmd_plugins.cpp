// `fusebox plugins`: what the config's plugin paths hold, and the pipeline.
#include "cli_common.h"

#include <fusebox/pass_pipeline.h>

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace fusebox::cli {
namespace {

int pluginsCommand(const std::string& config_file) {
  Config config = loadConfig(
      config_file.empty() ? std::nullopt : std::optional<std::filesystem::path>(config_file));
  std::cout << "config: " << (config.file.empty() ? "(built-in defaults)" : config.file.string())
            << "\nsearch paths:\n";
  for (const auto& p : config.plugin_paths) std::cout << "  " << p.path.string() << "\n";

  PluginRegistry registry;
  registry.discover(config.plugin_paths);
  for (const auto& d : registry.diagnostics()) std::cerr << "warning: " << d.message << "\n";
  PassPipeline pipeline = PassPipeline::build(config, registry);
  for (const auto& message : pipeline.setupDiagnostics())
    std::cerr << "warning: " << message << "\n";
  auto order = pipeline.names();

  std::cout << "\nplugins:\n";
  for (const auto& plugin : registry.plugins()) {
    std::cout << fmt::format("{}  {}  {}  {}\n", plugin.name, toString(plugin.kind), plugin.version,
                             plugin.file.string());
    if (!plugin.description.empty()) std::cout << "  " << plugin.description << "\n";
    if (plugin.kind != PluginKind::Pass) continue;
    auto at = std::find(order.begin(), order.end(), plugin.name);
    bool disabled = std::any_of(config.disabled_passes.begin(), config.disabled_passes.end(),
                                [&](const NamedSetting& d) { return d.name == plugin.name; });
    std::cout << "  pipeline: "
              << (at != order.end() ? fmt::format("position {}", at - order.begin() + 1)
                  : disabled        ? std::string("disabled")
                                    : std::string("not run (not in [passes] order)"))
              << "\n";
    std::vector<OptionSpec> specs;
    try {
      auto pass = registry.createPass(plugin.name);
      specs = callPlugin(plugin, "options()", [&] { return pass->options(); });
    } catch (const PluginError& e) {
      std::cerr << "warning: " << e.what() << "\n";
      continue;
    }
    if (specs.empty()) std::cout << "  options: none\n";
    auto table = config.pass_options.find(plugin.name);
    for (const auto& s : specs) {
      std::string configured;
      if (table != config.pass_options.end())
        if (auto it = table->second.settings.find(s.name); it != table->second.settings.end())
          configured = ", configured " + formatOptionValue(it->second.value);
      std::cout << fmt::format("  option {} ({}, default {}{}): {}\n", s.name, toString(s.type),
                               formatOptionValue(s.default_value), configured, s.description);
    }
  }
  if (registry.plugins().empty()) std::cout << "  none\n";
  return kOk;
}

}  // namespace

Command addPluginsCommand(CLI::App& parent) {
  auto config = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "plugins",
      "List the plugins the config's plugin paths hold, their options, and the pass "
      "pipeline");
  app->add_option("--config", *config,
                  "TOML config file (default: $FUSEBOX_CONFIG, else fusebox's default.toml)");
  return {app, [config] { return pluginsCommand(*config); }};
}

}  // namespace fusebox::cli
