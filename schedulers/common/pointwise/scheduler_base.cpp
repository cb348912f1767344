// The shared Scheduler side of pointwise schedulers (scheduler_base.h).
#include "pointwise/scheduler_base.h"

#include <fmt/format.h>

namespace fusebox::pointwise {

Answer PointwiseSchedulerBase::propose(const Fusion& segment, RuntimeInfo& info,
                                       CompileTimeCache& cache) {
  const Decision structure =
      cache.get<Decision>(name() + ".compile_time", [&] { return checkCompileTime(segment); });
  if (!structure) return Refusal::ofStructure(structure);
  auto a = std::make_shared<SegmentAnalysis>();
  try {
    *a = analyzeSegment(segment, info);
  } catch (const UserError& e) {
    return Refusal::ofInputs(fmt::format("the inputs do not fit the segment: {}", e.what()));
  }
  PointwiseParams p = chooseParams(*a, info);
  p.in_place = inPlaceWrites(segment, info, a->facts);
  // Vector stores go where the input is: aligned as its loads are.
  std::erase_if(p.in_place, [&](const InPlaceRequest& r) {
    const auto& arg = std::get<TensorArgInfo>(info.inputs()[r.input]);
    return arg.alignment < p.vector_width * static_cast<int64_t>(dataTypeSize(arg.dtype));
  });
  setShapeMode(p, segment, info, a->facts, a->accesses);
  if (Decision d = checkRunTime(segment, info, a->facts, p); !d) return Refusal::ofInputs(d);
  return std::make_unique<LazyProposal>(
      [p] { return std::make_unique<PointwiseParams>(p); },
      [&segment, a, info](const HeuristicParams& params) mutable -> std::unique_ptr<SegmentPlan> {
        return makeKernelPlan(segment, a->facts, dynamic_cast<const PointwiseParams&>(params),
                              info);
      });
}

}  // namespace fusebox::pointwise
