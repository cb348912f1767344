// Building the scheduler list from the config: names checked against the
// scheduler plugins found, each scheduler made once and configured.
#include <fusebox/scheduler_setup.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fusebox {

namespace {

std::string position(size_t index, const SourceLocation& where) {
  if (!where.known()) return fmt::format("position {}", index + 1);
  return fmt::format("position {} ({})", index + 1, where.str());
}

}  // namespace

std::vector<std::string> SchedulerSetup::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.plugin.name);
  return out;
}

std::shared_ptr<Scheduler> createScheduler(const PluginRegistry& registry, std::string_view name) {
  std::shared_ptr<void> object = registry.createObject(name, PluginKind::Scheduler);
  std::shared_ptr<Scheduler> scheduler(object, static_cast<Scheduler*>(object.get()));
  const PluginDescriptor& d = *registry.find(name, PluginKind::Scheduler);
  std::string reported = callPlugin(d, "name()", [&] { return scheduler->name(); });
  if (reported != d.name)
    throw PluginError(d.name, d.file,
                      fmt::format("plugin '{}' ({}) made a scheduler that calls itself '{}'; a "
                                  "scheduler's name() must equal the name in its plugin record",
                                  d.name, d.file.string(), reported));
  return scheduler;
}

SchedulerSetup buildSchedulers(const Config& config, const PluginRegistry& registry,
                               const std::vector<NamedSetting>& extra_disabled) {
  requirePluginsFound(config, registry);
  auto unknown = [&](const SourceLocation& where, const std::string& context,
                     const std::string& name) {
    return UserError(where, fmt::format("{}unknown scheduler '{}'; known schedulers: {}",
                                        context.empty() ? "" : context + ": ", name,
                                        registry.describeKnown(PluginKind::Scheduler)));
  };
  SchedulerSetup setup;

  std::map<std::string, SourceLocation> disabled;
  for (const auto* list : {&config.disabled_schedulers, &extra_disabled})
    for (const auto& d : *list) {
      // A command-line entry's location already names its flag.
      const std::string context = list == &extra_disabled ? "" : "[schedulers] disabled";
      if (!registry.find(d.name, PluginKind::Scheduler)) throw unknown(d.where, context, d.name);
      disabled.emplace(d.name, d.where);
    }
  for (const auto& [name, table] : config.scheduler_options)
    if (!registry.find(name, PluginKind::Scheduler))
      throw unknown(table.where, fmt::format("[schedulers.{}]", name), name);

  std::vector<NamedSetting> order;
  if (config.scheduler_order) {
    order = *config.scheduler_order;
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < order.size(); ++i) {
      if (!registry.find(order[i].name, PluginKind::Scheduler))
        throw unknown(order[i].where, "[schedulers] order", order[i].name);
      auto [it, fresh] = seen.emplace(order[i].name, i);
      if (!fresh)
        throw UserError(order[i].where,
                        fmt::format("scheduler '{}' appears twice in [schedulers] order, at {} "
                                    "and {}",
                                    order[i].name, position(it->second, order[it->second].where),
                                    position(i, order[i].where)));
    }
  } else {
    // The default config's order first, then the other schedulers found in
    // discovery order.
    std::vector<std::string> found;
    for (const auto& plugin : registry.plugins(PluginKind::Scheduler)) found.push_back(plugin.name);
    for (const std::string& name : defaultOrderFirst(config.default_scheduler_order, found))
      order.push_back({name, {}});
  }

  // Every scheduler found is made and configured, so a typo in a disabled
  // scheduler's table surfaces too. A plugin whose code fails is left out.
  std::map<std::string, std::shared_ptr<Scheduler>> made;
  for (const auto& plugin : registry.plugins(PluginKind::Scheduler)) {
    auto table = config.scheduler_options.find(plugin.name);
    OptionSettings settings =
        table == config.scheduler_options.end() ? OptionSettings{} : table->second.settings;
    try {
      auto scheduler = createScheduler(registry, plugin.name);
      callPlugin(
          plugin, "configure()", [&] { scheduler->configure(settings); },
          /*pass_user_errors=*/true);
      made[plugin.name] = std::move(scheduler);
    } catch (const PluginError& e) {
      setup.diagnostics.push_back(fmt::format("{}; the scheduler is left out", e.what()));
    }
  }

  for (const auto& n : order) {
    if (disabled.count(n.name)) continue;
    auto it = made.find(n.name);
    if (it == made.end()) continue;  // left out above, with a diagnostic
    setup.entries.push_back({*registry.find(n.name, PluginKind::Scheduler), it->second});
  }
  return setup;
}

}  // namespace fusebox
