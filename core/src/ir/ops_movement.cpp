// Data movement: set, segment_set, broadcast, broadcast_in_dim, squeeze,
// expand, reshape, permute. These change the shape, never the values.
#include <fusebox/checked_math.h>

#include <fmt/format.h>
#include <algorithm>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

TensorView* copyOp(OpType op, TensorView* x) {
  const std::string name = pyOp(toString(op));
  requirePresent(x, name, "input");
  Fusion& f = *x->fusion();
  auto* out = f.newTensor(cloneDomains(x), x->dtype());
  f.newExpr(op, {x}, {out});
  return out;
}

std::string boolList(const std::vector<bool>& v) {
  std::vector<std::string> s;
  for (bool b : v) s.push_back(b ? "True" : "False");
  return fmt::format("[{}]", fmt::join(s, ", "));
}

// Shape entries of expand/reshape/broadcast_in_dim: integer scalars, all present.
std::vector<Scalar*> shapeScalars(const std::vector<Val*>& shape, const std::string& op) {
  std::vector<Scalar*> out;
  for (size_t i = 0; i < shape.size(); ++i)
    out.push_back(requireIntScalar(shape[i], op, fmt::format("shape entry {}", i)));
  return out;
}

}  // namespace

TensorView* set(TensorView* x) {
  return copyOp(OpType::Set, x);
}
TensorView* segmentSet(TensorView* x) {
  return copyOp(OpType::SegmentSet, x);
}

TensorView* broadcast(TensorView* x, const std::vector<bool>& is_broadcast_dim) {
  const std::string name = pyOp("broadcast");
  requirePresent(x, name, "input");
  int64_t kept = std::count(is_broadcast_dim.begin(), is_broadcast_dim.end(), false);
  FUSEBOX_USER_CHECK(kept == x->nDims(),
                     "{}: is_broadcast_dim {} has {} False entries, but the input {} has rank {} "
                     "(expected one False entry per input dim)",
                     name, boolList(is_broadcast_dim), kept, describe(x), x->nDims());
  Fusion& f = *x->fusion();
  auto in = x->logicalNoReductions();
  std::vector<IterDomain*> domain;
  size_t next = 0;
  for (bool is_new : is_broadcast_dim)
    domain.push_back(is_new ? f.newIterDomain(f.one(), IterType::Broadcast)
                            : cloneDomain(in[next++]));
  auto* out = f.newTensor(std::move(domain), x->dtype());
  f.newExpr(OpType::Broadcast, {x}, {out}, BroadcastAttr{is_broadcast_dim});
  return out;
}

TensorView* broadcastInDim(TensorView* x, const std::vector<Val*>& shape,
                           const std::vector<int64_t>& broadcast_dims) {
  const std::string name = pyOp("broadcast_in_dim");
  requirePresent(x, name, "input");
  auto sizes = shapeScalars(shape, name);
  const int64_t out_rank = static_cast<int64_t>(shape.size());
  const int64_t in_rank = x->nDims();
  FUSEBOX_USER_CHECK(static_cast<int64_t>(broadcast_dims.size()) == in_rank,
                     "{}: broadcast_dims [{}] needs one entry per input dim of {} ({} entries)",
                     name, fmt::join(broadcast_dims, ", "), describe(x), in_rank);
  auto in = x->logicalNoReductions();
  std::vector<bool> is_new(out_rank, true);
  for (int64_t i = 0; i < in_rank; ++i) {
    int64_t d = broadcast_dims[i];
    FUSEBOX_USER_CHECK(d >= 0 && d < out_rank,
                       "{}: broadcast_dims entry {} is {}, out of range for output rank {}", name,
                       i, d, out_rank);
    FUSEBOX_USER_CHECK(i == 0 || d > broadcast_dims[i - 1],
                       "{}: broadcast_dims must be strictly increasing, got [{}]", name,
                       fmt::join(broadcast_dims, ", "));
    is_new[d] = false;
  }
  for (int64_t i = 0; i < in_rank; ++i) {
    int64_t d = broadcast_dims[i];
    // A non-broadcast input dim keeps its size; shape may repeat it or say -1.
    auto want = constInt(sizes[d]);
    auto have = constInt(in[i]->logicalExtent());
    bool stretchable = in[i]->isBroadcast() && !in[i]->hasExpandedExtent();
    FUSEBOX_USER_CHECK(stretchable || !want || !have || *want == -1 || *want == *have,
                       "{}: input dim {} of {} has size {} but shape entry {} is {}", name, i,
                       describe(x), *have, d, *want);
  }
  for (int64_t d = 0; d < out_rank; ++d) {
    auto c = constInt(sizes[d]);
    FUSEBOX_USER_CHECK(!c || *c >= -1, "{}: shape entry {} is {}; expected a size >= 0 or -1", name,
                       d, *c);
  }

  TensorView* out = x;
  if (out_rank > in_rank) out = broadcast(x, is_new);
  // Broadcast dims (new ones, or input ones of size 1) that shape gives another
  // size are expanded. A kept dim whose size shape gives but cannot be proved
  // equal here (a symbolic extent) goes into the expand too: the expand then
  // carries the check that the sizes agree at run time.
  auto dims = out->logicalNoReductions();
  std::vector<bool> expand_dim(out_rank);
  for (int64_t d = 0; d < out_rank; ++d)
    expand_dim[d] = !isConstInt(sizes[d], -1) && !sameInt(sizes[d], dims[d]->logicalExtent());
  if (std::find(expand_dim.begin(), expand_dim.end(), true) != expand_dim.end()) {
    std::vector<Val*> expand_shape;
    for (int64_t d = 0; d < out_rank; ++d)
      expand_shape.push_back(expand_dim[d] ? sizes[d] : x->fusion()->constantInt(-1));
    return expand(out, expand_shape);
  }
  // Always a fresh tensor, never the input itself, even when nothing changes.
  return out == x ? set(x) : out;
}

TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims, bool squeeze_expanded) {
  const std::string name = pyOp("squeeze");
  requirePresent(x, name, "input");
  auto in = x->logicalNoReductions();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> sorted;
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank, name.c_str());
    FUSEBOX_USER_CHECK(std::find(sorted.begin(), sorted.end(), n) == sorted.end(),
                       "{}: dim {} appears more than once in dims [{}]", name, n,
                       fmt::join(dims, ", "));
    // Squeezable: a broadcast, a dim of constant size 1, or a Symbolic dim
    // (its size is checked once the input signature is known). An expanded
    // broadcast repeats one value, so dropping it loses nothing, but as in
    // nvFuser the caller has to say so (squeeze_expanded=True).
    IterDomain* id = in[n];
    Scalar* size = id->logicalExtent();
    if (id->isBroadcast() && id->hasExpandedExtent() && !isConstInt(size, 1)) {
      FUSEBOX_USER_CHECK(squeeze_expanded,
                         "{}: dim {} of {} is a broadcast expanded to {}; pass "
                         "squeeze_expanded=True to squeeze it",
                         name, n, describe(x), describe(size));
      // Dropping a dim of size 0 would make elements out of an empty tensor.
      FUSEBOX_USER_CHECK(!isConstInt(size, 0),
                         "{}: dim {} of {} is a broadcast expanded to 0; squeezing it would make "
                         "values out of an empty tensor",
                         name, n, describe(x));
      sorted.push_back(n);
      continue;
    }
    bool ok = isConstInt(size, 1) || (id->isSymbolic() && !constInt(size));
    FUSEBOX_USER_CHECK(ok,
                       "{}: dim {} of {} has size {}; only broadcast or size-1 dims can be "
                       "squeezed",
                       name, n, describe(x), describe(size));
    sorted.push_back(n);
  }
  std::sort(sorted.begin(), sorted.end());
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  for (int64_t d = 0; d < rank; ++d)
    if (!std::binary_search(sorted.begin(), sorted.end(), d)) domain.push_back(cloneDomain(in[d]));
  auto* out = f.newTensor(std::move(domain), x->dtype());
  f.newExpr(OpType::Squeeze, {x}, {out}, SqueezeAttr{sorted});
  return out;
}

TensorView* expand(TensorView* x, const std::vector<Val*>& shape) {
  const std::string name = pyOp("expand");
  requirePresent(x, name, "input");
  auto sizes = shapeScalars(shape, name);
  auto in = x->logicalNoReductions();
  FUSEBOX_USER_CHECK(sizes.size() == in.size(),
                     "{}: shape {} has {} entries but the input {} has rank {}", name,
                     describeVals(shape), sizes.size(), describe(x), in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    auto want = constInt(sizes[d]);
    FUSEBOX_USER_CHECK(!want || *want >= -1,
                       "{}: shape entry {} is {}; expected a size >= 0, or -1 to keep the dim",
                       name, d, *want);
    if (in[d]->isBroadcast() || !want || *want == -1) continue;
    auto have = constInt(in[d]->extent());
    FUSEBOX_USER_CHECK(!have || *have == *want,
                       "{}: dim {} of {} has size {} and is not a broadcast; it cannot be "
                       "expanded to {}",
                       name, d, describe(x), *have, *want);
  }
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  for (size_t d = 0; d < in.size(); ++d) {
    IterDomain* id = in[d];
    Scalar* size = sizes[d];
    if (!id->isBroadcast() && !constInt(id->extent()) && constInt(size) && !isConstInt(size, -1)) {
      // A symbolic dim asked for a constant size: at run time it is that size
      // or 1 (stretched to it; checked then), so the output has that size.
      domain.push_back(f.newIterDomain(size, id->iterType()));
    } else if (!id->isBroadcast() || isConstInt(size, -1)) {
      domain.push_back(cloneDomain(id));
    } else if (isConstInt(size, 1)) {
      domain.push_back(f.newIterDomain(id->extent(), IterType::Broadcast));
    } else {
      domain.push_back(f.newIterDomain(id->extent(), IterType::Broadcast, size));
    }
  }
  auto* out = f.newTensor(std::move(domain), x->dtype());
  std::vector<Val*> operands = {x};
  operands.insert(operands.end(), sizes.begin(), sizes.end());
  f.newExpr(OpType::Expand, std::move(operands), {out});
  return out;
}

