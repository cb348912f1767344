// Reads the TOML config with TOML++. Every key is checked: unknown keys and
// wrong types are errors at the key's or value's file:line:col.
#include <fusebox/config.h>
#include <fusebox/options.h>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>

#include "config/toml_nesting.h"
#include "file_access.h"

namespace fusebox {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxConfigBytes = uint64_t{1} << 20;  // a config is a few hundred bytes

class ConfigReader {
 public:
  ConfigReader(const fs::path& file) : file_(file) {
    base_dir_ = file.empty() ? fs::current_path() : fs::absolute(file).parent_path();
  }

  Config read(const toml::table& root) {
    Config config;
    config.file = file_;
    bool have_plugins = false;
    for (const auto& [key, node] : root) {
      const std::string name(key.str());
      if (name == "plugins") {
        readPlugins(key, node, config);
        have_plugins = true;
      } else if (name == "passes") {
        readPluginTable(key, node, "passes", "pass", config.pass_order, config.disabled_passes,
                        config.pass_options);
      } else if (name == "schedulers") {
        readPluginTable(key, node, "schedulers", "scheduler", config.scheduler_order,
                        config.disabled_schedulers, config.scheduler_options);
      } else if (name == "dump" || name == "runtime") {
        OptionSettings settings = readOptionTable(key, node, "[" + name + "]");
        // Checked now so that a typo is reported with the file's position.
        resolveOptions(Options::specs(name), settings, "[" + name + "]");
        (name == "dump" ? config.dump : config.runtime) = std::move(settings);
      } else {
        throw UserError(at(key.source()),
                        fmt::format("unknown table or key '{}'; a config has the tables "
                                    "[plugins], [passes], [schedulers], [dump] and [runtime]",
                                    displayText(name)));
      }
    }
    if (!have_plugins) config.plugin_paths.push_back({builtinPluginDir(), {}});
    return config;
  }

 private:
  SourceLocation at(const toml::source_region& r) const {
    return {file_.string(), static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
  }

  static std::string typeName(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::table:
        return "table";
      case toml::node_type::array:
        return "array";
      case toml::node_type::string:
        return "string";
      case toml::node_type::integer:
        return "integer";
      case toml::node_type::floating_point:
        return "float";
      case toml::node_type::boolean:
        return "bool";
      case toml::node_type::date:
        return "date";
      case toml::node_type::time:
        return "time";
      case toml::node_type::date_time:
        return "date-time";
      default:
        return "nothing";
    }
  }

  const toml::table& requireTable(const toml::key& key, const toml::node& node,
                                  const std::string& what) const {
    const toml::table* t = node.as_table();
    if (t == nullptr)
      throw UserError(at(node.source()),
                      fmt::format("'{}' must be a table ({}), got {}", displayText(key.str()), what,
                                  withArticle(typeName(node))));
    return *t;
  }

  // An array of strings, each with its position.
  std::vector<NamedSetting> readNames(const toml::node& node, const std::string& what) const {
    const toml::array* a = node.as_array();
    if (a == nullptr)
      throw UserError(at(node.source()), fmt::format("{} must be an array of strings, got {}", what,
                                                     withArticle(typeName(node))));
    std::vector<NamedSetting> out;
    for (const auto& element : *a) {
      const auto* s = element.as_string();
      if (s == nullptr)
        throw UserError(at(element.source()),
                        fmt::format("{} must be an array of strings, but this entry is {}", what,
                                    withArticle(typeName(element))));
      out.push_back({s->get(), at(element.source())});
    }
    return out;
  }

