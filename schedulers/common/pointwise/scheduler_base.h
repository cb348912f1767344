// The Scheduler side every pointwise scheduler shares: the compile-time
// check (cached), the run-time check of the params it would choose, and a
// proposal keeping the analysis, the params and the plan. A pointwise scheduler derives from it and
// says only how it chooses its params (the built-in `pointwise`, plugins/pointwise_waves).
#pragma once

#include <fusebox/scheduler.h>

#include <memory>

#include "pointwise/plan.h"

namespace fusebox::pointwise {

class PointwiseSchedulerBase : public Scheduler {
 public:
  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override;

 protected:
  // The params for a segment whose facts and accesses are `a` (the shape mode
  // is set after: setShapeMode).
  virtual PointwiseParams chooseParams(const SegmentAnalysis& a, RuntimeInfo& info) const = 0;
};

}  // namespace fusebox::pointwise
