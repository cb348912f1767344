// approximate_math.h: a backward walk marking every value that reaches an
// output needing more than 16-bit float precision.
#include "kernelgen/approximate_math.h"

namespace fusebox::kernelgen {

namespace {

bool isSixteenBitFloat(DataType t) {
  return t == DataType::BFloat16 || t == DataType::Half;
}

// An exp or a division computed in float (16-bit and float results).
bool hasApproximation(const Expr* e) {
  if (e->outputs().size() != 1) return false;
  const DataType t = e->outputs()[0]->dtype();
  if (!isFloatingType(t) || t == DataType::Double) return false;
  if (e->op() == OpType::Unary) return e->attr<UnaryOpType>() == UnaryOpType::Exp;
  if (e->op() == OpType::Binary) {
    const BinaryOpType b = e->attr<BinaryOpType>();
    return b == BinaryOpType::Div || b == BinaryOpType::TrueDiv;
  }
  return false;
}

bool isFloatUnary(const Expr* e, UnaryOpType op) {
  return e->op() == OpType::Unary && e->attr<UnaryOpType>() == op && e->outputs().size() == 1 &&
         e->output(0)->dtype() == DataType::Float;
}

// `e` is log(s) in float of a float sum `s` that nothing but logs reads.
bool logsASum(const Expr* e) {
  if (!isFloatUnary(e, UnaryOpType::Log)) return false;
  const Val* s = e->input(0);
  const Expr* sum = s->definition();
  if (s->dtype() != DataType::Float || s->isFusionOutput() || sum == nullptr ||
      sum->op() != OpType::Reduction || sum->attr<ReductionAttr>().op != ReductionOpType::Sum)
    return false;
  for (const Expr* use : s->uses())
    if (!isFloatUnary(use, UnaryOpType::Log)) return false;
  return true;
}

}  // namespace

std::unordered_set<const Expr*> approximableExprs(const Fusion& segment) {
  std::unordered_set<const Val*> precise;
  // Sums that only logs read, and those sums' terms.
  std::unordered_set<const Val*> logged_sums, logged_terms;
  for (const Val* out : segment.outputs())
    if (!isSixteenBitFloat(out->dtype())) precise.insert(out);
  // exprs() is topological: walking it backwards sees every use of a value
  // before the value's definition.
  const std::vector<Expr*> exprs = segment.exprs();
  std::unordered_set<const Expr*> out;
  auto any = [](const Expr* e, const std::unordered_set<const Val*>& set) {
    for (const Val* o : e->outputs())
      if (set.count(o) > 0) return true;
    return false;
  };
  for (auto it = exprs.rbegin(); it != exprs.rend(); ++it) {
    const Expr* e = *it;
    const bool reaches_precise = any(e, precise);
    if (!reaches_precise && any(e, logged_terms) && isFloatUnary(e, UnaryOpType::Exp)) {
      // A term of a logged sum: its argument stays exact.
      out.insert(e);
      for (const Val* in : e->inputs()) precise.insert(in);
    } else if (!reaches_precise && any(e, logged_sums)) {
      for (const Val* in : e->inputs()) logged_terms.insert(in);
    } else if (reaches_precise || any(e, logged_terms)) {
      if (reaches_precise && logsASum(e))
        logged_sums.insert(e->input(0));
      else
        for (const Val* in : e->inputs()) precise.insert(in);
    } else if (hasApproximation(e)) {
      out.insert(e);
    }
  }
  return out;
}

}  // namespace fusebox::kernelgen
