#include <fusebox/option_value.h>

#include <fmt/format.h>

#include <algorithm>

namespace fusebox {

std::string_view toString(OptionType t) {
  switch (t) {
    case OptionType::Bool:
      return "bool";
    case OptionType::Int:
      return "integer";
    case OptionType::Double:
      return "float";
    case OptionType::String:
      return "string";
    case OptionType::StringList:
      return "array of strings";
  }
  return "?";
}

OptionType typeOf(const OptionValue& v) {
  switch (v.index()) {
    case 0:
      return OptionType::Bool;
    case 1:
      return OptionType::Int;
    case 2:
      return OptionType::Double;
    case 3:
      return OptionType::String;
    default:
      return OptionType::StringList;
  }
}

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

SourceLocation whereSet(const OptionSettings& settings, const std::string& name) {
  const auto it = settings.find(name);
  return it != settings.end() ? it->second.where : SourceLocation{};
}

std::string formatOptionValue(const OptionValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(x);
        } else if constexpr (std::is_same_v<T, double>) {
          return fmt::format("{}", x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return quoted(x);
        } else {
          std::vector<std::string> parts;
          for (const auto& s : x) parts.push_back(quoted(s));
          return fmt::format("[{}]", fmt::join(parts, ", "));
        }
      },
      v);
}

std::string withArticle(std::string_view noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return std::string(vowel ? "an " : "a ") + std::string(noun);
}

std::string describeOptionSpecs(const std::vector<OptionSpec>& specs) {
  if (specs.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& s : specs) parts.push_back(fmt::format("{} ({})", s.name, toString(s.type)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::map<std::string, OptionValue> resolveOptions(const std::vector<OptionSpec>& specs,
                                                  const OptionSettings& given,
                                                  std::string_view owner) {
  std::map<std::string, OptionValue> values;
  for (const auto& s : specs) values[s.name] = s.default_value;
  for (const auto& [name, setting] : given) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      if (specs.empty())
        throw UserError(setting.where, fmt::format("unknown option '{}': {} takes no options",
                                                   displayText(name), owner));
      throw UserError(setting.where,
                      fmt::format("unknown option '{}' for {}; valid options: {}",
                                  displayText(name), owner, describeOptionSpecs(specs)));
    }
    OptionType have = typeOf(setting.value);
    if (have == spec->type) {
      values[name] = setting.value;
    } else if (have == OptionType::Int && spec->type == OptionType::Double) {
      values[name] = static_cast<double>(std::get<int64_t>(setting.value));
    } else if (have == OptionType::String && spec->type == OptionType::StringList) {
      values[name] = std::vector<std::string>{std::get<std::string>(setting.value)};
    } else {
      throw UserError(setting.where,
                      fmt::format("option '{}' of {} expects {}, got {} ({})", name, owner,
                                  withArticle(toString(spec->type)), withArticle(toString(have)),
                                  displayText(formatOptionValue(setting.value))));
    }
  }
  return values;
}

}  // namespace fusebox