  OptionValue readValue(const toml::node& node, const std::string& what) const {
    switch (node.type()) {
      case toml::node_type::boolean:
        return node.as_boolean()->get();
      case toml::node_type::integer:
        return node.as_integer()->get();
      case toml::node_type::floating_point:
        return node.as_floating_point()->get();
      case toml::node_type::string:
        return node.as_string()->get();
      case toml::node_type::array: {
        // Option arrays hold strings; an array of anything else is no
        // option's value (not "must be an array of strings": the option
        // may want an integer, and the scheduler's check says which).
        for (const auto& element : *node.as_array())
          if (!element.is_string())
            throw UserError(at(element.source()),
                            fmt::format("{}: an array holding {} is not a valid option value "
                                        "(expected a bool, integer, float, string or array of "
                                        "strings)",
                                        what, withArticle(typeName(element))));
        std::vector<std::string> list;
        for (const auto& n : readNames(node, what)) list.push_back(n.name);
        return list;
      }
      default:
        throw UserError(at(node.source()),
                        fmt::format("{}: {} is not a valid option value (expected a bool, "
                                    "integer, float, string or array of strings)",
                                    what, withArticle(typeName(node))));
    }
  }

  OptionSettings readOptionTable(const toml::key& key, const toml::node& node,
                                 const std::string& owner) const {
    const toml::table& t = requireTable(key, node, owner + " holds options");
    OptionSettings settings;
    for (const auto& [k, v] : t) {
      std::string name(k.str());
      settings[name] = {readValue(v, fmt::format("option '{}' of {}", displayText(name), owner)),
                        at(v.source())};
    }
    return settings;
  }

  void readPlugins(const toml::key& key, const toml::node& node, Config& config) const {
    const toml::table& t = requireTable(key, node, "with key 'paths'");
    bool have_paths = false;
    for (const auto& [k, v] : t) {
      if (k.str() != "paths")
        throw UserError(at(k.source()), fmt::format("unknown key '{}' in [plugins]; the only key "
                                                    "is 'paths'",
                                                    displayText(k.str())));
      have_paths = true;
      config.plugin_paths_origin = at(v.source());
      for (const auto& entry : readNames(v, "[plugins] paths")) {
        fs::path p = entry.name == "@builtin" ? builtinPluginDir() : fs::path(entry.name);
        if (p.is_relative()) p = base_dir_ / p;
        config.plugin_paths.push_back({p.lexically_normal(), entry.where});
      }
    }
    if (!have_paths) config.plugin_paths.push_back({builtinPluginDir(), at(key.source())});
  }

  // [passes] or [schedulers]: 'order', 'disabled' and one option table per plugin.
  void readPluginTable(const toml::key& key, const toml::node& node, const std::string& plural,
                       const std::string& kind, std::optional<std::vector<NamedSetting>>& order,
                       std::vector<NamedSetting>& disabled,
                       std::map<std::string, PassOptionTable>& options) const {
    const std::string table = "[" + plural + "]";
    const toml::table& t = requireTable(
        key, node,
        fmt::format("with keys 'order', 'disabled' and one table per configured {}", kind));
    for (const auto& [k, v] : t) {
      const std::string name(k.str());
      if (name == "order") {
        order = readNames(v, table + " order");
      } else if (name == "disabled") {
        disabled = readNames(v, table + " disabled");
      } else if (v.is_table()) {
        PassOptionTable options_table;
        options_table.settings =
            readOptionTable(k, v, fmt::format("{} '{}'", kind, displayText(name)));
        options_table.where = at(k.source());
        options[name] = std::move(options_table);
      } else {
        throw UserError(at(k.source()),
                        fmt::format("unknown key '{}' in {}; expected 'order', 'disabled', "
                                    "or a table [{}.<{} name>] of one {}'s options",
                                    displayText(name), table, plural, kind, kind));
      }
    }
  }

  fs::path file_;
  fs::path base_dir_;
};

}  // namespace