TensorView* reshape(TensorView* x, const std::vector<Val*>& new_shape) {
  const std::string name = pyOp("reshape");
  requirePresent(x, name, "input");
  auto sizes = shapeScalars(new_shape, name);
  Fusion& f = *x->fusion();
  int64_t inferred = -1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    auto c = constInt(sizes[d]);
    if (!c) continue;
    FUSEBOX_USER_CHECK(*c >= -1, "{}: new_shape entry {} is {}; expected a size >= 0 or -1", name,
                       d, *c);
    if (*c != -1) continue;
    FUSEBOX_USER_CHECK(inferred < 0, "{}: new_shape {} has more than one -1 entry", name,
                       describeVals(new_shape));
    inferred = static_cast<int64_t>(d);
  }
  // The element counts of the input and of the sizes the user gave, where all
  // are constant (-1: the count overflows int64).
  auto constantProduct = [](const std::vector<Scalar*>& extents) -> std::optional<int64_t> {
    std::vector<int64_t> values;
    for (Scalar* e : extents) {
      auto c = constInt(e);
      if (!c) return std::nullopt;
      values.push_back(*c);
    }
    return checked::product(values).value_or(-1);
  };
  std::vector<Scalar*> in_sizes, given;
  for (auto* id : x->logicalNoReductions()) in_sizes.push_back(id->logicalExtent());
  for (size_t d = 0; d < sizes.size(); ++d)
    if (static_cast<int64_t>(d) != inferred) given.push_back(sizes[d]);
  // A tensor's count fits (Fusion::newTensor checks), so only new_shape's can overflow.
  std::optional<int64_t> in_numel = constantProduct(in_sizes);
  std::optional<int64_t> known_product = constantProduct(given);
  FUSEBOX_USER_CHECK(known_product != -1,
                     "{}: cannot reshape {} to {}: the number of elements overflows int64", name,
                     describe(x), describeVals(new_shape));
  if (in_numel && known_product) {
    if (inferred >= 0 && *known_product == 0) {
      FUSEBOX_USER_CHECK(*in_numel != 0,
                         "{}: cannot reshape {} (0 elements) to {}: the unspecified dimension "
                         "size -1 can be any value",
                         name, describe(x), describeVals(new_shape));
      throw UserError(
          fmt::format("{}: cannot reshape {} ({} elements) to {}: with a 0 beside "
                      "it, no size for -1 gives that many elements",
                      name, describe(x), *in_numel, describeVals(new_shape)));
    }
    if (inferred >= 0)
      FUSEBOX_USER_CHECK(*in_numel % *known_product == 0,
                         "{}: cannot reshape {} ({} elements) to {}: {} is not a multiple of {}",
                         name, describe(x), *in_numel, describeVals(new_shape), *in_numel,
                         *known_product);
    else
      FUSEBOX_USER_CHECK(*in_numel == *known_product,
                         "{}: cannot reshape {} ({} elements) to {} ({} elements)", name,
                         describe(x), *in_numel, describeVals(new_shape), *known_product);
  }

  std::vector<IterDomain*> domain;
  for (size_t d = 0; d < sizes.size(); ++d) {
    Scalar* extent = sizes[d];
    if (static_cast<int64_t>(d) == inferred) {
      std::vector<Scalar*> in_sizes, others;
      for (auto* id : x->logicalNoReductions()) in_sizes.push_back(id->logicalExtent());
      for (size_t k = 0; k < sizes.size(); ++k)
        if (k != d) others.push_back(sizes[k]);
      extent = divExtent(productExtent(f, in_sizes), productExtent(f, others));
    }
    domain.push_back(domainForExtent(extent, IterType::Symbolic));
  }
  auto* out = f.newTensor(std::move(domain), x->dtype());
  std::vector<Val*> operands = {x};
  operands.insert(operands.end(), sizes.begin(), sizes.end());
  f.newExpr(OpType::Reshape, std::move(operands), {out});
  return out;
}

TensorView* permute(TensorView* x, const std::vector<int64_t>& dims) {
  const std::string name = pyOp("permute");
  requirePresent(x, name, "input");
  auto in = x->logicalNoReductions();
  const int64_t rank = static_cast<int64_t>(in.size());
  FUSEBOX_USER_CHECK(static_cast<int64_t>(dims.size()) == rank,
                     "{}: dims [{}] must have one entry per dim of {} (rank {})", name,
                     fmt::join(dims, ", "), describe(x), rank);
  std::vector<int64_t> normalized;
  for (int64_t d : dims) normalized.push_back(normalizeDim(d, rank, name.c_str()));
  FUSEBOX_USER_CHECK(isPermutation(normalized), "{}: dims [{}] is not a permutation of 0..{}", name,
                     fmt::join(dims, ", "), rank - 1);
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  for (int64_t d : normalized) domain.push_back(cloneDomain(in[d]));
  auto* out = f.newTensor(std::move(domain), x->dtype());
  f.newExpr(OpType::Permute, {x}, {out}, PermuteAttr{normalized});
  return out;
}

}  // namespace fusebox
