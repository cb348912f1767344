// `fusebox plugins`: what the config's plugin paths hold, the pass pipeline
// and the scheduler order.
#include "cli_common.h"

#include <fusebox/pass_pipeline.h>
#include <fusebox/scheduler_setup.h>

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
  SchedulerSetup schedulers = buildSchedulers(config, registry);
  for (const auto& message : schedulers.diagnostics) std::cerr << "warning: " << message << "\n";
  auto scheduler_order = schedulers.names();

  std::cout << "\nplugins:\n";
  for (const auto& plugin : registry.plugins()) {
    std::cout << fmt::format("{}  {}  {}  {}\n", plugin.name, toString(plugin.kind), plugin.version,
                             plugin.file.string());
    if (!plugin.description.empty()) std::cout << "  " << plugin.description << "\n";
    const bool is_pass = plugin.kind == PluginKind::Pass;
    const auto& names = is_pass ? order : scheduler_order;
    const auto& disabled_list = is_pass ? config.disabled_passes : config.disabled_schedulers;
    auto at = std::find(names.begin(), names.end(), plugin.name);
    bool disabled = std::any_of(disabled_list.begin(), disabled_list.end(),
                                [&](const NamedSetting& d) { return d.name == plugin.name; });
    std::cout << (is_pass ? "  pipeline: " : "  scheduler order: ")
              << (at != names.end() ? fmt::format("position {}", at - names.begin() + 1)
                  : disabled        ? std::string("disabled")
                  : is_pass         ? std::string("not run (not in [passes] order)")
                                    : std::string("not tried (not in [schedulers] order)"))
              << "\n";
    std::vector<OptionSpec> specs;
    try {
      if (is_pass) {
        auto pass = registry.createPass(plugin.name);
        specs = callPlugin(plugin, "options()", [&] { return pass->options(); });
      } else {
        auto scheduler = createScheduler(registry, plugin.name);
        specs = callPlugin(plugin, "options()", [&] { return scheduler->options(); });
      }
    } catch (const PluginError& e) {
      std::cerr << "warning: " << e.what() << "\n";
      continue;
    }
    if (specs.empty()) std::cout << "  options: none\n";
    const auto& tables = is_pass ? config.pass_options : config.scheduler_options;
    auto table = tables.find(plugin.name);
    for (const auto& s : specs) {
      std::string configured;
      if (table != tables.end())
        if (auto it = table->second.settings.find(s.name); it != table->second.settings.end())
          configured = ", configured " + formatOptionValue(it->second.value);
      std::cout << fmt::format("  option {} ({}, default {}{}): {}\n", s.name, toString(s.type),
                               formatOptionValue(s.default_value), configured, s.description);
    }
  }
  if (registry.plugins().empty()) std::cout << "  none\n";
  auto listed = [](const std::vector<std::string>& names) {
    return names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", "));
  };
  std::cout << "\npass pipeline: " << listed(order)
            << "\nscheduler order: " << listed(scheduler_order) << "\n";
  return kOk;
}

}  // namespace

Command addPluginsCommand(CLI::App& parent) {
  auto config = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "plugins",
      "List the plugins the config's plugin paths hold, their options, the pass pipeline "
      "and the scheduler order");
  app->add_option("--config", *config,
                  "TOML config file (default: $FUSEBOX_CONFIG, else fusebox's default.toml)");
  return {app, [config] { return pluginsCommand(*config); }};
}

}  // namespace fusebox::cli
