// Shared by the pointwise suites (host backend here, cuda in pointwise_gpu):
// the shared scheduler driver (support/scheduler_run.h) with the pointwise
// plugin.
#pragma once

#include "support/row_major_fill.h"
#include "support/scheduler_run.h"

namespace fusebox::test {

inline std::shared_ptr<Scheduler> pointwiseScheduler() {
  return builtinScheduler("pointwise");
}

using PointwiseRun = SchedulerRun;

inline PointwiseRun runPointwise(Backend& backend, const Fusion& fusion,
                                 const std::vector<Argument>& inputs,
                                 const DeviceProperties& device = {}) {
  return runScheduler(*pointwiseScheduler(), backend, fusion, inputs, device);
}

// Runs on the backend and compares every output with evaluateFusion (the
// tolerance model's bounds; the layout the fusion asks for).
inline PointwiseRun expectMatchesEvaluator(Backend& backend, const Fusion& fusion,
                                           const std::vector<Argument>& inputs,
                                           const DeviceProperties& device = {},
                                           ShapeMode shape_mode = casesShapeMode()) {
  return expectSchedulerMatchesEvaluator(*pointwiseScheduler(), backend, fusion, inputs, device,
                                         shape_mode);
}

}  // namespace fusebox::test
