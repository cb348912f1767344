// Ops without generated element code (op_support.h).
#include "kernelgen/op_support.h"

#include <fmt/format.h>

namespace fusebox::kernelgen {

std::string unsupportedOpProblem(const Expr* e, IndirectLoads indirect) {
  const std::string what = fmt::format("{} (expr {})", e->opName(), e->name());
  if (e->op() == OpType::Scatter)
    return fmt::format(
        "{} writes at run-time indices; generated kernels have no indirect stores (it runs on "
        "expr_eval, a segment of its own)",
        what);
  if (isIndexingOp(e->op()) && indirect == IndirectLoads::Refused)
    return fmt::format(
        "{} reads at run-time indices; this scheduler's kernels have no indirect loads (the "
        "pointwise scheduler's do)",
        what);
  if (e->op() == OpType::Argsort || e->op() == OpType::TopK)
    return fmt::format(
        "{} sorts its lines; generated kernels do not sort yet (it runs on expr_eval, a segment "
        "of its own)",
        what);
  if (e->op() == OpType::Scan)
    return fmt::format(
        "{} is a scan: the scan scheduler's along the innermost dim, expr_eval's along another",
        what);
  return "";
}

std::string unsupportedOpProblem(const Fusion& segment, IndirectLoads indirect) {
  for (const Expr* e : segment.exprs())
    if (std::string problem = unsupportedOpProblem(e, indirect); !problem.empty()) return problem;
  return "";
}

}  // namespace fusebox::kernelgen
