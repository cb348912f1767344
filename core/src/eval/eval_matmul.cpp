// matmul (torch.matmul: 1-D operands, broadcast batch dims) and linear
// (x @ weight^T + bias), accumulating in double and rounding once at the end.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "eval/eval_internal.h"
#include "eval/host_blas.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

// A strided operand seen as a matrix stack: batch dims, then rows and columns.
struct MatrixView {
  std::vector<int64_t> batch_sizes, batch_strides;
  int64_t rows, cols, row_stride, col_stride;
};

// A 1-D operand becomes one row (a) or one column (b), as torch.matmul does.
MatrixView asMatrix(const Tensor& t, bool vector_is_row) {
  MatrixView m;
  const int64_t r = t.dim();
  if (r == 1) {
    if (vector_is_row) {
      m.rows = 1, m.row_stride = 0, m.cols = t.sizes()[0], m.col_stride = t.strides()[0];
    } else {
      m.rows = t.sizes()[0], m.row_stride = t.strides()[0], m.cols = 1, m.col_stride = 0;
    }
    return m;
  }
  m.batch_sizes.assign(t.sizes().begin(), t.sizes().end() - 2);
  m.batch_strides.assign(t.strides().begin(), t.strides().end() - 2);
  m.rows = t.sizes()[r - 2], m.row_stride = t.strides()[r - 2];
  m.cols = t.sizes()[r - 1], m.col_stride = t.strides()[r - 1];
  return m;
}

// Computes out[batch..., m, n] = sum_k a[batch..., m, k] * b[batch..., k, n] (+ bias)
// over the full (batch, M, N) iteration space; `out_strides` and `bias_strides`
// are given for that space (0 where a dim is absent).
struct Contraction {
  std::vector<int64_t> sizes;  // batch..., M, N
  std::vector<int64_t> a_strides, b_strides, out_strides, bias_strides;
  int64_t k = 0, a_k_stride = 0, b_k_stride = 0;
};

// The product element by element, in the evaluator's own loop.
void runLoop(const Contraction& c, const Tensor& a, const Tensor& b, const Tensor* bias,
             Tensor& out) {
  std::vector<std::vector<int64_t>> strides{c.a_strides, c.b_strides, c.out_strides};
  if (bias) strides.push_back(c.bias_strides);
  for (detail::StridedWalk w(c.sizes, strides); !w.done(); w.next()) {
    double acc = 0.0;
    for (int64_t k = 0; k < c.k; ++k)
      acc += loadNumber(a.data(), a.dtype(), w.offset(0) + k * c.a_k_stride).asDouble() *
             loadNumber(b.data(), b.dtype(), w.offset(1) + k * c.b_k_stride).asDouble();
    if (bias) acc += loadNumber(bias->data(), bias->dtype(), w.offset(3)).asDouble();
    storeNumber(out.data(), out.dtype(), w.offset(2), Number::ofFloat(acc));
  }
}

// Picks `dims` of each operand's strides.
std::vector<std::vector<int64_t>> pick(const std::vector<const std::vector<int64_t>*>& strides,
                                       const std::vector<size_t>& dims) {
  std::vector<std::vector<int64_t>> out;
  for (const auto* s : strides) {
    out.emplace_back();
    for (size_t d : dims) out.back().push_back(s->empty() ? 0 : (*s)[d]);
  }
  return out;
}

// The product through dgemm: dims along which b does not move (its batch
// dims broadcast, linear's leading dims) join M as rows of one matrix
// product, the others are looped over; operands are packed into float64
// matrices (the evaluator's precision) and the result stored as the loop
// would.
void runBlas(Dgemm dgemm, const Contraction& c, const Tensor& a, const Tensor& b,
             const Tensor* bias, Tensor& out) {
  const size_t nd = c.sizes.size();  // batch..., M, N
  std::vector<size_t> row_dims, outer_dims;
  for (size_t d = 0; d + 1 < nd; ++d)
    (d + 2 == nd || c.b_strides[d] == 0 ? row_dims : outer_dims).push_back(d);
  std::vector<int64_t> row_sizes, outer_sizes;
  int64_t rows = 1;
  for (size_t d : row_dims) {
    row_sizes.push_back(c.sizes[d]);
    rows *= c.sizes[d];  // fits: the output's element count does
  }
  for (size_t d : outer_dims) outer_sizes.push_back(c.sizes[d]);
  const int64_t n = c.sizes[nd - 1], k = c.k;
  const int64_t b_n = c.b_strides[nd - 1], out_n = c.out_strides[nd - 1];
  const int64_t bias_n = bias ? c.bias_strides[nd - 1] : 0;
  const std::vector<const std::vector<int64_t>*> all = {&c.a_strides, &c.b_strides, &c.out_strides,
                                                        &c.bias_strides};
  std::vector<double> pa(static_cast<size_t>(rows * k)), pb(static_cast<size_t>(k * n)),
      pc(static_cast<size_t>(rows * n));
  for (detail::StridedWalk outer(outer_sizes, pick(all, outer_dims)); !outer.done(); outer.next()) {
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        pb[kk * n + j] =
            loadNumber(b.data(), b.dtype(), outer.offset(1) + kk * c.b_k_stride + j * b_n)
                .asDouble();
    const std::vector<int64_t> starts = {outer.offset(0), outer.offset(2), outer.offset(3)};
    auto row_walk = [&] {
      auto s = pick(all, row_dims);
      return detail::StridedWalk(row_sizes, {s[0], s[2], s[3]}, starts);
    };
    int64_t r = 0;
    for (auto w = row_walk(); !w.done(); w.next(), ++r)
      for (int64_t kk = 0; kk < k; ++kk)
        pa[r * k + kk] =
            loadNumber(a.data(), a.dtype(), w.offset(0) + kk * c.a_k_stride).asDouble();
    dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n),
          static_cast<int>(k), 1.0, pa.data(), static_cast<int>(std::max<int64_t>(k, 1)), pb.data(),
          static_cast<int>(std::max<int64_t>(n, 1)), 0.0, pc.data(),
          static_cast<int>(std::max<int64_t>(n, 1)));
    r = 0;
    for (auto w = row_walk(); !w.done(); w.next(), ++r)
      for (int64_t j = 0; j < n; ++j) {
        double v = pc[r * n + j];
        if (bias) v += loadNumber(bias->data(), bias->dtype(), w.offset(2) + j * bias_n).asDouble();
        storeNumber(out.data(), out.dtype(), w.offset(1) + j * out_n, Number::ofFloat(v));
      }
  }
}

