// Typed option values shared by pass options ([passes.<name>] tables) and the
// global [dump] / [runtime] options: what an option accepts, what a user gave
// and where, and the check that turns one into the other.
#pragma once

#include <fusebox/error.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fusebox {

enum class OptionType { Bool, Int, Double, String, StringList };
// "bool", "integer", "float", "string", "array of strings" (TOML's words).
std::string_view toString(OptionType t);

using OptionValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;
OptionType typeOf(const OptionValue& v);
// As TOML writes it: true, 3, 0.5, "text", ["a", "b"].
std::string formatOptionValue(const OptionValue& v);

// One option an owner (a pass, the [dump] table) accepts.
struct OptionSpec {
  std::string name;
  OptionType type;
  OptionValue default_value;
  std::string description;
};

// A value a user gave, and where: a config file's file:line:col, or a
// SourceLocation whose file is "FUSEBOX_DUMP" / "--print-after" and line 0.
struct OptionSetting {
  OptionValue value;
  SourceLocation where;
};
using OptionSettings = std::map<std::string, OptionSetting>;

// Where option `name` was given (a config's file:line:col, "--set:1:col"),
// or an empty location when it was not (its default is in use): where an
// error about the option's value points.
SourceLocation whereSet(const OptionSettings& settings, const std::string& name);

// Checks `given` against `specs` and returns every option's value (defaults
// filled in). An integer is accepted for a float option, a string for an
// array of strings (a list of one). Unknown names and
// wrong types throw UserError at the setting's location naming `owner`
// ("pass 'remove_bcast_squeeze'", "[dump]") and listing the valid options.
std::map<std::string, OptionValue> resolveOptions(const std::vector<OptionSpec>& specs,
                                                  const OptionSettings& given,
                                                  std::string_view owner);

// "a bool", "an integer": a noun with its article, for messages.
std::string withArticle(std::string_view noun);

// "a (bool), b (integer)" or "none" for messages.
std::string describeOptionSpecs(const std::vector<OptionSpec>& specs);

}  // namespace fusebox
