// Sorting ops on host tensors: argsort and topk along one dim. Each line is
// sorted stably (equal elements keep their input order, for `stable` or not)
// with NaN above every number, as torch orders them; topk picks the first k of
// the line sorted descending (largest) or ascending.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

// a before b in ascending order: numbers by value, NaN last.
bool ascending(const Number& a, const Number& b) {
  if (a.isFloat() || b.isFloat()) {
    const double x = a.asDouble(), y = b.asDouble();
    return !std::isnan(x) && (std::isnan(y) || x < y);
  }
  return a.i < b.i;
}

// The positions 0..n-1 of one line in sorted order.
void sortLine(const std::vector<Number>& line, bool descending, std::vector<int64_t>& order) {
  order.resize(line.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return descending ? ascending(line[b], line[a]) : ascending(line[a], line[b]);
  });
}

void evalArgsort(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<SortAttr>();
  const Tensor& in = ctx.tensor(e->input(0));
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, in.sizes());
  const int64_t d = attr.dim, n = in.sizes()[d];
  std::vector<int64_t> lines = in.sizes();
  lines[d] = n == 0 ? 0 : 1;
  std::vector<Number> line(static_cast<size_t>(n));
  std::vector<int64_t> order;
  for (detail::StridedWalk w(lines, {in.strides(), out.strides()}); !w.done(); w.next()) {
    for (int64_t j = 0; j < n; ++j)
      line[j] = loadNumber(in.data(), in.dtype(), w.offset(0) + j * in.strides()[d]);
    sortLine(line, attr.descending, order);
    for (int64_t j = 0; j < n; ++j)
      storeNumber(out.data(), out.dtype(), w.offset(1) + j * out.strides()[d],
                  Number::ofInt(order[j]));
  }
  ctx.setTensor(out_tv, std::move(out));
}

void evalTopK(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<TopKAttr>();
  const Tensor& in = ctx.tensor(e->input(0));
  const int64_t d = attr.dim, n = in.sizes()[d];
  const int64_t k = ctx.integer(e->input(1));
  FUSEBOX_USER_CHECK(k >= 0 && k <= n,
                     "fd.ops.topk: k is {} but dim {} of {} has {} elements; expected 0 <= k <= {}",
                     k, d, e->input(0)->toString(), n, n);
  std::vector<int64_t> sizes = in.sizes();
  sizes[d] = k;
  const auto* values_tv = e->output(0)->as<TensorView>();
  const auto* indices_tv = e->output(1)->as<TensorView>();
  Tensor values = ctx.allocate(values_tv, sizes);
  Tensor indices = ctx.allocate(indices_tv, sizes);
  std::vector<int64_t> lines = in.sizes();
  lines[d] = n == 0 || k == 0 ? 0 : 1;
  std::vector<Number> line(static_cast<size_t>(n));
  std::vector<int64_t> order;
  for (detail::StridedWalk w(lines, {in.strides(), values.strides(), indices.strides()}); !w.done();
       w.next()) {
    for (int64_t j = 0; j < n; ++j)
      line[j] = loadNumber(in.data(), in.dtype(), w.offset(0) + j * in.strides()[d]);
    sortLine(line, attr.largest, order);
    for (int64_t j = 0; j < k; ++j) {
      storeNumber(values.data(), values.dtype(), w.offset(1) + j * values.strides()[d],
                  line[order[j]]);
      storeNumber(indices.data(), indices.dtype(), w.offset(2) + j * indices.strides()[d],
                  Number::ofInt(order[j]));
    }
  }
  ctx.setTensor(values_tv, std::move(values));
  ctx.setTensor(indices_tv, std::move(indices));
}

}  // namespace

void evalSort(EvalContext& ctx, const Expr* e) {
  if (e->op() == OpType::Argsort) return evalArgsort(ctx, e);
  if (e->op() == OpType::TopK) return evalTopK(ctx, e);
  throw InternalError(fmt::format("evalSort: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
