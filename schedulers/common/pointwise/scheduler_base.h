// The Scheduler side every pointwise scheduler shares: the compile-time
// check (cached), the run-time check of the params it would choose, and the
// plan. A pointwise scheduler derives from it and says only how it chooses
// its params (the built-in `pointwise`, plugins/pointwise_waves).
#pragma once

#include <fusebox/scheduler.h>

#include <memory>

#include "plan.h"

namespace fusebox::pointwise {

class PointwiseSchedulerBase : public Scheduler {
 public:
  Decision canScheduleCompileTime(const Fusion& segment, CompileTimeCache& cache) override;
  Decision canScheduleRunTime(const Fusion& segment, RuntimeInfo& info,
                              CompileTimeCache& cache) override;
  std::unique_ptr<HeuristicParams> computeHeuristics(const Fusion& segment, RuntimeInfo& info,
                                                     CompileTimeCache& cache) override;
  std::unique_ptr<SegmentPlan> schedule(const Fusion& segment, const HeuristicParams& params,
                                        RuntimeInfo& info) override;

 protected:
  // The params for a segment whose facts and accesses are `a` (the shape mode
  // is set after: setShapeMode).
  virtual PointwiseParams chooseParams(const SegmentAnalysis& a, RuntimeInfo& info) const = 0;

 private:
  PointwiseParams paramsFor(const Fusion& segment, const SegmentAnalysis& a,
                            RuntimeInfo& info) const;
};

}  // namespace fusebox::pointwise
