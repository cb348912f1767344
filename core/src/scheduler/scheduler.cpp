#include <fusebox/scheduler.h>

#include <fmt/format.h>

namespace fusebox {

// Out of line: the vtables and type information live in libfusebox_core.
HeuristicParams::~HeuristicParams() = default;
SegmentPlan::~SegmentPlan() = default;
Proposal::~Proposal() = default;
Scheduler::~Scheduler() = default;

std::string Scheduler::describeSelf() const { return fmt::format("scheduler '{}'", name()); }

}  // namespace fusebox