// Computes the contraction: through the host's BLAS when one is installed
// and the product is big enough to gain from it (and its sizes fit dgemm's
// int arguments), else the evaluator's loop.
void run(const Contraction& c, const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out) {
  auto times = [](int64_t x, int64_t y) {
    int64_t r = 0;
    return __builtin_mul_overflow(x, y, &r) ? INT64_MAX : r;
  };
  const int64_t n = c.sizes.back();
  int64_t rows = 1;  // at least the rows of one dgemm
  for (size_t d = 0; d + 1 < c.sizes.size(); ++d) rows = times(rows, c.sizes[d]);
  constexpr int64_t kWorthIt = int64_t{1} << 15;  // multiply-adds below which the loop keeps up
  const bool fits = rows <= INT_MAX && n <= INT_MAX && c.k <= INT_MAX;
  const Dgemm dgemm =
      fits && c.k > 0 && times(times(rows, n), c.k) >= kWorthIt ? hostDgemm() : nullptr;
  if (dgemm == nullptr) return runLoop(c, a, b, bias, out);
  runBlas(dgemm, c, a, b, bias, out);
}

// Output strides over the full (batch, M, N) space: dims the output lacks
// (M for a 1-D a, N for a 1-D b) get stride 0.
std::vector<int64_t> fullOutStrides(const Tensor& out, size_t batch, bool has_m, bool has_n) {
  std::vector<int64_t> s(out.strides().begin(), out.strides().begin() + batch);
  size_t next = batch;
  s.push_back(has_m ? out.strides()[next++] : 0);
  s.push_back(has_n ? out.strides()[next] : 0);
  return s;
}