Config parseConfig(std::string_view text, const fs::path& file) {
  if (std::optional<TomlPosition> at = findTomlNestingOver(text, kMaxTomlNesting))
    throw UserError(SourceLocation{file.string(), at->line, at->column},
                    fmt::format("the config nests deeper than {} levels here (each part of a "
                                "table name or dotted key, and each array, is a level); fusebox's "
                                "own settings are at most 3 deep",
                                kMaxTomlNesting));
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw UserError(
        SourceLocation{file.string(), static_cast<int>(begin.line), static_cast<int>(begin.column)},
        fmt::format("malformed TOML: {}", e.description()));
  }
  return ConfigReader(file).read(root);
}

Config loadConfigFile(const fs::path& file, std::string_view origin) {
  std::error_code ec;
  if (!fs::exists(file, ec))
    throw UserError(fmt::format("{}: config file '{}' does not exist", origin, file.string()));
  if (fs::is_directory(file, ec))
    throw UserError(fmt::format("{}: config file '{}' is a folder", origin, file.string()));
  std::string text;
  try {
    // Pipes too: `--config <(...)` hands over one.
    text = readBoundedFile(file, kMaxConfigBytes, "the config file", /*allow_pipe=*/true);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", origin, e.what()));
  }
  Config config = parseConfig(text, file);
  inheritDefaultOrders(config);
  return config;
}

void inheritDefaultOrders(Config& config) {
  if (config.pass_order && config.scheduler_order) return;
  const fs::path file = defaultConfigFile();
  std::error_code ec;
  if (!fs::exists(file, ec) || fs::equivalent(file, config.file, ec)) return;
  const Config defaults = parseConfig(
      readBoundedFile(file, kMaxConfigBytes, "the default config file", /*allow_pipe=*/false),
      file);
  auto names = [](const std::optional<std::vector<NamedSetting>>& order) {
    std::vector<std::string> out;
    if (order)
      for (const NamedSetting& n : *order) out.push_back(n.name);
    return out;
  };
  if (!config.pass_order) config.default_pass_order = names(defaults.pass_order);
  if (!config.scheduler_order) config.default_scheduler_order = names(defaults.scheduler_order);
}

std::vector<std::string> defaultOrderFirst(const std::vector<std::string>& default_order,
                                           const std::vector<std::string>& found) {
  auto contains = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<std::string> out;
  for (const std::string& name : default_order)
    if (contains(found, name)) out.push_back(name);
  for (const std::string& name : found)
    if (!contains(default_order, name)) out.push_back(name);
  return out;
}

void requirePluginsFound(const Config& config, const PluginRegistry& registry) {
  if (!registry.plugins().empty()) return;
  std::vector<std::string> paths;
  for (const auto& p : config.plugin_paths) paths.push_back(p.path.string());
  std::string why;
  const auto& skipped = registry.diagnostics();
  if (!skipped.empty())
    why = fmt::format("; {} file{} there {} not a plugin (first: {}: {})", skipped.size(),
                      skipped.size() == 1 ? "" : "s", skipped.size() == 1 ? "is" : "are",
                      skipped.front().file.string(), skipped.front().message);
  throw UserError(
      config.plugin_paths_origin,
      fmt::format(
          "the plugin paths {} hold no fusebox plugins{}, so no pass or "
          "scheduler could run; name a folder of plugins (\"@builtin\" is "
          "fusebox's own)",
          paths.empty() ? "[] (an empty list)" : fmt::format("[{}]", fmt::join(paths, ", ")), why));
}

Config loadConfig(const std::optional<fs::path>& explicit_path) {
  if (explicit_path) return loadConfigFile(*explicit_path, "--config");
  if (const char* env = std::getenv("FUSEBOX_CONFIG"); env != nullptr && *env != '\0')
    return loadConfigFile(env, "FUSEBOX_CONFIG");
  fs::path file = defaultConfigFile();
  std::error_code ec;
  if (fs::exists(file, ec)) return loadConfigFile(file, "default config");
  // No default file (an incomplete install): built-in plugins, constraint order.
  Config config;
  config.plugin_paths.push_back({builtinPluginDir(), {}});
  return config;
}

}  // namespace fusebox
