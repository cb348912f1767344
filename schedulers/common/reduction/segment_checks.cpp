// The checks every reducing segment passes alike (segment_checks.h).
#include "reduction/segment_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernelgen/kernel_params.h"
#include "kernelgen/op_support.h"
#include "reduction/accumulator.h"

namespace fusebox::reduction {

Decision collectReductions(const Fusion& segment, const std::string& who,
                           std::vector<const Expr*>& reductions,
                           kernelgen::IndirectLoads indirect) {
  reductions.clear();
  for (const Val* o : segment.outputs()) {
    if (!o->isTensor())
      return Decision::reject(fmt::format("output {} is a scalar", o->toString()));
    if (segment.aliasedInput(o) != nullptr)
      return Decision::reject(fmt::format(
          "output {} aliases an input (written in place); the {} scheduler allocates fresh "
          "outputs",
          o->toString(), who));
  }
  for (const Expr* e : segment.exprs()) {
    if (std::string problem = kernelgen::unsupportedOpProblem(e, indirect); !problem.empty())
      return Decision::reject(problem);
    if (e->op() == OpType::Matmul || e->op() == OpType::Linear)
      return Decision::reject(
          fmt::format("{} (expr {}) is a matmul; the {} scheduler does not schedule matmuls",
                      e->opName(), e->name(), who));
    if (isReductionExpr(e)) reductions.push_back(e);
  }
  if (reductions.empty())
    return Decision::reject("the segment has no reduction (the pointwise scheduler's job)");
  return Decision::accept();
}

Decision sameReducedAxes(const std::vector<const Expr*>& reds, const std::string& rule) {
  if (reds.empty()) return Decision::accept();
  const Expr* first = reds.front();
  const int64_t rank = first->input(0)->as<TensorView>()->nDims();
  for (const Expr* r : reds) {
    const int64_t rr = r->input(0)->as<TensorView>()->nDims();
    if (rr != rank || reducedAxes(r) != reducedAxes(first))
      return Decision::reject(fmt::format(
          "{} (expr {}) reduces axes {} of a rank-{} input, {} (expr {}) axes {} of a rank-{} "
          "input; {}",
          r->opName(), r->name(), reducedAxes(r), rr, first->opName(), first->name(),
          reducedAxes(first), rank, rule));
  }
  return Decision::accept();
}

Decision kernelLimits(const Fusion& segment) {
  if (std::string problem = kernelgen::kernelSizeProblem(segment); !problem.empty())
    return Decision::reject(problem);
  // One pointer more at run time when the reduction is split across blocks.
  if (std::string problem = kernelgen::paramLimitProblem(segment); !problem.empty())
    return Decision::reject(problem);
  return Decision::accept();
}

}  // namespace fusebox::reduction
