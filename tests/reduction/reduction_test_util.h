// Shared by the reduction suites (host backend here, cuda in reduction_gpu):
// the reduction scheduler with its options, and a run that must produce one
// kernel matching the reference evaluator.
#pragma once

#include <fusebox/ir/ops.h>

#include "support/scheduler_run.h"

namespace fusebox::test {

// The reduction scheduler; grid_splits > 0 forces that many blocks per kept
// element (the grid-reduction path).
inline std::shared_ptr<Scheduler> reductionScheduler(int64_t grid_splits = 0) {
  auto s = builtinScheduler("reduction");
  OptionSettings settings;
  if (grid_splits > 0) settings["grid_splits"] = OptionSetting{OptionValue(grid_splits), {}};
  s->configure(settings);
  return s;
}

inline SchedulerRun expectReductionMatches(Backend& backend, const Fusion& fusion,
                                           const std::vector<Argument>& inputs,
                                           const DeviceProperties& device, int64_t grid_splits = 0,
                                           ShapeMode shape_mode = casesShapeMode()) {
  auto scheduler = reductionScheduler(grid_splits);
  SchedulerRun r =
      expectSchedulerMatchesEvaluator(*scheduler, backend, fusion, inputs, device, shape_mode);
  if (grid_splits > 0 && !r.params.empty()) {
    EXPECT_EQ(paramLine(r.params, "grid"),
              fmt::format("[{}, {}, 1]", r.plan.launch.grid[0], grid_splits));
  }
  return r;
}

}  // namespace fusebox::test
