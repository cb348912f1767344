// Resize ops: slice, pad, cat. Their output extents are scalar expressions of
// the input extents, constant-folded where the sizes are known.
#include <fusebox/checked_math.h>

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// A slice index as torch reads it: negative counts from the end, then clamped
// to [0, extent].
Scalar* normalizeIndex(Scalar* index, Scalar* extent) {
  Fusion& f = *index->fusion();
  if (index == extent) return extent;
  auto i = constInt(index);
  auto e = constInt(extent);
  if (i && e) {
    int64_t v = *i < 0 ? *i + *e : *i;
    return f.constantInt(std::clamp<int64_t>(v, 0, *e));
  }
  if (i && *i >= 0) return *i == 0 ? index : minExtent(index, extent);
  // extent - |i|; INT64_MIN has no negation, but extent + INT64_MIN cannot overflow.
  if (i)
    return maxExtent(f.zero(), *i == std::numeric_limits<int64_t>::min()
                                   ? addExtent(extent, index)
                                   : subExtent(extent, f.constantInt(-*i)));
  // Symbolic index: max(0, min(where(i < 0, i + extent, i), extent)).
  Scalar* wrapped = ternaryOp(TernaryOpType::Where, binaryOp(BinaryOpType::Lt, index, f.zero()),
                              addExtent(index, extent), index)
                        ->as<Scalar>();
  return maxExtent(f.zero(), minExtent(wrapped, extent));
}

}  // namespace

TensorView* slice(TensorView* x, const std::vector<Val*>& starts, const std::vector<Val*>& stops,
                  const std::vector<Val*>& steps) {
  const std::string name = pyOp("slice");
  requirePresent(x, name, "input");
  auto in = x->logicalNoReductions();
  const size_t rank = in.size();
  FUSEBOX_USER_CHECK(
      starts.size() == rank && stops.size() == rank && (steps.empty() || steps.size() == rank),
      "{}: start_indices, end_indices and strides need one entry per dim of {} "
      "(rank {}), got {}, {} and {}",
      name, describe(x), rank, starts.size(), stops.size(), steps.size());
  std::vector<Scalar*> start, stop, step;
  for (size_t d = 0; d < rank; ++d) {
    start.push_back(requireIntScalar(starts[d], name, fmt::format("start index {}", d)));
    stop.push_back(requireIntScalar(stops[d], name, fmt::format("end index {}", d)));
    if (steps.empty()) continue;
    step.push_back(requireIntScalar(steps[d], name, fmt::format("stride {}", d)));
    auto c = constInt(step[d]);
    FUSEBOX_USER_CHECK(c && *c > 0, "{}: stride {} must be a positive constant, got {}", name, d,
                       describe(step[d]));
  }
  Fusion& f = *x->fusion();
  if (steps.empty())
    for (size_t d = 0; d < rank; ++d) step.push_back(f.one());

  std::vector<IterDomain*> domain;
  for (size_t d = 0; d < rank; ++d) {
    Scalar* extent = in[d]->logicalExtent();
    Scalar* begin = normalizeIndex(start[d], extent);
    Scalar* end = normalizeIndex(stop[d], extent);
    if (isConstInt(begin, 0) && isConstInt(step[d], 1) && sameInt(end, extent)) {
      domain.push_back(cloneDomain(in[d]));  // the whole dim
      continue;
    }
    // Both indices are already in [0, extent]; only their difference can be negative.
    Scalar* length = isConstInt(begin, 0) ? end : maxExtent(f.zero(), subExtent(end, begin));
    domain.push_back(domainForExtent(ceilDivExtent(length, step[d]), IterType::Symbolic));
  }
  auto* out = f.newTensor(std::move(domain), x->dtype());
  std::vector<Val*> operands = {x};
  operands.insert(operands.end(), start.begin(), start.end());
  operands.insert(operands.end(), stop.begin(), stop.end());
  operands.insert(operands.end(), step.begin(), step.end());
  f.newExpr(OpType::Slice, std::move(operands), {out});
  return out;
}

