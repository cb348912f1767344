// transpose: elementwise and data-movement segments whose inputs and outputs
// run along different dims (`a + b.T`, a channels-last input to a contiguous
// output, a transposed output order) as one tiled kernel: the transposed
// inputs go through a shared-memory tile so that both their reads and the
// outputs' writes are coalesced. Segments without such an input, or with
// small extents, are left to pointwise. A thin folder over the pointwise
// analysis (schedulers/common/pointwise) and the kernel IR; see
// docs/schedulers/transpose.md.
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "kernelgen/kernel_params.h"
#include "pointwise/plan.h"
#include "tile_kernel.h"
#include "tile_layout.h"

namespace {

using namespace fusebox;

Decision checkStructure(const Fusion& segment) {
  if (Decision d = pointwise::checkCompileTime(segment); !d) return d;
  for (const Expr* e : segment.exprs())
    if (isIndexingOp(e->op()) || e->op() == OpType::Rand || e->op() == OpType::Iota)
      return Decision::reject(fmt::format(
          "{} (expr {}) reads by run-time indices or element positions; pointwise schedules it",
          e->opName(), e->name()));
  return Decision::accept();
}

class TransposeScheduler final : public Scheduler {
 public:
  std::string name() const override { return "transpose"; }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const Decision structure =
        cache.get<Decision>("transpose.compile_time", [&] { return checkStructure(segment); });
    if (!structure) return Refusal::ofStructure(structure);
    auto a = std::make_shared<pointwise::SegmentAnalysis>();
    try {
      *a = pointwise::analyzeSegment(segment, info);
    } catch (const UserError& e) {
      return Refusal::ofInputs(fmt::format("the inputs do not fit the segment: {}", e.what()));
    }
    if (a->facts.numel == 0) return Refusal::ofInputs("no elements: nothing to transpose");
    transpose::Layout layout = transpose::chooseLayout(a->facts, a->accesses, segment);
    if (!layout.problem.empty()) return Refusal::ofInputs(layout.problem);
    if (std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
      return Refusal::ofInputs(problem);
    if (std::string problem = kernelgen::paramLimitProblem(segment); !problem.empty())
      return Refusal::ofInputs(problem);
    const transpose::TransposeParams p = layout.params;
    return std::make_unique<LazyProposal>(
        [p] { return std::make_unique<transpose::TransposeParams>(p); },
        [&segment, a, info](const HeuristicParams& params) mutable -> std::unique_ptr<SegmentPlan> {
          return transpose::makeTilePlan(
              segment, a->facts, dynamic_cast<const transpose::TransposeParams&>(params), info);
        });
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(TransposeScheduler, "transpose", "1.0",
                                 "elementwise segments whose inputs and outputs run along "
                                 "different dims, through a shared-memory tile (coalesced reads "
                                 "and writes); others are left to pointwise")
