// `--set KEY=VALUE`: one config setting from the command line (config.h).
// Parsed as the one-line TOML file `KEY = VALUE` by the config reader, so the
// same keys, types and messages apply, then merged over the loaded config.
#include <fusebox/config.h>

#include <fmt/format.h>

namespace fusebox {

namespace {

bool looksQuotedOrStructured(std::string_view v) {
  return !v.empty() &&
         (v.front() == '"' || v.front() == '\'' || v.front() == '[' || v.front() == '{');
}

std::string tomlBasicString(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void applySetting(Config& config, std::string_view assignment, std::string_view origin) {
  const size_t eq = assignment.find('=');
  FUSEBOX_USER_CHECK(eq != std::string_view::npos && eq > 0,
                     "{} {}: expected KEY=VALUE, e.g. schedulers.pointwise.unroll=4", origin,
                     displayText(assignment, 200));
  const std::string_view key = assignment.substr(0, eq);
  const std::string_view value = assignment.substr(eq + 1);
  FUSEBOX_USER_CHECK(key.find_first_of("\n\r[]#") == std::string_view::npos &&
                         value.find_first_of("\n\r") == std::string_view::npos,
                     "{} {}: expected one KEY=VALUE on one line (KEY a dotted name such as "
                     "schedulers.pointwise.unroll)",
                     origin, displayText(assignment, 200));
  const std::string name(origin);
  Config overlay;
  try {
    overlay = parseConfig(fmt::format("{} = {}", key, value), name);
  } catch (const UserError&) {
    // `runtime.kernel_cache_dir=/tmp/k`: a bare word is a string.
    if (looksQuotedOrStructured(value)) throw;
    overlay = parseConfig(fmt::format("{} = {}", key, tomlBasicString(value)), name);
  }
  // The key as the reader saw it: TOML allows `schedulers . disabled ` and
  // `"schedulers".disabled`, and fusebox's own names hold no spaces or quotes.
  std::string canonical;
  for (char c : key)
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') canonical += c;
  if (canonical.starts_with("plugins")) {
    config.plugin_paths = overlay.plugin_paths;
    config.plugin_paths_origin = overlay.plugin_paths_origin;
  }
  if (overlay.pass_order) config.pass_order = overlay.pass_order;
  if (overlay.scheduler_order) config.scheduler_order = overlay.scheduler_order;
  if (canonical == "passes.disabled") config.disabled_passes = overlay.disabled_passes;
  if (canonical == "schedulers.disabled") config.disabled_schedulers = overlay.disabled_schedulers;
  auto merge = [](auto& into, const auto& from) {
    for (const auto& [plugin, table] : from) {
      auto [it, inserted] = into.try_emplace(plugin, table);
      if (!inserted)
        for (const auto& [option, setting] : table.settings) it->second.settings[option] = setting;
    }
  };
  merge(config.pass_options, overlay.pass_options);
  merge(config.scheduler_options, overlay.scheduler_options);
  for (const auto& [option, setting] : overlay.dump) config.dump[option] = setting;
  for (const auto& [option, setting] : overlay.runtime) config.runtime[option] = setting;
}

}  // namespace fusebox
