// Compile-time acceptance of the reduction scheduler (structure.h).
#include "structure.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reduction/accumulator.h"
#include "reduction/segment_checks.h"

namespace fusebox::reduction {

namespace {

// Tensors a reduction input is computed from (the inputs themselves included).
std::unordered_set<const TensorView*> reductionAncestors(const std::vector<const Expr*>& reds) {
  std::unordered_set<const TensorView*> seen;
  std::vector<const Val*> stack;
  for (const Expr* r : reds) stack.push_back(r->input(0));
  while (!stack.empty()) {
    const Val* v = stack.back();
    stack.pop_back();
    if (!v->isTensor() || !seen.insert(v->as<TensorView>()).second) continue;
    if (const Expr* def = v->definition())
      for (const Val* in : def->inputs()) stack.push_back(in);
  }
  return seen;
}

}  // namespace

Decision analyzeStructure(const Fusion& segment, ReductionStructure& out) {
  out = ReductionStructure{};
  if (Decision d = collectReductions(segment, "reduction", out.reductions,
                                     kernelgen::IndirectLoads::Supported);
      !d)
    return d;
  const std::vector<Expr*> exprs = segment.exprs();

  // The epilogue: everything computed from a reduction's output.
  for (const Expr* e : exprs) {
    bool downstream = isReductionExpr(e);
    for (const Val* in : e->inputs())
      downstream |= in->isTensor() && out.after.count(in->as<TensorView>()) > 0;
    if (!downstream) continue;
    if (isReductionExpr(e) && out.after.count(e->input(0)->as<TensorView>()) > 0)
      return Decision::reject(fmt::format(
          "{} (expr {}) reduces a reduced value; reductions in sequence need separate kernels",
          e->opName(), e->name()));
    for (const Val* o : e->outputs())
      if (o->isTensor()) out.after.insert(o->as<TensorView>());
  }

  if (Decision d =
          sameReducedAxes(out.reductions, "one kernel reduces one iteration/reduction structure");
      !d)
    return d;
  const Expr* first = out.reductions.front();
  out.rank = first->input(0)->as<TensorView>()->nDims();
  out.axes = reducedAxes(first);

  // A reduced value combined with a value of the unreduced domain that the
  // reductions also read needs that value kept on chip until the reduction
  // ends: a persistent buffer.
  const auto before = reductionAncestors(out.reductions);
  for (const Expr* e : exprs) {
    if (isReductionExpr(e) || e->outputs().empty() || !e->output(0)->isTensor() ||
        out.after.count(e->output(0)->as<TensorView>()) == 0)
      continue;
    for (const Val* in : e->inputs()) {
      if (!in->isTensor()) continue;
      const auto* tv = in->as<TensorView>();
      if (before.count(tv) > 0 && !tv->isFusionInput())
        return Decision::reject(fmt::format(
            "{} (expr {}) combines a reduced value with {}, which the reduction reads: that "
            "needs a persistent buffer (the persistent schedulers' job)",
            e->opName(), e->name(), tv->toString()));
    }
    switch (e->op()) {
      case OpType::Unary:
      case OpType::Binary:
      case OpType::Ternary:
      case OpType::Cast:
      case OpType::Set:
      case OpType::SegmentSet:
      case OpType::Broadcast:
      case OpType::Squeeze:
      case OpType::Reshape:
        break;
      case OpType::Expand:
        return Decision::reject(fmt::format(
            "{} (expr {}) expands a reduced value back over the reduced dims: a normalization "
            "pattern (the persistent schedulers' job)",
            e->opName(), e->name()));
      default:
        // The epilogue computes each kept element from its own reduced value.
        return Decision::reject(fmt::format(
            "{} (expr {}) moves reduced elements; after a reduction one kernel runs only "
            "elementwise ops, casts, broadcasts, squeezes and reshapes",
            e->opName(), e->name()));
    }
  }

  for (const Val* o : segment.outputs()) {
    const auto* tv = o->as<TensorView>();
    (out.after.count(tv) > 0 ? out.reduced_outputs : out.loop_outputs).push_back(tv);
  }
  if (Decision d = kernelLimits(segment); !d) return d;
  return Decision::accept();
}

}  // namespace fusebox::reduction
