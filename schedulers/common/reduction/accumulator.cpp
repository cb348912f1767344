// Accumulator states of reducing kernels (accumulator.h).
#include "reduction/accumulator.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include "kernel_ir/element_math.h"

namespace fusebox::reduction {

std::string Accumulator::stateType() const {
  return welford ? fmt::format("fusebox::Welford<{}>", scalar) : scalar;
}

kir::Value Accumulator::identity() const {
  if (welford) return kir::call("fusebox::welfordInit", {}, {kir::named(scalar)});
  return kir::call(functor + "::identity", {}, {kir::named(scalar)});
}

void Accumulator::update(kir::Block& at, const kir::Value& acc, const kir::Value& x) const {
  const kir::Value element = kir::castFrom(kir::named(scalar), x);
  if (welford)
    at.evaluate(kir::call("fusebox::welfordUpdate", {acc, element}));
  else
    at.assign(acc, kir::call(functor + "{}", {acc, element}));
}

kir::Value Accumulator::result(size_t k, const kir::Value& acc) const {
  const DataType out = expr->output(k)->dtype();
  const kir::Type s = kir::named(scalar);
  auto field = [&](const char* name) { return kir::member(acc, name); };
  switch (expr->op()) {
    case OpType::Reduction:
      return kir::roundTo(out, acc);
    case OpType::Var:
    case OpType::VarMean: {
      if (k == 1)  // the mean; 0 / 0 (NaN) over no elements, as the evaluator
        return kir::roundTo(
            out, field("avg") / kir::cast(s, kir::select(field("n") == kir::lit(0), kir::lit(0),
                                                         kir::lit(1))));
      // torch divides M2 by max(0, N - correction): 0 / 0 is NaN, x / 0 inf.
      const kir::Value correction = kir::lit(expr->attr<VarianceAttr>().correction);
      return kir::roundTo(
          out, field("m2") / kir::cast(s, kir::select(field("n") > correction,
                                                      field("n") - correction, kir::lit(0))));
    }
    case OpType::Welford:
      return kir::roundTo(out, field(k == 0 ? "avg" : k == 1 ? "m2" : "n"));
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
