// Indexing ops on host tensors: index_select, select, gather, take_along_axis
// and scatter. Every index is checked against the size of the dim it indexes,
// as PyTorch checks them: an index outside [0, size) (for select, outside
// [-size, size)) is a UserError naming the op, the index, where it was read,
// the dim and its size. The driver prefixes the expression.
#include <fmt/format.h>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

const char* at(const Tensor& t, int64_t offset) {
  return static_cast<const char*>(t.data()) + offset * detail::elementSize(t.dtype());
}

void copyElement(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset) {
  detail::convertElement(
      at(src, src_offset), src.dtype(),
      static_cast<char*>(dst.data()) + dst_offset * detail::elementSize(dst.dtype()), dst.dtype());
}

// The index read at `offset` of the index operand (its position `where`),
// checked against dim `dim` of the indexed operand, of size `size`.
int64_t checkedIndex(const Expr* e, const Tensor& index, int64_t offset,
                     const std::vector<int64_t>& where, const Val* indexed, int64_t dim,
                     int64_t size) {
  const int64_t v = detail::loadInt(at(index, offset), index.dtype());
  FUSEBOX_USER_CHECK(v >= 0 && v < size,
                     "{}: index {} (at [{}] of {}) is out of range for dim {} of {}, of size {} "
                     "(expected 0 <= index < {})",
                     e->opName(), v, joinInts(where), e->input(1)->toString(), dim,
                     indexed->toString(), size, size);
  return v;
}

// Every index of `index` against dim `dim` of the indexed operand (of size
// `size`), whatever the output: an op whose output is empty reads none of
// them, yet an index out of range is still an error (as in PyTorch).
void checkEveryIndex(const Expr* e, const Tensor& index, const Val* indexed, int64_t dim,
                     int64_t size) {
  for (detail::StridedWalk w(index.sizes(), {index.strides()}); !w.done(); w.next())
    checkedIndex(e, index, w.offset(0), w.index(), indexed, dim, size);
}

std::vector<std::optional<int64_t>> known(const std::vector<int64_t>& sizes) {
  return {sizes.begin(), sizes.end()};
}

void evalIndexSelect(EvalContext& ctx, const Expr* e, int64_t d) {
  const Tensor& in = ctx.tensor(e->input(0));
  const Tensor& index = ctx.tensor(e->input(1));
  FUSEBOX_CHECK(index.dim() <= 1, "index_select with an index of rank {}", index.dim());
  std::vector<int64_t> sizes = in.sizes();
  sizes[d] = index.numel();
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  if (out.numel() == 0) checkEveryIndex(e, index, e->input(0), d, in.sizes()[d]);
  std::vector<int64_t> in_strides = in.strides();
  in_strides[d] = 0;  // added per element from the index
  std::vector<int64_t> index_strides(sizes.size(), 0);
  if (index.dim() == 1) index_strides[d] = index.strides()[0];
  for (detail::StridedWalk w(sizes, {out.strides(), in_strides, index_strides}); !w.done();
       w.next()) {
    std::vector<int64_t> where;
    if (index.dim() == 1) where.push_back(w.index()[d]);
    const int64_t v = checkedIndex(e, index, w.offset(2), where, e->input(0), d, in.sizes()[d]);
    copyElement(in, w.offset(1) + v * in.strides()[d], out, w.offset(0));
  }
  ctx.setTensor(out_tv, std::move(out));
}

void evalSelect(EvalContext& ctx, const Expr* e, int64_t d) {
  const Tensor& in = ctx.tensor(e->input(0));
  const int64_t size = in.sizes()[d];
  int64_t i = ctx.integer(e->input(1));
  FUSEBOX_USER_CHECK(i >= -size && i < size,
                     "select: index {} is out of range for dim {} of {}, of size {} (expected "
                     "-{} <= index < {})",
                     i, d, e->input(0)->toString(), size, size, size);
  if (i < 0) i += size;  // torch.select counts a negative index from the end
  std::vector<int64_t> sizes, strides;
  for (int64_t k = 0; k < in.dim(); ++k) {
    if (k == d) continue;
    sizes.push_back(in.sizes()[k]);
    strides.push_back(in.strides()[k]);
  }
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  copyInto(in.asStrided(sizes, strides, in.storageOffset() + i * in.strides()[d]), out);
  ctx.setTensor(out_tv, std::move(out));
}

