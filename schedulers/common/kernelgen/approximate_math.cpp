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

}  // namespace

std::unordered_set<const Expr*> approximableExprs(const Fusion& segment) {
  std::unordered_set<const Val*> precise;
  for (const Val* out : segment.outputs())
    if (!isSixteenBitFloat(out->dtype())) precise.insert(out);
  // exprs() is topological: walking it backwards sees every use of a value
  // before the value's definition.
  const std::vector<Expr*> exprs = segment.exprs();
  std::unordered_set<const Expr*> out;
  for (auto it = exprs.rbegin(); it != exprs.rend(); ++it) {
    const Expr* e = *it;
    bool reaches_precise = false;
    for (const Val* o : e->outputs()) reaches_precise = reaches_precise || precise.count(o) > 0;
    if (reaches_precise) {
      for (const Val* in : e->inputs()) precise.insert(in);
    } else if (hasApproximation(e)) {
      out.insert(e);
    }
  }
  return out;
}

}  // namespace fusebox::kernelgen