TensorView* pad(TensorView* x, const std::vector<Val*>& pad_widths, Val* value) {
  const std::string name = pyOp("pad");
  requirePresent(x, name, "input");
  auto in = x->logicalNoReductions();
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t n = static_cast<int64_t>(pad_widths.size());
  FUSEBOX_USER_CHECK(n % 2 == 0 && n <= 2 * rank,
                     "{}: pad_widths {} must have an even number of entries, at most 2 * rank = "
                     "{} for {}",
                     name, describeVals(pad_widths), 2 * rank, describe(x));
  std::vector<Scalar*> widths;
  for (int64_t i = 0; i < n; ++i)
    widths.push_back(requireIntScalar(pad_widths[i], name, fmt::format("pad width {}", i)));
  FUSEBOX_USER_CHECK(value == nullptr || value->isScalar(),
                     "{}: the pad value must be a scalar, got tensor {}", name,
                     value ? value->toString() : "");
  // Constant widths can shrink a constant dim below zero (negative pads crop).
  for (int64_t k = 0; k < n / 2; ++k) {
    int64_t d = rank - 1 - k;
    auto e = constInt(in[d]->logicalExtent());
    auto l = constInt(widths[2 * k]), r = constInt(widths[2 * k + 1]);
    if (!e || !l || !r) continue;
    // In the order the output extent computes it: ( ( left + extent ) + right ).
    auto size = checked::add(checked::add(*l, *e), *r);
    FUSEBOX_USER_CHECK(size.has_value(),
                       "{}: padding dim {} of {} by ({}, {}) gives a size that overflows int64",
                       name, d, describe(x), *l, *r);
    FUSEBOX_USER_CHECK(*size >= 0, "{}: padding dim {} of {} by ({}, {}) gives a negative size {}",
                       name, d, describe(x), *l, *r, *size);
  }
  Fusion& f = *x->fusion();
  if (value == nullptr) value = f.constant(int64_t{0}, x->dtype());
  std::vector<IterDomain*> domain;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t k = rank - 1 - d;  // position of this dim's (left, right) pair
    if (k >= n / 2 || (isConstInt(widths[2 * k], 0) && isConstInt(widths[2 * k + 1], 0))) {
      domain.push_back(cloneDomain(in[d]));
      continue;
    }
    Scalar* extent = addExtent(addExtent(widths[2 * k], in[d]->logicalExtent()), widths[2 * k + 1]);
    domain.push_back(domainForExtent(extent, IterType::Symbolic));
  }
  auto* out = f.newTensor(std::move(domain), x->dtype());
  std::vector<Val*> operands = {x, value};
  operands.insert(operands.end(), widths.begin(), widths.end());
  f.newExpr(OpType::Pad, std::move(operands), {out});
  return out;
}

TensorView* cat(const std::vector<TensorView*>& xs, int64_t dim) {
  const std::string name = pyOp("cat");
  FUSEBOX_USER_CHECK(!xs.empty(), "{}: needs at least one tensor", name);
  std::vector<std::string> names;
  for (size_t i = 0; i < xs.size(); ++i) {
    requirePresent(xs[i], name, fmt::format("tensor {}", i));
    names.push_back(fmt::format("tensor {} ({})", i, describe(xs[i])));
  }
  fusionOf(std::vector<Val*>(xs.begin(), xs.end()), name);
  const int64_t rank = xs[0]->nDims();
  for (size_t i = 1; i < xs.size(); ++i)
    FUSEBOX_USER_CHECK(xs[i]->nDims() == rank,
                       "{}: all tensors need the same rank; {} has rank {} but {} has rank {}",
                       name, names[0], rank, names[i], xs[i]->nDims());
  FUSEBOX_USER_CHECK(rank > 0, "{}: cannot concatenate zero-dim tensors ({})", name, names[0]);
  const int64_t d = normalizeDim(dim, rank, name.c_str());
  auto dimsAt = [&](const std::vector<TensorView*>& ts, int64_t k) {
    std::vector<IterDomain*> ids;
    for (auto* t : ts) ids.push_back(t->logicalNoReductions()[k]);
    return ids;
  };
  for (int64_t k = 0; k < rank; ++k)
    if (k != d) checkDimsAgree(dimsAt(xs, k), names, name, k, /*broadcasting=*/false);

  // torch.cat promotes to a common dtype.
  std::vector<PromotionOperand> types;
  for (auto* t : xs) types.push_back({t->dtype(), true});
  DataType dtype = resultType(types.data(), types.data() + types.size());
  std::vector<TensorView*> operands;
  for (auto* t : xs) operands.push_back(t->dtype() == dtype ? t : castOp(dtype, t));

  Fusion& f = *xs[0]->fusion();
  std::vector<IterDomain*> domain;
  for (int64_t k = 0; k < rank; ++k) {
    if (k != d) {
      domain.push_back(unifyDims(dimsAt(operands, k), names, name, k, false));
      continue;
    }
    Scalar* total = f.zero();
    bool any_iteration = false;
    for (IterDomain* id : dimsAt(operands, k)) {
      total = addExtent(total, id->logicalExtent());
      any_iteration |= id->isIteration();
    }
    domain.push_back(
        domainForExtent(total, any_iteration ? IterType::Iteration : IterType::Symbolic));
  }
  auto* out = f.newTensor(std::move(domain), dtype);
  f.newExpr(OpType::Cat, std::vector<Val*>(operands.begin(), operands.end()), {out}, CatAttr{d});
  return out;
}

}  // namespace fusebox