void evalGather(EvalContext& ctx, const Expr* e, int64_t d) {
  const Tensor& in = ctx.tensor(e->input(0));
  const Tensor& index = ctx.tensor(e->input(1));
  FUSEBOX_CHECK(index.dim() == in.dim(), "gather of rank {} with an index of rank {}", in.dim(),
                index.dim());
  checkIndexOperandSizes(e, {known(in.sizes()), known(index.sizes())});
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, index.sizes());
  std::vector<int64_t> in_strides = in.strides();
  in_strides[d] = 0;
  for (detail::StridedWalk w(index.sizes(), {out.strides(), in_strides, index.strides()});
       !w.done(); w.next()) {
    const int64_t v = checkedIndex(e, index, w.offset(2), w.index(), e->input(0), d, in.sizes()[d]);
    copyElement(in, w.offset(1) + v * in.strides()[d], out, w.offset(0));
  }
  ctx.setTensor(out_tv, std::move(out));
}

void evalTakeAlongAxis(EvalContext& ctx, const Expr* e, int64_t d) {
  const Tensor& in = ctx.tensor(e->input(0));
  const Tensor& index = ctx.tensor(e->input(1));
  FUSEBOX_CHECK(index.dim() == in.dim(), "take_along_axis of rank {} with an index of rank {}",
                in.dim(), index.dim());
  checkIndexOperandSizes(e, {known(in.sizes()), known(index.sizes())});
  const auto in_ids = e->input(0)->as<TensorView>()->logicalNoReductions();
  // Outside dim d the two broadcast, as elementwise operands do.
  std::vector<int64_t> sizes(in.dim());
  for (int64_t k = 0; k < in.dim(); ++k) {
    const int64_t a = in.sizes()[k], b = index.sizes()[k];
    sizes[k] = k == d || a == b || (a == 1 && canStretch(in_ids[k])) ? b : a;
  }
  std::vector<int64_t> in_strides(in.dim(), 0), index_strides(in.dim(), 0);
  for (int64_t k = 0; k < in.dim(); ++k) {
    if (k != d && in.sizes()[k] == sizes[k]) in_strides[k] = in.strides()[k];
    if (index.sizes()[k] == sizes[k]) index_strides[k] = index.strides()[k];
  }
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  if (out.numel() == 0) checkEveryIndex(e, index, e->input(0), d, in.sizes()[d]);
  for (detail::StridedWalk w(sizes, {out.strides(), in_strides, index_strides}); !w.done();
       w.next()) {
    std::vector<int64_t> where = w.index();
    for (int64_t k = 0; k < in.dim(); ++k)
      if (index_strides[k] == 0 && index.sizes()[k] == 1) where[k] = 0;
    const int64_t v = checkedIndex(e, index, w.offset(2), where, e->input(0), d, in.sizes()[d]);
    copyElement(in, w.offset(1) + v * in.strides()[d], out, w.offset(0));
  }
  ctx.setTensor(out_tv, std::move(out));
}

