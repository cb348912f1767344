// matmul (torch.matmul: 1-D operands, broadcast batch dims) and linear
// (x @ weight^T + bias), accumulating in double and rounding once at the end.
#include <fmt/format.h>

#include "eval/eval_internal.h"
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

void run(const Contraction& c, const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out) {
  std::vector<std::vector<int64_t>> strides{c.a_strides, c.b_strides, c.out_strides};
  if (bias) strides.push_back(c.bias_strides);
  std::vector<int64_t> starts{0, 0, 0, 0};
  if (!bias) starts.pop_back();
  for (detail::StridedWalk w(c.sizes, strides, starts); !w.done(); w.next()) {
    double acc = 0.0;
    for (int64_t k = 0; k < c.k; ++k)
      acc += loadNumber(a.data(), a.dtype(), w.offset(0) + k * c.a_k_stride).asDouble() *
             loadNumber(b.data(), b.dtype(), w.offset(1) + k * c.b_k_stride).asDouble();
    if (bias) acc += loadNumber(bias->data(), bias->dtype(), w.offset(3)).asDouble();
    storeNumber(out.data(), out.dtype(), w.offset(2), Number::ofFloat(acc));
  }
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
