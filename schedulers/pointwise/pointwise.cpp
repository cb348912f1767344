// pointwise: segments of elementwise and data-movement ops become one
// generated CUDA kernel (the same source runs on the cuda and host backends).
// See docs/schedulers/pointwise.md.
#include <fusebox/checked_math.h>
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "analysis.h"
#include "codegen.h"
#include "heuristics.h"
#include "kernelgen/plan_outputs.h"

namespace {

using namespace fusebox;
using namespace fusebox::pointwise;

class PointwiseScheduler final : public Scheduler {
 public:
  std::string name() const override { return "pointwise"; }

  Decision canScheduleCompileTime(const Fusion& segment, CompileTimeCache& cache) override {
    return cache.get<Decision>("pointwise.compile_time", [&] { return checkCompileTime(segment); });
  }

  Decision canScheduleRunTime(const Fusion& segment, RuntimeInfo& info,
                              CompileTimeCache& cache) override {
    if (Decision d = canScheduleCompileTime(segment, cache); !d) return d;
    SegmentFacts facts;
    try {
      facts = computeFacts(segment, info);
    } catch (const UserError& e) {
      return Decision::reject(fmt::format("the inputs do not fit the segment: {}", e.what()));
    }
    const auto* ref =
        segment.outputs()[static_cast<size_t>(facts.reference_output)]->as<TensorView>();
    for (const Val* out : segment.outputs()) {
      const int64_t n = product(facts.sizes.at(out->as<TensorView>()));
      if (n != facts.numel)
        return Decision::reject(fmt::format(
            "output {} has {} elements but the reference output {} has {}; one kernel maps "
            "every output element to one iteration element",
            out->toString(), n, ref->toString(), facts.numel));
    }
    if (const std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
      return Decision::reject(problem);
    // 64-bit indexing covers any tensor that fits in memory; the grid must fit
    // CUDA's limits (x < 2^31, y < 2^16).
    const PointwiseParams p =
        computePointwiseParams(facts, collectAccesses(segment, facts, info), info.device());
    if (p.grid[0] == 0 || p.grid[1] > 65535)
      return Decision::reject(
          fmt::format("{} elements need a grid beyond CUDA's limits", facts.numel));
    if (facts.numel / std::max(1, p.vector_width * p.unroll) / p.threads >= (int64_t{1} << 31) - 1)
      return Decision::reject(
          fmt::format("{} elements need more than 2^31 - 1 blocks", facts.numel));
    return Decision::accept();
  }

  std::unique_ptr<HeuristicParams> computeHeuristics(const Fusion& segment, RuntimeInfo& info,
                                                     CompileTimeCache&) override {
    const SegmentFacts facts = computeFacts(segment, info);
    return std::make_unique<PointwiseParams>(
        computePointwiseParams(facts, collectAccesses(segment, facts, info), info.device()));
  }

  std::unique_ptr<SegmentPlan> schedule(const Fusion& segment, const HeuristicParams& params,
                                        RuntimeInfo& info) override {
    const auto* p = dynamic_cast<const PointwiseParams*>(&params);
    FUSEBOX_CHECK(p != nullptr, "pointwise: schedule() got another scheduler's params");
    const SegmentFacts facts = computeFacts(segment, info);
    GeneratedKernel gen = generateKernel(segment, facts, *p, info);
    auto plan = std::make_unique<KernelPlan>();
    plan->kernel = std::move(gen.source);
    plan->bindings = std::move(gen.bindings);
    plan->launch.grid = p->grid;
    plan->launch.block = {static_cast<uint32_t>(p->threads), 1, 1};
    kernelgen::describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
    return plan;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(PointwiseScheduler, "pointwise", "1.0",
                                 "elementwise and data-movement segments as one generated "
                                 "kernel: merged dims, 16-byte vector accesses, 2-D schedule "
                                 "for broadcasts")