void evalMatmulOp(EvalContext& ctx, const Expr* e) {
  const Tensor& a = ctx.tensor(e->input(0));
  const Tensor& b = ctx.tensor(e->input(1));
  FUSEBOX_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul of rank {} and {}", a.dim(), b.dim());
  const MatrixView ma = asMatrix(a, /*vector_is_row=*/true);
  const MatrixView mb = asMatrix(b, /*vector_is_row=*/false);
  FUSEBOX_USER_CHECK(ma.cols == mb.rows,
                     "contraction sizes differ: a ({}) has K = {} but b ({}) has K = {}",
                     e->input(0)->toString(), ma.cols, e->input(1)->toString(), mb.rows);

  // Broadcast the batch dims, right-aligned.
  const size_t batch = std::max(ma.batch_sizes.size(), mb.batch_sizes.size());
  Contraction c;
  for (size_t d = 0; d < batch; ++d) {
    const int64_t ia =
        static_cast<int64_t>(d) - static_cast<int64_t>(batch - ma.batch_sizes.size());
    const int64_t ib =
        static_cast<int64_t>(d) - static_cast<int64_t>(batch - mb.batch_sizes.size());
    const int64_t sa = ia >= 0 ? ma.batch_sizes[ia] : 1, sb = ib >= 0 ? mb.batch_sizes[ib] : 1;
    FUSEBOX_USER_CHECK(sa == sb || sa == 1 || sb == 1,
                       "batch dim {} does not broadcast: a ({}) has size {} and b ({}) has size {}",
                       d, e->input(0)->toString(), sa, e->input(1)->toString(), sb);
    const int64_t size = sa == 1 ? sb : sa;
    // As in elementwise ops, only broadcast(-able) dims stretch; a missing one does.
    auto stretchable = [&](const Val* v, int64_t i) {
      return i < 0 || canStretch(v->as<TensorView>()->logicalNoReductions()[i]);
    };
    FUSEBOX_USER_CHECK(sa == size || stretchable(e->input(0), ia),
                       "batch dim {} of a ({}) has size 1, expected {} like b ({}); the dim is not "
                       "a broadcast dim, so it cannot stretch",
                       d, e->input(0)->toString(), size, e->input(1)->toString());
    FUSEBOX_USER_CHECK(sb == size || stretchable(e->input(1), ib),
                       "batch dim {} of b ({}) has size 1, expected {} like a ({}); the dim is not "
                       "a broadcast dim, so it cannot stretch",
                       d, e->input(1)->toString(), size, e->input(0)->toString());
    c.sizes.push_back(size);
    c.a_strides.push_back(ia >= 0 && sa == size ? ma.batch_strides[ia] : 0);
    c.b_strides.push_back(ib >= 0 && sb == size ? mb.batch_strides[ib] : 0);
  }
  c.sizes.push_back(ma.rows);
  c.sizes.push_back(mb.cols);
  c.a_strides.push_back(ma.row_stride);
  c.a_strides.push_back(0);
  c.b_strides.push_back(0);
  c.b_strides.push_back(mb.col_stride);
  c.k = ma.cols;
  c.a_k_stride = ma.col_stride;
  c.b_k_stride = mb.row_stride;

  std::vector<int64_t> out_sizes(c.sizes.begin(), c.sizes.begin() + batch);
  if (a.dim() >= 2) out_sizes.push_back(ma.rows);
  if (b.dim() >= 2) out_sizes.push_back(mb.cols);
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, out_sizes);
  c.out_strides = fullOutStrides(out, batch, a.dim() >= 2, b.dim() >= 2);
  run(c, a, b, nullptr, out);
  ctx.setTensor(out_tv, std::move(out));
}

void evalLinear(EvalContext& ctx, const Expr* e) {
  const Tensor& x = ctx.tensor(e->input(0));
  const Tensor& w = ctx.tensor(e->input(1));
  const Tensor* bias = e->inputs().size() > 2 ? &ctx.tensor(e->input(2)) : nullptr;
  FUSEBOX_CHECK(x.dim() >= 1 && (w.dim() == 1 || w.dim() == 2), "linear of rank {} and {}", x.dim(),
                w.dim());
  const int64_t k = x.sizes().back();
  const int64_t wk = w.sizes().back();
  FUSEBOX_USER_CHECK(k == wk,
                     "contraction sizes differ: input ({}) has K = {} but weight ({}) has K = {}",
                     e->input(0)->toString(), k, e->input(1)->toString(), wk);
  const bool has_n = w.dim() == 2;
  const int64_t n = has_n ? w.sizes()[0] : 1;

  // Iteration space: the input's leading dims as "batch", M = 1, then N.
  Contraction c;
  const size_t batch = static_cast<size_t>(x.dim() - 1);
  for (size_t d = 0; d < batch; ++d) {
    c.sizes.push_back(x.sizes()[d]);
    c.a_strides.push_back(x.strides()[d]);
    c.b_strides.push_back(0);
  }
  c.sizes.push_back(1);
  c.sizes.push_back(n);
  c.a_strides.push_back(0);
  c.a_strides.push_back(0);
  c.b_strides.push_back(0);
  c.b_strides.push_back(has_n ? w.strides()[0] : 0);
  c.k = k;
  c.a_k_stride = x.strides().back();
  c.b_k_stride = w.strides().back();

  std::vector<int64_t> out_sizes(x.sizes().begin(), x.sizes().end() - 1);
  if (has_n) out_sizes.push_back(n);
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, out_sizes);
  c.out_strides = fullOutStrides(out, batch, /*has_m=*/false, has_n);

  if (bias) {
    // The bias broadcasts against the output's last dim (rank 0 or [N] / [1]).
    FUSEBOX_USER_CHECK(bias->dim() <= 1, "bias ({}) must have rank 0 or 1, got shape [{}]",
                       e->input(2)->toString(), joinInts(bias->sizes()));
    int64_t bias_n_stride = 0;
    if (bias->dim() == 1) {
      const int64_t bn = bias->sizes()[0];
      FUSEBOX_USER_CHECK(bn == n || bn == 1, "bias ({}) has size {}, expected {} (or 1)",
                         e->input(2)->toString(), bn, n);
      if (bn == n) bias_n_stride = bias->strides()[0];
    }
    c.bias_strides.assign(batch + 1, 0);
    c.bias_strides.push_back(bias_n_stride);
  }
  run(c, x, w, bias, out);
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace

void evalMatmul(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Matmul:
      evalMatmulOp(ctx, e);
      return;
    case OpType::Linear:
      evalLinear(ctx, e);
      return;
    default:
      break;
  }
  throw InternalError(fmt::format("evalMatmul: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
