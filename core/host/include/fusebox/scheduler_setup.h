// Making the configured schedulers: the config's [schedulers] order and
// disabled list checked against the scheduler plugins found, each scheduler
// made once and configured with its [schedulers.<name>] table.
//
//   PluginRegistry registry;
//   registry.discover(config.plugin_paths);
//   SchedulerSetup setup = buildSchedulers(config, registry);
//   Segmenter segmenter(setup.entries);
#pragma once

#include <fusebox/config.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/scheduler_entry.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

// Makes a scheduler from plugin `name`. Throws UserError for an unknown name
// (listing the known schedulers) and PluginError when the plugin's code fails
// or its scheduler's name() differs from the name in its record.
std::shared_ptr<Scheduler> createScheduler(const PluginRegistry& registry, std::string_view name);

struct SchedulerSetup {
  // The schedulers that take part, in the order they are tried.
  std::vector<SchedulerEntry> entries;
  // Plugins left out because their code failed while being made or configured.
  std::vector<std::string> diagnostics;
  std::vector<std::string> names() const;
};

// The schedulers `config` describes with the plugins `registry` found. Without
// a [schedulers] order every scheduler found takes part, in discovery order.
// `extra_disabled` adds names (from the command line). Throws UserError, at the
// name's file:line:col, for: a name in order, disabled or a [schedulers.<name>]
// header that no scheduler plugin has (listing the known ones and where each
// was found), a name twice in the order, and invalid scheduler options (every
// table is checked, a disabled scheduler's too).
SchedulerSetup buildSchedulers(const Config& config, const PluginRegistry& registry,
                               const std::vector<NamedSetting>& extra_disabled = {});

}  // namespace fusebox
