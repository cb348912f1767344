// Reductions: sum/prod/max/min, var, var_mean and welford. Reduced dims stay in
// the output's logical domain as Reduction IterDomains, as in nvFuser.
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// torch's accumulation type for sum/prod: bool and integers add up in int64.
DataType defaultReductionType(ReductionOpType op, DataType in) {
  bool additive = op == ReductionOpType::Sum || op == ReductionOpType::Prod;
  if (additive && (isBoolType(in) || isIntegralType(in))) return DataType::Int64;
  return in;  // half types keep their type (computed in float)
}

// var/var_mean/welford compute in floating point; integer inputs give float.
DataType varianceType(DataType in) {
  return isFloatingType(in) ? in : DataType::Float;
}

// Re-inserts the reduced dims as broadcasts (keepdim=True).
TensorView* keepDims(TensorView* out, int64_t in_rank, const std::vector<int64_t>& axes) {
  std::vector<bool> is_broadcast(in_rank, false);
  for (int64_t a : axes) is_broadcast[a] = true;
  return broadcast(out, is_broadcast);
}

}  // namespace

TensorView* reduction(ReductionOpType op, TensorView* x, std::vector<int64_t> axes, bool keepdim,
                      std::optional<DataType> dtype) {
  const std::string name = pyOp(toString(op));
  requirePresent(x, name, "input");
  const int64_t rank = x->nDims();
  auto sorted = normalizeAxes(axes, rank, name);
  Fusion& f = *x->fusion();
  auto* out =
      f.newTensor(reductionDomain(x, sorted), dtype.value_or(defaultReductionType(op, x->dtype())));
  f.newExpr(OpType::Reduction, {x}, {out}, ReductionAttr{op, sorted});
  return keepdim ? keepDims(out, rank, sorted) : out;
}

TensorView* sum(TensorView* x, std::vector<int64_t> axes, bool keepdim,
                std::optional<DataType> dtype) {
  return reduction(ReductionOpType::Sum, x, std::move(axes), keepdim, dtype);
}

TensorView* max(TensorView* x, std::vector<int64_t> axes, bool keepdim) {
  return reduction(ReductionOpType::Max, x, std::move(axes), keepdim);
}

namespace {

// The checks and attribute shared by var, var_mean and welford.
VarianceAttr varianceAttr(const TensorView* x, const std::vector<int64_t>& axes, int64_t correction,
                          const std::string& name) {
  requirePresent(x, name, "input");
  FUSEBOX_USER_CHECK(correction >= 0, "{}: correction must be >= 0, got {}", name, correction);
  return VarianceAttr{normalizeAxes(axes, x->nDims(), name), correction};
}

}  // namespace

TensorView* variance(TensorView* x, std::vector<int64_t> axes, int64_t correction, bool keepdim) {
  const std::string name = pyOp("var");
  VarianceAttr attr = varianceAttr(x, axes, correction, name);
  Fusion& f = *x->fusion();
  auto* out = f.newTensor(reductionDomain(x, attr.axes), varianceType(x->dtype()));
  f.newExpr(OpType::Var, {x}, {out}, attr);
  return keepdim ? keepDims(out, x->nDims(), attr.axes) : out;
}

VarMeanResult varMean(TensorView* x, std::vector<int64_t> axes, int64_t correction, bool keepdim) {
  const std::string name = pyOp("var_mean");
  VarianceAttr attr = varianceAttr(x, axes, correction, name);
  Fusion& f = *x->fusion();
  DataType t = varianceType(x->dtype());
  auto* var = f.newTensor(reductionDomain(x, attr.axes), t);
  auto* mean = f.newTensor(reductionDomain(x, attr.axes), t);
  f.newExpr(OpType::VarMean, {x}, {var, mean}, attr);
  if (!keepdim) return {var, mean};
  return {keepDims(var, x->nDims(), attr.axes), keepDims(mean, x->nDims(), attr.axes)};
}

WelfordResult welford(TensorView* x, std::vector<int64_t> axes) {
  const std::string name = pyOp("welford");
  VarianceAttr attr = varianceAttr(x, axes, 1, name);
  Fusion& f = *x->fusion();
  DataType t = varianceType(x->dtype());
  auto* avg = f.newTensor(reductionDomain(x, attr.axes), t);
  auto* var_sum = f.newTensor(reductionDomain(x, attr.axes), t);
  auto* n = f.newTensor(reductionDomain(x, attr.axes), DataType::Int64);
  f.newExpr(OpType::Welford, {x}, {avg, var_sum, n}, attr);
  return {avg, var_sum, n};
}

}  // namespace fusebox
