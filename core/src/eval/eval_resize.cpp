// Resize ops: slice, pad, cat. Indices follow torch: negative ones count from
// the end, then clamp to [0, extent]; negative pad widths crop.
#include <fusebox/checked_math.h>

#include <fmt/format.h>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {

int64_t normalizeSliceIndex(int64_t index, int64_t extent) {
  if (index < 0) index += extent;
  return std::clamp<int64_t>(index, 0, extent);
}

namespace {

void evalSlice(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const int64_t rank = in.dim();
  FUSEBOX_CHECK(static_cast<int64_t>(e->inputs().size()) == 1 + 3 * rank,
                "slice of rank {} with {} operands", rank, e->inputs().size());
  std::vector<int64_t> sizes, strides;
  int64_t offset = in.storageOffset();
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t extent = in.sizes()[d];
    const int64_t start = normalizeSliceIndex(ctx.integer(e->input(1 + d)), extent);
    const int64_t stop = normalizeSliceIndex(ctx.integer(e->input(1 + rank + d)), extent);
    const int64_t step = ctx.integer(e->input(1 + 2 * rank + d));
    FUSEBOX_USER_CHECK(step > 0, "slice step for dim {} must be positive, got {}", d, step);
    // ceil((stop - start) / step) without forming stop - start + step, which
    // overflows for a step near 2^63.
    const int64_t length = stop > start ? 1 + (stop - start - 1) / step : 0;
    sizes.push_back(length);
    // With one element or none the stride is never used; with more, step < extent.
    strides.push_back(length > 1
                          ? checked::orThrow(checked::mul(in.strides()[d], step), "slice stride")
                          : in.strides()[d]);
    if (length > 0) offset += start * in.strides()[d];
  }
  Tensor view = in.asStrided(sizes, strides, offset);
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  copyInto(view, out);
  ctx.setTensor(out_tv, std::move(out));
}

// The part of dim `d` shared by input and padded output: [in_begin, in_begin + count)
// of the input lands at [out_begin, ...) of the output.
struct Overlap {
  int64_t in_begin, out_begin, count;
};

void evalPad(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const int64_t rank = in.dim();
  const Number value = ctx.errorBoundMode() ? Number::ofFloat(0.0) : ctx.number(e->input(1));
  const int64_t npairs = (static_cast<int64_t>(e->inputs().size()) - 2) / 2;
  FUSEBOX_CHECK(npairs <= rank, "pad of rank {} with {} width pairs", rank, npairs);
  std::vector<int64_t> sizes = in.sizes();
  std::vector<Overlap> overlap(rank);
  for (int64_t d = 0; d < rank; ++d) overlap[d] = {0, 0, in.sizes()[d]};
  for (int64_t k = 0; k < npairs; ++k) {
    const int64_t d = rank - 1 - k;  // widths come last dim first
    const int64_t left = ctx.integer(e->input(2 + 2 * k));
    const int64_t right = ctx.integer(e->input(3 + 2 * k));
    const int64_t extent = in.sizes()[d];
    const auto padded = checked::add(checked::add(extent, left), right);
    FUSEBOX_USER_CHECK(padded.has_value(),
                       "padding dim {} of size {} by ({}, {}) gives a size that overflows int64", d,
                       extent, left, right);
    const int64_t size = *padded;
    FUSEBOX_USER_CHECK(size >= 0, "padding dim {} of size {} by ({}, {}) gives size {}", d, extent,
                       left, right, size);
    sizes[d] = size;
    // Output position o holds input position o - left. When left + extent
    // overflows, it is past the end of the output anyway.
    const int64_t out_begin = std::max<int64_t>(0, left);
    const int64_t out_end = std::min<int64_t>(size, checked::add(left, extent).value_or(size));
    const int64_t count = std::max<int64_t>(0, out_end - out_begin);
    overlap[d] = count == 0 ? Overlap{0, 0, 0} : Overlap{out_begin - left, out_begin, count};
  }
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  // Fill with the pad value, then copy the input's surviving part over it.
  for (detail::StridedWalk w(out.sizes(), {out.strides()}); !w.done(); w.next())
    storeNumber(out.data(), out.dtype(), w.offset(0), value);
  std::vector<int64_t> region(rank);
  int64_t in_off = in.storageOffset(), out_off = out.storageOffset();
  bool empty = false;
  for (int64_t d = 0; d < rank; ++d) {
    region[d] = overlap[d].count;
    empty |= region[d] == 0;
    in_off += overlap[d].in_begin * in.strides()[d];
    out_off += overlap[d].out_begin * out.strides()[d];
  }
  if (!empty) {
    Tensor dst = out.asStrided(region, out.strides(), out_off);
    copyInto(in.asStrided(region, in.strides(), in_off), dst);
  }
  ctx.setTensor(out_tv, std::move(out));
}

void evalCat(EvalContext& ctx, const Expr* e) {
  const int64_t dim = e->attr<CatAttr>().dim;
  const Tensor& first = ctx.tensor(e->input(0));
  const int64_t rank = first.dim();
  FUSEBOX_CHECK(dim >= 0 && dim < rank, "cat dim {} for rank {}", dim, rank);
  std::vector<int64_t> sizes = first.sizes();
  sizes[dim] = 0;
  for (size_t k = 0; k < e->inputs().size(); ++k) {
    const Tensor& t = ctx.tensor(e->input(k));
    FUSEBOX_CHECK(t.dim() == rank, "cat operand {} has rank {}, expected {}", k, t.dim(), rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim) continue;
      FUSEBOX_USER_CHECK(t.sizes()[d] == first.sizes()[d],
                         "tensor {} ({}) has size {} in dim {}, expected {} like tensor 0 ({})", k,
                         e->input(k)->toString(), t.sizes()[d], d, first.sizes()[d],
                         e->input(0)->toString());
    }
    sizes[dim] = checked::orThrow(checked::add(sizes[dim], t.sizes()[dim]),
                                  fmt::format("the concatenated size of dim {}", dim));
  }
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  int64_t at = 0;
  for (size_t k = 0; k < e->inputs().size(); ++k) {
    const Tensor& t = ctx.tensor(e->input(k));
    if (t.numel() > 0) {
      Tensor dst =
          out.asStrided(t.sizes(), out.strides(), out.storageOffset() + at * out.strides()[dim]);
      copyInto(t, dst);
    }
    at += t.sizes()[dim];
  }
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace

void evalResize(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Slice:
      evalSlice(ctx, e);
      return;
    case OpType::Pad:
      evalPad(ctx, e);
      return;
    case OpType::Cat:
      evalCat(ctx, e);
      return;
    default:
      break;
  }
  throw InternalError(fmt::format("evalResize: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
