// The tolerance model (fusebox/eval/tolerance.h): which outputs are exact,
// which get the base tolerance, and the bounds of those after a reduction.
#include <fusebox/eval/tolerance.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "eval/error_bounds.h"

namespace fusebox {

Tolerance toleranceFor(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
      return {4e-3, 4e-3};
    case DataType::BFloat16:
      return {3.2e-2, 3.2e-2};
    case DataType::Float:
      return {2e-5, 2e-5};
    case DataType::Double:
      return {1e-12, 1e-12};
    default:
      return {};
  }
}

double unitRoundoff(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
      return 0x1p-11;
    case DataType::BFloat16:
      return 0x1p-8;
    case DataType::Float:
      return 0x1p-24;
    case DataType::Double:
      return 0x1p-53;
    default:
      return 0.0;
  }
}

double OutputTolerance::allowed(int64_t linear, double expected) const {
  if (mode == Mode::Exact) return 0.0;
  const double base_allowed =
      std::isfinite(expected) ? base.atol + base.rtol * std::fabs(expected) : 0.0;
  if (mode == Mode::Base || !bound.defined()) return base_allowed;
  return std::max(base_allowed, static_cast<const double*>(bound.data())[linear]);
}

std::string OutputTolerance::describe() const {
  if (mode == Mode::Exact) return "bit for bit";
  if (!isFloatingType(dtype) && !bound.defined()) return "exact";
  std::string s = isFloatingType(dtype)
                      ? fmt::format("atol {:.3g}, rtol {:.3g}", base.atol, base.rtol)
                      : "exact";
  if (mode != Mode::Bounded) return s;
  double largest = 0;
  int64_t unbounded = 0;
  if (bound.defined()) {
    const auto* b = static_cast<const double*>(bound.data());
    for (int64_t i = 0; i < bound.numel(); ++i) {
      if (std::isfinite(b[i]))
        largest = std::max(largest, b[i]);
      else
        ++unbounded;
    }
  }
  s += fmt::format(" or the rounding of {}-term reductions, up to {:.3g}", reduction_size, largest);
  if (unbounded > 0)
    s += fmt::format("; {} element{} unbounded", unbounded, unbounded == 1 ? "" : "s");
  return s;
}

namespace {

// What an output is computed from.
struct Lineage {
  bool movement_only = true;  // nothing but data movement since the inputs
  bool reduces = false;       // some reduction or contraction on the way
  int64_t terms = 1;          // the most terms one of them combines
};

bool isMovement(OpType op) {
  switch (op) {
    case OpType::Set:
    case OpType::SegmentSet:
    case OpType::Broadcast:
    case OpType::Squeeze:
    case OpType::Expand:
    case OpType::Reshape:
    case OpType::Permute:
    case OpType::Slice:
    case OpType::Pad:
    case OpType::Cat:
    case OpType::Argsort:  // positions of values, and values picked, unchanged
    case OpType::TopK:
      return true;
    default:
      return isIndexingOp(op);  // values picked at indices, unchanged
  }
}

// Terms one evaluation of `e` combines: the product of its reduced extents, or
// K of a contraction; 0 when `e` is no reduction.
int64_t termsOf(const Expr* e, ExpressionEvaluator& ee) {
  auto extent = [&](const IterDomain* id) -> int64_t {
    auto v = ee.evaluate(id->logicalExtent());
    return v ? std::max<int64_t>(toInt(*v), 1) : 1;
  };
  switch (e->op()) {
    case OpType::Reduction:
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford: {
      int64_t n = 1;
      for (const IterDomain* id : e->output(0)->as<TensorView>()->logical())
        if (id->isReduction()) n *= extent(id);
      return n;
    }
    case OpType::Matmul:
    case OpType::Linear: {
      const auto dims = e->input(0)->as<TensorView>()->logicalNoReductions();
      return dims.empty() ? 1 : extent(dims.back());
    }
    case OpType::Scan:  // its last element reduces the whole line
      return extent(e->input(0)->as<TensorView>()->axis(e->attr<ScanAttr>().dim));
    default:
      return 0;
  }
}

}  // namespace

std::vector<OutputTolerance> outputTolerances(const Fusion& fusion,
                                              const std::vector<Argument>& inputs) {
  ExpressionEvaluator ee;
  eval_detail::bindInputs(fusion, inputs, {}, ee);

  // Lineage of every tensor, in topological order (no recursion: chains may
  // be deep).
  std::unordered_map<const Val*, Lineage> lineage;
  for (const Expr* e : fusion.tensorExprs()) {
    Lineage l;
    l.movement_only = isMovement(e->op());
    const int64_t own = termsOf(e, ee);
    l.reduces = own > 0;
    l.terms = std::max<int64_t>(own, 1);
    for (const Val* in : e->inputs()) {
      if (!in->isTensor()) continue;
      const Lineage& from = lineage[in];  // fusion inputs: the default
      l.movement_only = l.movement_only && from.movement_only;
      l.reduces = l.reduces || from.reduces;
      l.terms = std::max(l.terms, from.terms);
    }
    for (const Val* out : e->outputs()) lineage[out] = l;
  }

  std::vector<OutputTolerance> result;
  std::vector<bool> bounded;
  for (const Val* out : fusion.outputs()) {
    OutputTolerance t;
    t.dtype = out->dtype();
    t.base = toleranceFor(t.dtype);
    if (out->isTensor()) {
      const Lineage& l = lineage[out];
      t.reduction_size = l.terms;
      if (l.reduces)
        t.mode = OutputTolerance::Mode::Bounded;
      else if (l.movement_only)
        t.mode = OutputTolerance::Mode::Exact;
    }
    bounded.push_back(t.mode == OutputTolerance::Mode::Bounded);
    result.push_back(std::move(t));
  }
  if (std::find(bounded.begin(), bounded.end(), true) == bounded.end()) return result;
  std::vector<Tensor> bounds = eval_detail::outputErrorBounds(fusion, inputs, bounded);
  for (size_t k = 0; k < result.size(); ++k) result[k].bound = std::move(bounds[k]);
  return result;
}

}  // namespace fusebox
