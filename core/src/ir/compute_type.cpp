#include <fusebox/ir/compute_type.h>
#include <fusebox/ir/ir.h>

#include <vector>

namespace fusebox {

DataType elementwiseComputeType(const Expr* e) {
  const DataType out = e->output(0)->dtype();
  const bool elementwise =
      e->op() == OpType::Unary || e->op() == OpType::Binary || e->op() == OpType::Ternary;
  if (!elementwise || !e->output(0)->isTensor()) return out;
  if (isFloatingType(out)) return computeType(out);
  // Comparisons, logical ops and integer ops: the operands' common dtype.
  const bool is_where =
      e->op() == OpType::Ternary && e->attr<TernaryOpType>() == TernaryOpType::Where;
  std::vector<PromotionOperand> operands;
  for (size_t i = is_where ? 1 : 0; i < e->inputs().size(); ++i)
    operands.push_back({e->input(i)->dtype(), e->input(i)->isTensor()});
  return computeType(resultType(operands.data(), operands.data() + operands.size()));
}

bool convertsToComputeType(DataType dtype, bool is_tensor, DataType compute) {
  if (!isFloatingType(compute) || dtype == compute) return false;
  if (!is_tensor) return true;
  return !isFloatingType(dtype);
}

}  // namespace fusebox
