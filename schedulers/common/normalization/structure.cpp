// Compile-time analysis shared by the persistent schedulers (structure.h).
#include "normalization/structure.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "reduction/accumulator.h"
#include "reduction/segment_checks.h"

namespace fusebox::normalization {

using reduction::isReductionExpr;
using reduction::reducedAxes;

const char* toString(ReductionType t) {
  switch (t) {
    case ReductionType::Inner:
      return "inner";
    case ReductionType::Outer:
      return "outer";
    case ReductionType::InnerOuter:
      return "inner-outer";
  }
  return "?";
}

const char* ownerOf(ReductionType t) {
  switch (t) {
    case ReductionType::Inner:
      return "inner_persistent";
    case ReductionType::Outer:
      return "outer_persistent";
    case ReductionType::InnerOuter:
      return "inner_outer_persistent";
  }
  return "?";
}

std::vector<const Expr*> NormalizationStructure::reductionsOf(ReductionType t) const {
  std::vector<const Expr*> out;
  for (size_t k = 0; k < reductions.size(); ++k)
    if (types[k] == t) out.push_back(reductions[k]);
  return out;
}

namespace {

// Ops that compute a reduced-domain tensor from reduced-domain tensors alone
// (each kept element from its own reduced values).
bool keepsTheReducedDomain(OpType op) {
  return isElementwise(op) || op == OpType::Broadcast || op == OpType::Squeeze ||
         op == OpType::Reshape;
}

ReductionType typeOf(const Expr* r) {
  const int64_t rank = r->input(0)->as<TensorView>()->nDims();
  const auto& axes = reducedAxes(r);
  const bool fastest_reduced =
      rank > 0 && std::find(axes.begin(), axes.end(), rank - 1) != axes.end();
  return fastest_reduced ? ReductionType::Inner : ReductionType::Outer;
}

}  // namespace

Decision analyzeCompileTime(const Fusion& segment, ReductionType mine,
                            NormalizationStructure& out) {
  out = NormalizationStructure{};
  if (Decision d = reduction::collectReductions(segment, ownerOf(mine), out.reductions); !d)
    return d;
  const std::vector<Expr*> exprs = segment.exprs();
  for (const Expr* r : out.reductions) out.types.push_back(typeOf(r));
  const bool inner = std::count(out.types.begin(), out.types.end(), ReductionType::Inner) > 0;
  const bool outer = std::count(out.types.begin(), out.types.end(), ReductionType::Outer) > 0;
  out.type = inner && outer ? ReductionType::InnerOuter
                            : (inner ? ReductionType::Inner : ReductionType::Outer);
  if (out.type != mine)
    return Decision::reject(fmt::format("the reduction type is {}, not {}: the {} scheduler's job",
                                        toString(out.type), toString(mine), ownerOf(out.type)));

  // Stages: a tensor's level is the number of reductions on its longest path
  // from the inputs; a reduction accumulates at its input's level.
  std::unordered_map<const Val*, int> level;
  auto levelOf = [&](const Val* v) {
    auto it = level.find(v);
    return it == level.end() ? 0 : it->second;
  };
  for (const Expr* e : exprs) {
    int l = 0;
    for (const Val* in : e->inputs()) l = std::max(l, levelOf(in));
    if (isReductionExpr(e)) {
      out.stage.push_back(l);
      out.stages = std::max(out.stages, l + 1);
      ++l;
    }
    for (const Val* o : e->outputs()) level[o] = l;
    // The reduced domain: reduction outputs, and what keeps it.
    bool reduced = isReductionExpr(e);
    if (!reduced && keepsTheReducedDomain(e->op())) {
      bool any_tensor = false;
      reduced = true;
      for (const Val* in : e->inputs()) {
        if (!in->isTensor()) continue;
        any_tensor = true;
        reduced &= out.reduced_domain.count(in->as<TensorView>()) > 0;
      }
      reduced &= any_tensor;
    }
    if (reduced) {
      for (const Val* o : e->outputs())
        if (o->isTensor()) out.reduced_domain.insert(o->as<TensorView>());
    } else if (l > 0 && out.persistent_witness == nullptr && !e->outputs().empty() &&
               e->output(0)->isTensor()) {
      out.persistent_witness = e->output(0)->as<TensorView>();
    }
  }
  for (size_t k = 0; k < out.reductions.size(); ++k) {
    const auto* in = out.reductions[k]->input(0)->as<TensorView>();
    if (out.reduced_domain.count(in) > 0)
      return Decision::reject(fmt::format(
          "{} (expr {}) reduces {}, a reduced value; reductions of reductions need separate "
          "kernels",
          out.reductions[k]->opName(), out.reductions[k]->name(), in->toString()));
  }
  if (out.persistent_witness == nullptr)
    return Decision::reject(
        "no value of the reduction domain is computed from a reduced one, so nothing must stay "
        "on chip: a plain reduction (the reduction scheduler's job)");
  for (ReductionType t : {ReductionType::Inner, ReductionType::Outer})
    if (Decision d = reduction::sameReducedAxes(
            out.reductionsOf(t), "one persistent kernel reduces one structure per reduction type");
        !d)
      return d;
  for (const Val* o : segment.outputs()) {
    const auto* tv = o->as<TensorView>();
    (out.reduced_domain.count(tv) > 0 ? out.reduced_outputs : out.full_outputs).push_back(tv);
  }
  if (Decision d = reduction::kernelLimits(segment); !d) return d;
  return Decision::accept();
}

}  // namespace fusebox::normalization
