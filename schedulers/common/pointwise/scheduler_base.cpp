// The shared Scheduler side of pointwise schedulers (scheduler_base.h).
#include "scheduler_base.h"

#include <fmt/format.h>

namespace fusebox::pointwise {

Decision PointwiseSchedulerBase::canScheduleCompileTime(const Fusion& segment,
                                                        CompileTimeCache& cache) {
  return cache.get<Decision>(name() + ".compile_time", [&] { return checkCompileTime(segment); });
}

Decision PointwiseSchedulerBase::canScheduleRunTime(const Fusion& segment, RuntimeInfo& info,
                                                    CompileTimeCache& cache) {
  if (Decision d = canScheduleCompileTime(segment, cache); !d) return d;
  SegmentAnalysis a;
  try {
    a = analyzeSegment(segment, info);
  } catch (const UserError& e) {
    return Decision::reject(fmt::format("the inputs do not fit the segment: {}", e.what()));
  }
  return checkRunTime(segment, info, a.facts, paramsFor(segment, a, info));
}

std::unique_ptr<HeuristicParams> PointwiseSchedulerBase::computeHeuristics(const Fusion& segment,
                                                                           RuntimeInfo& info,
                                                                           CompileTimeCache&) {
  return std::make_unique<PointwiseParams>(paramsFor(segment, analyzeSegment(segment, info), info));
}

PointwiseParams PointwiseSchedulerBase::paramsFor(const Fusion& segment, const SegmentAnalysis& a,
                                                  RuntimeInfo& info) const {
  PointwiseParams p = chooseParams(a, info);
  setShapeMode(p, segment, info, a.facts, a.accesses);
  return p;
}

std::unique_ptr<SegmentPlan> PointwiseSchedulerBase::schedule(const Fusion& segment,
                                                              const HeuristicParams& params,
                                                              RuntimeInfo& info) {
  const auto* p = dynamic_cast<const PointwiseParams*>(&params);
  FUSEBOX_CHECK(p != nullptr, "{}: schedule() got another scheduler's params", name());
  return makeKernelPlan(segment, computeFacts(segment, info), *p, info);
}

}  // namespace fusebox::pointwise
