// Scans on host tensors: cumsum, cumprod, cummax, cummin along one dim. Each
// running value is kept in int64 (wrapping) or double and rounded once per
// output element, as the reductions are; cummax and cummin keep a NaN once
// they meet one, as torch's do.
#include <fmt/format.h>

#include <cmath>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

// The running max or min once x is seen (>= and <=: the later of equal values).
Number extremum(ReductionOpType op, const Number& acc, const Number& x) {
  if (acc.isFloat() || x.isFloat()) {
    const double a = acc.asDouble(), v = x.asDouble();
    if (std::isnan(a)) return acc;
    const bool take = std::isnan(v) || (op == ReductionOpType::Max ? v >= a : v <= a);
    return take ? Number::ofFloat(v) : Number::ofFloat(a);
  }
  const bool take = op == ReductionOpType::Max ? x.i >= acc.i : x.i <= acc.i;
  return take ? x : acc;
}

Number combine(ReductionOpType op, const Number& acc, const Number& x, DataType dtype) {
  switch (op) {
    case ReductionOpType::Sum:
      return applyBinary(BinaryOpType::Add, acc, x, dtype);
    case ReductionOpType::Prod:
      return applyBinary(BinaryOpType::Mul, acc, x, dtype);
    case ReductionOpType::Max:
    case ReductionOpType::Min:
      return extremum(op, acc, x);
  }
  throw InternalError("unknown scan op");
}

}  // namespace

void evalScan(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<ScanAttr>();
  const Tensor& in = ctx.tensor(e->input(0));
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, in.sizes());
  const int64_t d = attr.dim;
  const int64_t n = in.sizes()[d];
  // One walk over every line along d: the positions with index 0 in dim d.
  std::vector<int64_t> lines = in.sizes();
  lines[d] = n == 0 ? 0 : 1;
  const int64_t in_step = in.strides()[d], out_step = out.strides()[d];
  const DataType in_type = in.dtype(), out_type = out.dtype();
  for (detail::StridedWalk w(lines, {in.strides(), out.strides()}); !w.done(); w.next()) {
    Number acc;
    for (int64_t j = 0; j < n; ++j) {
      const Number x = loadNumber(in.data(), in_type, w.offset(0) + j * in_step);
      acc = j == 0 ? x : combine(attr.op, acc, x, out_type);
      storeNumber(out.data(), out_type, w.offset(1) + j * out_step, acc);
    }
  }
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace fusebox::eval_detail
