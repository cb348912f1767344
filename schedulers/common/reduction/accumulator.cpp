// Accumulator states of reducing kernels (accumulator.h).
#include "reduction/accumulator.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include "kernelgen/codegen_ops.h"

using fusebox::kernelgen::roundTo;

namespace fusebox::reduction {

std::string Accumulator::stateType() const {
  return welford ? fmt::format("fusebox::Welford<{}>", scalar) : scalar;
}

std::string Accumulator::identity() const {
  if (welford) return fmt::format("fusebox::welfordInit<{}>()", scalar);
  return fmt::format("{}::identity<{}>()", functor, scalar);
}

std::string Accumulator::update(const std::string& acc, const std::string& x) const {
  const std::string cast = fmt::format("fusebox::Cast<{}>::from({})", scalar, x);
  if (welford) return fmt::format("fusebox::welfordUpdate({}, {});", acc, cast);
  return fmt::format("{} = {}{{}}({}, {});", acc, functor, acc, cast);
}

std::string Accumulator::combined(const std::string& a, const std::string& b) const {
  return fmt::format("{}{{}}({}, {})", functor, a, b);
}

std::string Accumulator::result(size_t k, const std::string& acc) const {
  const DataType out = expr->output(k)->dtype();
  switch (expr->op()) {
    case OpType::Reduction:
      return roundTo(out, acc);
    case OpType::Var:
    case OpType::VarMean: {
      if (k == 1)  // the mean; 0 / 0 (NaN) over no elements, as the evaluator
        return roundTo(
            out, fmt::format("({}.avg / static_cast<{}>({}.n == 0 ? 0 : 1))", acc, scalar, acc));
      // torch divides M2 by max(0, N - correction): 0 / 0 is NaN, x / 0 inf.
      const int64_t correction = expr->attr<VarianceAttr>().correction;
      return roundTo(out, fmt::format("({}.m2 / static_cast<{}>({}.n > {} ? {}.n - {} : 0))", acc,
                                      scalar, acc, correction, acc, correction));
    }
    case OpType::Welford:
      if (k == 0) return roundTo(out, fmt::format("{}.avg", acc));
      if (k == 1) return roundTo(out, fmt::format("{}.m2", acc));
      return roundTo(out, fmt::format("{}.n", acc));
    default:
      break;
  }
  throw InternalError(fmt::format("reduction: {} is not a reduction", expr->opName()));
}

Accumulator accumulatorFor(const Expr* e) {
  FUSEBOX_CHECK(isReductionExpr(e), "reduction: {} is not a reduction", e->opName());
  Accumulator a;
  a.expr = e;
  const DataType in = e->input(0)->dtype(), out = e->output(0)->dtype();
  const bool wide = in == DataType::Double || out == DataType::Double;
  if (e->op() == OpType::Reduction) {
    // Floating if either side is (sum(int_tensor, dtype=float) sums the values as floats).
    const bool floating = isFloatingType(in) || isFloatingType(out);
    a.scalar = !floating ? "int64_t" : wide ? "double" : "float";
    switch (e->attr<ReductionAttr>().op) {
      case ReductionOpType::Sum:
        a.functor = "fusebox::ReduceSum";
        break;
      case ReductionOpType::Prod:
        a.functor = "fusebox::ReduceProd";
        break;
      case ReductionOpType::Max:
        a.functor = "fusebox::ReduceMax";
        break;
      case ReductionOpType::Min:
        a.functor = "fusebox::ReduceMin";
        break;
    }
    a.state_bytes = a.scalar == "float" ? 4 : 8;
  } else {
    a.welford = true;
    a.scalar = wide || !isFloatingType(in) ? "double" : "float";
    a.functor = "fusebox::WelfordCombine";
    a.state_bytes = a.scalar == "float" ? 16 : 24;
  }
  return a;
}

bool isReductionExpr(const Expr* e) {
  switch (e->op()) {
    case OpType::Reduction:
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford:
      return true;
    default:
      return false;
  }
}

const std::vector<int64_t>& reducedAxes(const Expr* e) {
  if (e->op() == OpType::Reduction) return e->attr<ReductionAttr>().axes;
  return e->attr<VarianceAttr>().axes;
}

}  // namespace fusebox::reduction
