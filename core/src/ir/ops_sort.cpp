// Sorting ops: argsort and topk, whose output at a position depends on every
// element of the input's line along the sorted dim.
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// The sorted dim of x, normalized; x must have one.
int64_t sortedDim(TensorView* x, int64_t dim, const std::string& name) {
  requirePresent(x, name, "input");
  FUSEBOX_USER_CHECK(x->nDims() > 0, "{}: the input {} has rank 0; it needs a dim to sort along",
                     name, describe(x));
  return normalizeDim(dim, x->nDims(), name.c_str());
}

}  // namespace

TensorView* argsort(TensorView* x, int64_t dim, bool descending, bool stable) {
  const std::string name = pyOp("argsort");
  const int64_t d = sortedDim(x, dim, name);
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  auto in = x->logicalNoReductions();
  for (int64_t k = 0; k < x->nDims(); ++k)
    domain.push_back(k == d ? materializedDomain(in[k]) : cloneDomain(in[k]));
  auto* out = f.newTensor(std::move(domain), DataType::Int64);
  f.newExpr(OpType::Argsort, {x}, {out}, SortAttr{d, descending, stable});
  return out;
}

TopKResult topk(TensorView* x, Val* k, int64_t dim, bool largest, bool sorted) {
  const std::string name = pyOp("topk");
  const int64_t d = sortedDim(x, dim, name);
  Scalar* count = requireIntScalar(k, name, "k");
  Fusion& f = fusionOf({x, count}, name);
  auto in = x->logicalNoReductions();
  if (auto value = constInt(count)) {
    FUSEBOX_USER_CHECK(*value >= 0, "{}: k is {}; it must be at least 0", name, *value);
    if (auto size = constInt(in[d]->logicalExtent()))
      FUSEBOX_USER_CHECK(*value <= *size,
                         "{}: k is {} but dim {} of {} has only {} elements to pick from", name,
                         *value, d, describe(x), *size);
  }
  auto make = [&](DataType dtype) {
    std::vector<IterDomain*> domain;
    for (int64_t j = 0; j < x->nDims(); ++j)
      domain.push_back(j == d ? domainForExtent(count, IterType::Symbolic) : cloneDomain(in[j]));
    return f.newTensor(std::move(domain), dtype);
  };
  TensorView* values = make(x->dtype());
  TensorView* indices = make(DataType::Int64);
  f.newExpr(OpType::TopK, {x, count}, {values, indices}, TopKAttr{d, largest, sorted});
  return {values, indices};
}

}  // namespace fusebox
