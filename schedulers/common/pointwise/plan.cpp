// Run-time check and kernel plan shared by pointwise schedulers (plan.h).
#include "pointwise/plan.h"

#include <fmt/format.h>

#include "kernelgen/plan_outputs.h"
#include "pointwise/codegen.h"

namespace fusebox::pointwise {

SegmentAnalysis analyzeSegment(const Fusion& segment, RuntimeInfo& info) {
  SegmentAnalysis a;
  a.facts = computeFacts(segment, info);
  a.accesses = collectAccesses(segment, a.facts, info);
  return a;
}

Decision checkRunTime(const Fusion& segment, RuntimeInfo& info, const SegmentFacts& facts,
                      const PointwiseParams& p) {
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
  if (const std::string problem = uncheckedIndicesProblem(segment, info); !problem.empty())
    return Decision::reject(problem);
  // 64-bit indexing covers any tensor that fits in memory; the grid must fit
  // CUDA's limits.
  if (p.grid[0] == 0 || p.grid[1] > 65535)
    return Decision::reject(
        fmt::format("{} elements need a grid beyond CUDA's limits", facts.numel));
  if (facts.numel / std::max(1, p.vector_width * p.unroll) / p.threads >= (int64_t{1} << 31) - 1)
    return Decision::reject(fmt::format("{} elements need more than 2^31 - 1 blocks", facts.numel));
  // A kernel over symbolic sizes takes them as parameters: they must fit too.
  if (p.shape_mode == ShapeMode::Symbolic)
    if (std::string problem = kernelParamProblem(segment, facts, p, info); !problem.empty())
      return Decision::reject(problem);
  return Decision::accept();
}

std::unique_ptr<KernelPlan> makeKernelPlan(const Fusion& segment, const SegmentFacts& facts,
                                           const PointwiseParams& p, RuntimeInfo& info) {
  GeneratedKernel gen = generateKernel(segment, facts, p, info);
  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = std::move(gen.source);
  plan->bindings = std::move(gen.bindings);
  plan->index_checks = std::move(gen.index_checks);
  plan->kernel_ir = std::move(gen.kernel_ir);
  plan->launch.grid = p.grid;
  plan->launch.block = {static_cast<uint32_t>(p.threads), 1, 1};
  kernelgen::describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
  for (const InPlaceRequest& r : p.in_place)
    plan->outputs[r.output].in_place_of_input = static_cast<int>(r.input);
  return plan;
}

}  // namespace fusebox::pointwise
