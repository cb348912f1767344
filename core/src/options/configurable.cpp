#include <fusebox/configurable.h>
#include <fusebox/error.h>

#include <fmt/format.h>

namespace fusebox {

Configurable::~Configurable() = default;

void Configurable::configure(const OptionSettings& settings) {
  values_ = resolveOptions(options(), settings, describeSelf());
  resolved_ = true;
}

const OptionValue& Configurable::optionValue(const std::string& option_name) const {
  if (!resolved_) {
    values_ = resolveOptions(options(), {}, describeSelf());
    resolved_ = true;
  }
  auto it = values_.find(option_name);
  FUSEBOX_CHECK(it != values_.end(), "{} has no option '{}'", describeSelf(), option_name);
  return it->second;
}

void Configurable::requireIntInRange(const OptionSettings& settings, const std::string& name,
                                     int64_t lo, int64_t hi, const std::string& note) const {
  const int64_t v = option<int64_t>(name);
  if (v >= lo && v <= hi) return;
  throw UserError(whereSet(settings, name),
                  fmt::format("{}: option '{}' must be in [{}, {}]{}, got {}", describeSelf(), name,
                              lo, hi, note, v));
}

void Configurable::requireOneOf(const OptionSettings& settings, const std::string& name,
                                const std::vector<std::string>& choices) const {
  const std::string& v = option<std::string>(name);
  std::string listed;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == v) return;
    listed += fmt::format("{}\"{}\"",
                          i == 0                    ? ""
                          : i + 1 == choices.size() ? " or "
                                                    : ", ",
                          choices[i]);
  }
  throw UserError(whereSet(settings, name), fmt::format("{}: option '{}' must be {}, got \"{}\"",
                                                        describeSelf(), name, listed, v));
}

}  // namespace fusebox
