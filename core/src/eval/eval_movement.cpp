// Data movement: broadcast, squeeze, expand, reshape, permute. Each builds a
// strided view of its input and copies it into a fresh output tensor.
#include <fusebox/checked_math.h>

#include <fmt/format.h>

#include "eval/eval_internal.h"

namespace fusebox::eval_detail {
namespace {

// Copies `view` (a view of the input, already in the output's logical shape)
// into a freshly allocated output.
void emit(EvalContext& ctx, const Expr* e, const Tensor& view) {
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, view.sizes());
  copyInto(view, out);
  ctx.setTensor(out_tv, std::move(out));
}

void evalBroadcast(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const auto& is_bcast = e->attr<BroadcastAttr>().is_broadcast_dim;
  std::vector<int64_t> sizes, strides;
  int64_t next = 0;
  for (bool b : is_bcast) {
    if (b) {
      sizes.push_back(1);
      strides.push_back(0);
    } else {
      FUSEBOX_CHECK(next < in.dim(), "broadcast keeps more dims than its input has");
      sizes.push_back(in.sizes()[next]);
      strides.push_back(in.strides()[next]);
      ++next;
    }
  }
  FUSEBOX_CHECK(next == in.dim(), "broadcast keeps {} of {} input dims", next, in.dim());
  emit(ctx, e, in.asStrided(sizes, strides, in.storageOffset()));
}

void evalSqueeze(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const auto& dims = e->attr<SqueezeAttr>().dims;
  const auto in_ids = e->input(0)->as<TensorView>()->logicalNoReductions();
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      sizes.push_back(in.sizes()[d]);
      strides.push_back(in.strides()[d]);
      continue;
    }
    // An expanded broadcast repeats one value, so squeezing it keeps element 0.
    FUSEBOX_USER_CHECK(in.sizes()[d] == 1 || in_ids[d]->isBroadcast(),
                       "cannot squeeze dim {} of {}: it has size {}, expected 1", d,
                       e->input(0)->toString(), in.sizes()[d]);
    FUSEBOX_USER_CHECK(in.sizes()[d] > 0, "cannot squeeze dim {} of {}: it has size 0", d,
                       e->input(0)->toString());
  }
  emit(ctx, e, in.asStrided(sizes, strides, in.storageOffset()));
}

void evalExpand(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const int64_t rank = in.dim();
  FUSEBOX_CHECK(static_cast<int64_t>(e->inputs().size()) == rank + 1,
                "expand has {} sizes for rank {}", e->inputs().size() - 1, rank);
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t want = ctx.integer(e->input(d + 1));
    const int64_t have = in.sizes()[d];
    FUSEBOX_USER_CHECK(want >= -1, "size {} for dim {} must be >= 0, or -1 to keep the dim", want,
                       d);
    if (want == -1 || want == have) {
      sizes.push_back(have);
      strides.push_back(in.strides()[d]);
      continue;
    }
    FUSEBOX_USER_CHECK(have == 1,
                       "cannot expand dim {} of {} from size {} to {}: only size-1 dims expand", d,
                       e->input(0)->toString(), have, want);
    sizes.push_back(want);
    strides.push_back(0);
  }
  emit(ctx, e, in.asStrided(sizes, strides, in.storageOffset()));
}

void evalReshape(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  std::vector<int64_t> sizes, given;
  int64_t inferred = -1;
  for (size_t d = 1; d < e->inputs().size(); ++d) {
    int64_t s = ctx.integer(e->input(d));
    FUSEBOX_USER_CHECK(s >= -1, "new shape entry {} is {}, expected a size >= 0 or -1", d - 1, s);
    if (s == -1) {
      FUSEBOX_USER_CHECK(inferred < 0, "new shape has more than one -1 entry");
      inferred = static_cast<int64_t>(d - 1);
    } else {
      given.push_back(s);
    }
    sizes.push_back(s);
  }
  const int64_t numel = in.numel();
  const auto product = checked::product(given);
  FUSEBOX_USER_CHECK(product.has_value(),
                     "cannot reshape {} of shape [{}] ({} elements) to [{}]: the number of "
                     "elements overflows int64",
                     e->input(0)->toString(), joinInts(in.sizes()), numel, joinInts(sizes));
  const int64_t known = *product;
  if (inferred >= 0) {
    FUSEBOX_USER_CHECK(known != 0 && numel % known == 0,
                       "cannot reshape {} of shape [{}] ({} elements) to [{}]",
                       e->input(0)->toString(), joinInts(in.sizes()), numel, joinInts(sizes));
    sizes[inferred] = numel / known;
  }
  FUSEBOX_USER_CHECK(inferred >= 0 || known == numel,
                     "cannot reshape {} of shape [{}] ({} elements) to [{}] ({} elements)",
                     e->input(0)->toString(), joinInts(in.sizes()), numel, joinInts(sizes), known);
  // Row-major order of a dense copy defines which element goes where.
  Tensor dense = in.contiguous();
  emit(ctx, e, dense.asStrided(sizes, contiguousStrides(sizes), dense.storageOffset()));
}

void evalPermute(EvalContext& ctx, const Expr* e) {
  const Tensor& in = ctx.tensor(e->input(0));
  const auto& dims = e->attr<PermuteAttr>().dims;
  FUSEBOX_CHECK(static_cast<int64_t>(dims.size()) == in.dim(), "permute of rank {} with {} dims",
                in.dim(), dims.size());
  std::vector<int64_t> sizes, strides;
  for (int64_t d : dims) {
    sizes.push_back(in.sizes()[d]);
    strides.push_back(in.strides()[d]);
  }
  emit(ctx, e, in.asStrided(sizes, strides, in.storageOffset()));
}

}  // namespace

void evalMovement(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Broadcast:
      evalBroadcast(ctx, e);
      return;
    case OpType::Squeeze:
      evalSqueeze(ctx, e);
      return;
    case OpType::Expand:
      evalExpand(ctx, e);
      return;
    case OpType::Reshape:
      evalReshape(ctx, e);
      return;
    case OpType::Permute:
      evalPermute(ctx, e);
      return;
    default:
      break;
  }
  throw InternalError(fmt::format("evalMovement: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
