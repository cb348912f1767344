// Ops without generated element code (op_support.h).
#include "op_support.h"

#include <fmt/format.h>

namespace fusebox::kernelgen {

std::string unsupportedOpProblem(const Expr* e) {
  const std::string what = fmt::format("{} (expr {})", e->opName(), e->name());
  if (isIndexingOp(e->op()))
    return fmt::format(
        "{} indexes a tensor at run-time indices; generated kernels have no indirect loads or "
        "stores yet (it runs on expr_eval)",
        what);
  switch (e->op()) {
    case OpType::Scan:
      return fmt::format("{} is a scan; generated kernels have no scan yet (it runs on expr_eval)",
                         what);
    case OpType::Unary:
      if (e->attr<UnaryOpType>() != UnaryOpType::Signbit) return "";
      break;
    case OpType::Binary:
      switch (e->attr<BinaryOpType>()) {
        case BinaryOpType::Nextafter:
        case BinaryOpType::Gcd:
        case BinaryOpType::LogicalRightShift:
          break;
        default:
          return "";
      }
      break;
    default:
      return "";
  }
  return fmt::format("{} has no element code in the kernel runtime yet (it runs on expr_eval)",
                     what);
}

std::string unsupportedOpProblem(const Fusion& segment) {
  for (const Expr* e : segment.exprs())
    if (std::string problem = unsupportedOpProblem(e); !problem.empty()) return problem;
  return "";
}

}  // namespace fusebox::kernelgen