void evalScatter(EvalContext& ctx, const Expr* e, int64_t d) {
  const Tensor& self = ctx.tensor(e->input(0));
  const Tensor& index = ctx.tensor(e->input(1));
  const Val* src_val = e->input(2);
  FUSEBOX_CHECK(index.dim() == self.dim(), "scatter of rank {} with an index of rank {}",
                self.dim(), index.dim());
  const Tensor* src = src_val->isTensor() ? &ctx.tensor(src_val) : nullptr;
  checkIndexOperandSizes(
      e, {known(self.sizes()), known(index.sizes()),
          src != nullptr ? known(src->sizes()) : std::vector<std::optional<int64_t>>()});
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, self.sizes());
  copyInto(self, out);
  // A scalar src is exact: in error-bound mode it writes a bound of 0.
  const Number value = src != nullptr         ? Number{}
                       : ctx.errorBoundMode() ? Number::ofFloat(0.0)
                                              : ctx.number(src_val);
  std::vector<int64_t> out_strides = out.strides();
  out_strides[d] = 0;
  const std::vector<int64_t> src_strides =
      src != nullptr ? src->strides() : std::vector<int64_t>(self.dim(), 0);
  // Writes in index order, so with repeated indices the last one wins.
  for (detail::StridedWalk w(index.sizes(), {out_strides, index.strides(), src_strides}); !w.done();
       w.next()) {
    const int64_t v =
        checkedIndex(e, index, w.offset(1), w.index(), e->input(0), d, self.sizes()[d]);
    const int64_t target = w.offset(0) + v * out.strides()[d];
    if (src != nullptr)
      copyElement(*src, w.offset(2), out, target);
    else
      storeNumber(out.data(), out.dtype(), target, value);
  }
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace

void checkIndexOperandSizes(const Expr* e,
                            const std::vector<std::vector<std::optional<int64_t>>>& sizes) {
  const int64_t d = e->attr<IndexAttr>().dim;
  const auto& in = sizes.at(0);
  const auto& index = sizes.at(1);
  const std::string outside = fmt::format("; outside dim {} the index may not exceed the input", d);
  // The index may not be larger than `other` (operand `o`) in dim k.
  auto within = [&](size_t o, int64_t k, std::string_view why) {
    const auto& other = sizes[o];
    if (!index[k] || !other[k]) return;
    FUSEBOX_USER_CHECK(*index[k] <= *other[k],
                       "{}: index {} has size {} in dim {}, larger than {} "
                       "({}){}",
                       e->opName(), e->input(1)->toString(), *index[k], k, e->input(o)->toString(),
                       *other[k], why);
  };
  const int64_t rank = static_cast<int64_t>(in.size());
  switch (e->op()) {
    case OpType::Gather:
      for (int64_t k = 0; k < rank; ++k)
        if (k != d) within(0, k, outside);
      return;
    case OpType::Scatter:
      for (int64_t k = 0; k < rank; ++k) {
        if (sizes.size() > 2 && !sizes[2].empty()) within(2, k, "");
        if (k != d) within(0, k, outside);
      }
      return;
    case OpType::TakeAlongAxis: {
      // Outside dim d the two broadcast, as elementwise operands do.
      const auto in_ids = e->input(0)->as<TensorView>()->logicalNoReductions();
      const auto index_ids = e->input(1)->as<TensorView>()->logicalNoReductions();
      for (int64_t k = 0; k < rank; ++k) {
        if (k == d || !in[k] || !index[k]) continue;
        const int64_t a = *in[k], b = *index[k];
        if (a == b || (a == 1 && canStretch(in_ids[k]))) continue;
        FUSEBOX_USER_CHECK(b == 1 && canStretch(index_ids[k]),
                           "take_along_axis: dim {} of the input {} has size {} and of the index "
                           "{} size {}; outside dim {} they must be equal, or 1 in a dim that may "
                           "broadcast",
                           k, e->input(0)->toString(), a, e->input(1)->toString(), b, d);
      }
      return;
    }
    default:
      return;
  }
}

void evalIndexing(EvalContext& ctx, const Expr* e) {
  const int64_t d = e->attr<IndexAttr>().dim;
  switch (e->op()) {
    case OpType::IndexSelect:
      return evalIndexSelect(ctx, e, d);
    case OpType::Select:
      return evalSelect(ctx, e, d);
    case OpType::Gather:
      return evalGather(ctx, e, d);
    case OpType::TakeAlongAxis:
      return evalTakeAlongAxis(ctx, e, d);
    case OpType::Scatter:
      return evalScatter(ctx, e, d);
    default:
      break;
  }
  throw InternalError(fmt::format("evalIndexing: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
