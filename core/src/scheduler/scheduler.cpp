#include <fusebox/scheduler.h>

#include <fmt/format.h>

namespace fusebox {

HeuristicParams::~HeuristicParams() = default;
SegmentPlan::~SegmentPlan() = default;
Scheduler::~Scheduler() = default;

void Scheduler::configure(const OptionSettings& settings) {
  values_ = resolveOptions(options(), settings, fmt::format("scheduler '{}'", name()));
  resolved_ = true;
}

const OptionValue& Scheduler::optionValue(const std::string& option_name) const {
  if (!resolved_) {
    values_ = resolveOptions(options(), {}, fmt::format("scheduler '{}'", name()));
    resolved_ = true;
  }
  auto it = values_.find(option_name);
  FUSEBOX_CHECK(it != values_.end(), "scheduler '{}' has no option '{}'", name(), option_name);
  return it->second;
}

}  // namespace fusebox
