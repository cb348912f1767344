// The TOML configuration: where plugins are, which passes run in what order
// with which options, and the [dump] / [runtime] options. docs/config.md
// describes every key.
//
//   [plugins]
//   paths = ["plugins"]            # relative to this file; "@builtin" = fusebox's own
//   [passes]
//   order = ["remove_empty", "consecutive_cast"]
//   disabled = ["consecutive_cast"]
//   [passes.remove_bcast_squeeze]  # options of one pass, checked by the pass
//   swap_unary_ops = false
//   [schedulers]
//   order = ["no_op", "expr_eval"]  # tried in this order; the first that accepts wins
//   disabled = []
//   [schedulers.<name>]             # options of one scheduler, checked by the scheduler
//   [dump]
//   print_after = ["all"]
//   [runtime]
//   verify_passes = true
#pragma once

#include <fusebox/error.h>
#include <fusebox/option_value.h>
#include <fusebox/plugin/plugin_registry.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

// A name given in the config, and where.
struct NamedSetting {
  std::string name;
  SourceLocation where;
};

// The options table of one plugin: [passes.<name>] or [schedulers.<name>].
struct PassOptionTable {
  OptionSettings settings;
  SourceLocation where;  // the table's header
};
using SchedulerOptionTable = PassOptionTable;

struct Config {
  // The file read; empty for a config parsed from text without a file.
  std::filesystem::path file;
  // [plugins] paths, made absolute. Absent table: the built-in plugin folder.
  std::vector<PluginSearchPath> plugin_paths;
  // Where those paths were given ([plugins] paths, or --set plugins.paths);
  // unknown for the built-in default.
  SourceLocation plugin_paths_origin;
  // [passes] order; nullopt when absent (then the default order below, else
  // every pass found runs, in an order that satisfies their constraints).
  std::optional<std::vector<NamedSetting>> pass_order;
  // The default config's orders, for a file that leaves out its own
  // (inheritDefaultOrders): the plugins they name that are found run or are
  // tried first, in that order, then any others found.
  std::vector<std::string> default_pass_order;
  std::vector<std::string> default_scheduler_order;
  std::vector<NamedSetting> disabled_passes;
  // [passes.<name>] tables.
  std::map<std::string, PassOptionTable> pass_options;
  // [schedulers] order; nullopt when absent (then the default order below,
  // else every scheduler found is tried, in discovery order). Checked
  // against the plugins by buildSchedulers (scheduler_setup.h).
  std::optional<std::vector<NamedSetting>> scheduler_order;
  std::vector<NamedSetting> disabled_schedulers;
  // [schedulers.<name>] tables.
  std::map<std::string, SchedulerOptionTable> scheduler_options;
  // [dump] and [runtime], checked when applied to Options (options.h).
  OptionSettings dump;
  OptionSettings runtime;
};

// Parses a config. `file` names it in messages and anchors relative plugin paths
// (its folder; the current folder when empty). Malformed TOML, unknown keys and
// wrong types throw UserError at file:line:col.
Config parseConfig(std::string_view text, const std::filesystem::path& file = {});
// Reads and parses a file; a missing or unreadable file is a UserError naming
// `origin` (e.g. "--config", "FUSEBOX_CONFIG"). Then inheritDefaultOrders.
Config loadConfigFile(const std::filesystem::path& file, std::string_view origin = "config");
// Fills default_pass_order / default_scheduler_order from defaultConfigFile()
// for each order `config` leaves out (nothing when it has both, or when there
// is no default file), so leaving out `order` keeps fusebox's order and
// `disabled` only removes from it.
void inheritDefaultOrders(Config& config);
// The order used without an `order` key: the names of `default_order` that
// are in `found`, in that order, then the rest of `found` in its own order.
std::vector<std::string> defaultOrderFirst(const std::vector<std::string>& default_order,
                                           const std::vector<std::string>& found);

// fusebox's own files, found beside libfusebox_runtime (<libdir>/fusebox/): the
// default config and the built-in plugin folder.
std::filesystem::path builtinConfigDir();
std::filesystem::path builtinPluginDir();
std::filesystem::path defaultConfigFile();

// A UserError at config.plugin_paths_origin when `registry` (discovered from
// config.plugin_paths) holds no plugin at all: every pass and scheduler the
// config names would otherwise be reported unknown at a line the user never
// touched. The message lists the paths searched and why files there were not
// plugins.
void requirePluginsFound(const Config& config, const PluginRegistry& registry);

// Applies one `--set KEY=VALUE` to `config`, as if the file had said
// `KEY = VALUE` (TOML's dotted keys): passes.<pass>.<option>,
// schedulers.<scheduler>.<option>, passes.order, schedulers.disabled,
// dump.<option>, runtime.<option>, plugins.paths. VALUE is a TOML value; a
// bare word that is not one is taken as a string. Orders, disabled lists and
// plugin paths replace the file's; options are set one by one. Errors (bad
// TOML, unknown tables, wrong types) are UserErrors at `origin`:1:column
// naming the setting.
void applySetting(Config& config, std::string_view assignment, std::string_view origin = "--set");

// The config to use: `explicit_path` (from --config) when given, else
// $FUSEBOX_CONFIG when set and non-empty, else defaultConfigFile(). Then loaded.
Config loadConfig(const std::optional<std::filesystem::path>& explicit_path = std::nullopt);

}  // namespace fusebox
