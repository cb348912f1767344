#include <fusebox/pass.h>

#include <fmt/format.h>

namespace fusebox {

// Out of line: Pass's vtable and type information live in libfusebox_core.
Pass::~Pass() = default;

void Pass::configure(const OptionSettings& settings) {
  values_ = resolveOptions(options(), settings, fmt::format("pass '{}'", name()));
  resolved_ = true;
}

const OptionValue& Pass::optionValue(const std::string& option_name) const {
  if (!resolved_) {
    values_ = resolveOptions(options(), {}, fmt::format("pass '{}'", name()));
    resolved_ = true;
  }
  auto it = values_.find(option_name);
  FUSEBOX_CHECK(it != values_.end(), "pass '{}' has no option '{}'", name(), option_name);
  return it->second;
}

}  // namespace fusebox
