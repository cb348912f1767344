// The bound of one sum, product or extremum, which reductions and scans share
// (error_bounds.h), and the bounds of scans: element j of a line is the
// sum, product or extremum of the line's first K = j + 1 elements, so it gets
// that reduction's bound:
//   cumsum   E_j = sum e_i + (K + 1) u_acc sum |x_i| + 2 u_d |y_j|
//   cumprod  E_j = prod(|x_i| + e_i) (1 + (K + 1) u_acc) - prod |x_i| + 2 u_d |y_j|
//   cummax, cummin  E_j = max e_i
// (over i <= j). A kernel may add the prefix in another order (a block scan
// does), which these cover as the sum's bound covers any order. topk's
// values, a line's j-th largest or smallest, get the line's max e_i: each
// moves by at most that whichever elements trade places.
#include <fusebox/eval/tolerance.h>

#include <algorithm>
#include <cmath>

#include "eval/error_bounds.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {

double reductionBound(ReductionOpType op, const ReductionTotals& t, double u_acc, DataType dtype,
                      double abs_y) {
  const double stored = 2 * unitRoundoff(dtype) * abs_y;
  double b = 0;
  switch (op) {
    case ReductionOpType::Sum:
      b = t.sum_err + (t.terms + 1) * u_acc * t.sum_abs + stored;
      break;
    case ReductionOpType::Prod:
      // |prod x'_j - prod x_j| <= prod(|x_j| + e_j) - prod |x_j|.
      b = t.prod_wide * (1 + (t.terms + 1) * u_acc) - t.prod_abs + stored;
      break;
    case ReductionOpType::Max:
    case ReductionOpType::Min:
      b = t.max_err;
      break;
  }
  return std::isnan(b) ? kUnbounded : b;
}

Tensor scanErrorBound(const Expr* e, const Tensor& in, const Tensor& in_error, const Tensor& out,
                      double u_acc) {
  if (u_acc == 0 && !in_error.defined()) return Tensor();  // integers, exact
  const auto& attr = e->attr<ScanAttr>();
  const int64_t d = attr.dim;
  const int64_t n = in.sizes()[d];
  Tensor bound = Tensor::empty(DataType::Double, out.sizes());
  const Tensor err = in_error.defined() ? in_error : Tensor::empty(DataType::Double, in.sizes());
  std::vector<int64_t> lines = in.sizes();
  lines[d] = n == 0 ? 0 : 1;
  const auto* e_in = static_cast<const double*>(err.data());
  auto* dst = static_cast<double*>(bound.data());
  bool nonzero = false;
  for (detail::StridedWalk w(lines, {in.strides(), err.strides(), out.strides(), bound.strides()});
       !w.done(); w.next()) {
    ReductionTotals prefix;
    for (int64_t j = 0; j < n; ++j) {
      const Number x = loadNumber(in.data(), in.dtype(), w.offset(0) + j * in.strides()[d]);
      prefix.add(std::fabs(x.asDouble()), e_in[w.offset(1) + j * err.strides()[d]]);
      const Number y = loadNumber(out.data(), out.dtype(), w.offset(2) + j * out.strides()[d]);
      const double b = reductionBound(attr.op, prefix, u_acc, out.dtype(), std::fabs(y.asDouble()));
      nonzero |= b != 0;
      dst[w.offset(3) + j * bound.strides()[d]] = b;
    }
  }
  return nonzero ? bound : Tensor();
}

Tensor topkErrorBound(const Expr* e, const Tensor& in_error, const Tensor& values) {
  if (!in_error.defined()) return Tensor();
  const int64_t d = e->attr<TopKAttr>().dim;
  Tensor bound = Tensor::empty(DataType::Double, values.sizes());
  std::vector<int64_t> lines = in_error.sizes();
  const int64_t n = lines[d], k = values.sizes()[d];
  lines[d] = n == 0 || k == 0 ? 0 : 1;
  const auto* in = static_cast<const double*>(in_error.data());
  auto* dst = static_cast<double*>(bound.data());
  for (detail::StridedWalk w(lines, {in_error.strides(), bound.strides()}); !w.done(); w.next()) {
    double largest = 0;
    for (int64_t j = 0; j < n; ++j)
      largest = std::max(largest, in[w.offset(0) + j * in_error.strides()[d]]);
    for (int64_t j = 0; j < k; ++j) dst[w.offset(1) + j * bound.strides()[d]] = largest;
  }
  return bound;
}

}  // namespace fusebox::eval_detail
