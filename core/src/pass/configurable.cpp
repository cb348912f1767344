#include <fusebox/configurable.h>
#include <fusebox/error.h>

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

}  // namespace fusebox
