// Tensor creation: full, iota, and Philox random numbers (uniform, normal).
// The element -> random word mapping is specified in docs/random.md.
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "eval/eval_internal.h"
#include "fusebox_runtime/philox.cuh"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

std::vector<int64_t> shapeFrom(EvalContext& ctx, const Expr* e, size_t first, size_t count) {
  std::vector<int64_t> sizes;
  for (size_t k = 0; k < count; ++k) {
    const int64_t s = ctx.integer(e->input(first + k));
    FUSEBOX_USER_CHECK(s >= 0, "shape entry {} is {}, expected a size >= 0", k, s);
    sizes.push_back(s);
  }
  return sizes;
}

// Calls value(i) for every element, i = its row-major index, and stores the result.
template <class F>
void fillRowMajor(Tensor& out, F value) {
  int64_t i = 0;
  for (detail::StridedWalk w(out.sizes(), {out.strides()}); !w.done(); w.next(), ++i)
    storeNumber(out.data(), out.dtype(), w.offset(0), value(i));
}

void evalFull(EvalContext& ctx, const Expr* e) {
  const Number fill = ctx.number(e->input(0));
  const auto sizes = shapeFrom(ctx, e, 1, e->inputs().size() - 1);
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  fillRowMajor(out, [&](int64_t) { return fill; });
  ctx.setTensor(out_tv, std::move(out));
}

void evalIota(EvalContext& ctx, const Expr* e) {
  const int64_t length = ctx.integer(e->input(0));
  FUSEBOX_USER_CHECK(length >= 0, "length is {}, expected >= 0", length);
  const Number start = ctx.number(e->input(1));
  const Number step = ctx.number(e->input(2));
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, {length});
  if (isFloatingType(out.dtype())) {
    const double a = start.asDouble(), s = step.asDouble();
    fillRowMajor(out, [&](int64_t i) { return Number::ofFloat(a + static_cast<double>(i) * s); });
  } else {
    const uint64_t a = static_cast<uint64_t>(start.asInt()),
                   s = static_cast<uint64_t>(step.asInt());
    fillRowMajor(out, [&](int64_t i) {
      return Number::ofInt(static_cast<int64_t>(a + static_cast<uint64_t>(i) * s));
    });
  }
  ctx.setTensor(out_tv, std::move(out));
}

// Element i (row-major) of a rand output, for seed/offset (0/0 when absent):
//   draw k in [0, 1): narrow dtypes: (word(k) >> 8) * 2^-24;
//                     double: ((word(2k+1) << 32 | word(2k)) >> 11) * 2^-53,
//   where word(j) is lane j % 4 of Philox4x32-10(counter = {lo(j/4), hi(j/4),
//   lo(offset), hi(offset)}, key = {lo(seed), hi(seed)}) (fusebox_runtime/philox.cuh);
//   uniform: narrow dtypes: fma(float(high - low), draw(i), float(low)) in float;
//            double: low + (high - low) * draw(i);
//   normal:  mean + std * sqrt(-2 ln(1 - draw(2i))) * cos(2 pi draw(2i + 1)),
// in double, rounded once to the dtype. docs/random.md is the full contract.
void evalRand(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<RandAttr>();
  const size_t extra = attr.has_seed ? 4 : 2;
  FUSEBOX_CHECK(e->inputs().size() >= extra, "rand with {} operands", e->inputs().size());
  const size_t rank = e->inputs().size() - extra;
  const auto sizes = shapeFrom(ctx, e, 0, rank);
  const double a = ctx.number(e->input(rank)).asDouble();
  const double b = ctx.number(e->input(rank + 1)).asDouble();
  // Without explicit operands the stream is seed 0, offset 0 (docs/random.md).
  uint64_t seed = 0, offset = 0;
  if (attr.has_seed) {
    seed = static_cast<uint64_t>(ctx.integer(e->input(rank + 2)));
    offset = static_cast<uint64_t>(ctx.integer(e->input(rank + 3)));
  }
  const auto* out_tv = e->output(0)->as<TensorView>();
  Tensor out = ctx.allocate(out_tv, sizes);
  // One word per uniform draw for the narrow types, two for double.
  const bool wide = out.dtype() == DataType::Double;
  // One Philox call per four words (philox::Stream keeps the last block).
  philox::Stream stream{seed, offset};
  // The k-th uniform draw of the stream, in [0, 1).
  auto draw = [&](uint64_t k) { return philox::draw(stream, k, wide); };
  if (attr.dist == RandomDistribution::Uniform && !wide) {
    const float low = static_cast<float>(a), range = static_cast<float>(b - a);
    fillRowMajor(out, [&](int64_t i) {
      return Number::ofFloat(philox::uniformNarrow(stream, static_cast<uint64_t>(i), low, range));
    });
  } else if (attr.dist == RandomDistribution::Uniform) {
    fillRowMajor(out, [&](int64_t i) {
      return Number::ofFloat(a + (b - a) * draw(static_cast<uint64_t>(i)));
    });
  } else {
    // Box-Muller on draws 2i and 2i + 1; 1 - x keeps the logarithm's argument in (0, 1].
    fillRowMajor(out, [&](int64_t i) {
      const double u1 = 1.0 - draw(2 * static_cast<uint64_t>(i));
      const double u2 = draw(2 * static_cast<uint64_t>(i) + 1);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return Number::ofFloat(a + b * z);
    });
  }
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace

void evalCreation(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Full:
      evalFull(ctx, e);
      return;
    case OpType::Iota:
      evalIota(ctx, e);
      return;
    case OpType::Rand:
      evalRand(ctx, e);
      return;
    default:
      break;
  }
  throw InternalError(fmt::format("evalCreation: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
