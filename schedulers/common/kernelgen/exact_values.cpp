// exact_values.h: one forward walk over the segment's expressions.
#include "kernelgen/exact_values.h"

namespace fusebox::kernelgen {

namespace {

// Whether `e`'s output holds only numbers of `exact` (values exact in one
// type): ops whose result is one of their tensor operands, or its negation.
bool keepsExactness(const Expr* e, const std::unordered_set<const Val*>& exact) {
  auto all = [&](std::initializer_list<size_t> positions) {
    for (size_t k : positions)
      if (k >= e->inputs().size() || exact.count(e->input(k)) == 0) return false;
    return true;
  };
  switch (e->op()) {
    case OpType::Cast:
    case OpType::Set:
    case OpType::SegmentSet:
    case OpType::Broadcast:
    case OpType::Squeeze:
    case OpType::Expand:
    case OpType::Permute:
    case OpType::Reshape:
    case OpType::Slice:
      return all({0});
    case OpType::Unary: {
      const UnaryOpType u = e->attr<UnaryOpType>();
      return (u == UnaryOpType::Neg || u == UnaryOpType::Abs || u == UnaryOpType::Relu) && all({0});
    }
    case OpType::Binary: {
      const BinaryOpType b = e->attr<BinaryOpType>();
      return (b == BinaryOpType::Maximum || b == BinaryOpType::Minimum) && all({0, 1});
    }
    case OpType::Ternary:
      return e->attr<TernaryOpType>() == TernaryOpType::Where && all({1, 2});
    case OpType::Cat:
      for (const Val* in : e->inputs())
        if (in->isTensor() && exact.count(in) == 0) return false;
      return true;
    default:
      return false;
  }
}

}  // namespace

ExactValues::ExactValues(const Fusion& segment) {
  // A rounding makes a NaN the canonical one; a skipped rounding keeps its
  // sign, which signbit, and nothing else, would see.
  for (const Expr* e : segment.exprs())
    if (e->op() == OpType::Unary && e->attr<UnaryOpType>() == UnaryOpType::Signbit) return;
  for (auto [t, set] : {std::pair{DataType::BFloat16, &bfloat16_}, {DataType::Half, &half_}}) {
    for (const Val* in : segment.inputs())
      if (in->isTensor() && in->dtype() == t) set->insert(in);
    // exprs() is topological: every operand is decided before its uses.
    for (const Expr* e : segment.exprs())
      for (const Val* out : e->outputs())
        if (out->dtype() == t || (holdsExactly(t, out->dtype()) && keepsExactness(e, *set)))
          set->insert(out);
  }
}

bool ExactValues::holds(const Val* v, DataType t) const {
  if (t == DataType::BFloat16) return bfloat16_.count(v) > 0;
  if (t == DataType::Half) return half_.count(v) > 0;
  return false;
}

}  // namespace fusebox::kernelgen
