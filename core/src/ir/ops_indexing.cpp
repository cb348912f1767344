// Indexing ops: index_select, select, gather, take_along_axis, scatter and
// embedding (index_select of weight rows). Index values are data, so shape
// inference checks only what sizes decide; ranges are checked when the op runs.
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// The checks every indexing op starts with; returns the normalized dim.
int64_t indexedDim(const TensorView* x, int64_t dim, const std::string& op) {
  requirePresent(x, op, "input");
  FUSEBOX_USER_CHECK(x->nDims() > 0, "{}: the input {} has rank 0; it needs a dim to index", op,
                     describe(x));
  return normalizeDim(dim, x->nDims(), op.c_str());
}

void requireSameRank(const TensorView* x, const TensorView* other, const std::string& op,
                     std::string_view other_role) {
  FUSEBOX_USER_CHECK(other->nDims() == x->nDims(),
                     "{}: the {} {} has rank {} but the input {} has rank {} (expected equal "
                     "ranks)",
                     op, other_role, describe(other), other->nDims(), describe(x), x->nDims());
}

// Constant sizes that cannot hold: `small` must not exceed `large` at dim d.
void requireNotLarger(const TensorView* small, std::string_view small_role, const TensorView* large,
                      std::string_view large_role, int64_t d, const std::string& op,
                      std::string_view why) {
  auto s = constInt(small->axis(d)->logicalExtent());
  auto l = constInt(large->axis(d)->logicalExtent());
  FUSEBOX_USER_CHECK(!s || !l || *s <= *l,
                     "{}: the {} {} has size {} in dim {}, larger than the {} {} ({}){}", op,
                     small_role, describe(small), *s, d, large_role, describe(large), *l, why);
}

// The checks of an op reading Int/Int32 `index` into `x` (of x's rank when
// `same_rank`); returns the normalized dim.
int64_t checkIndexOperands(TensorView* x, TensorView* index, int64_t dim, const std::string& op,
                           bool same_rank) {
  const int64_t d = indexedDim(x, dim, op);
  requireIndexTensor(index, op, "index");
  fusionOf({x, index}, op);
  if (same_rank) requireSameRank(x, index, op, "index");
  return d;
}

// Outside dim d the index must not exceed the input (gather, scatter).
void requireIndexWithinInput(const TensorView* x, const TensorView* index, int64_t d,
                             const std::string& op) {
  for (int64_t k = 0; k < x->nDims(); ++k)
    if (k != d)
      requireNotLarger(index, "index", x, "input", k, op,
                       fmt::format(" (outside dim {} the index may not exceed the input)", d));
}

// An index into a dim of constant size 0 can never be in range.
void requireIndexable(const TensorView* x, int64_t d, const TensorView* index,
                      const std::string& op) {
  auto size = constInt(x->axis(d)->logicalExtent());
  if (!size || *size != 0) return;
  bool index_empty = false;
  for (IterDomain* id : index->logicalNoReductions())
    index_empty |= isConstInt(id->logicalExtent(), 0);
  FUSEBOX_USER_CHECK(index_empty, "{}: dim {} of {} has size 0, so no index of {} can be in range",
                     op, d, describe(x), describe(index));
}

TensorView* makeIndexOp(OpType op, std::vector<Val*> operands, std::vector<IterDomain*> domain,
                        DataType dtype, int64_t dim) {
  Fusion& f = *operands[0]->fusion();
  auto* out = f.newTensor(std::move(domain), dtype);
  f.newExpr(op, std::move(operands), {out}, IndexAttr{dim});
  return out;
}

}  // namespace

TensorView* indexSelect(TensorView* x, TensorView* index, int64_t dim) {
  const std::string name = pyOp("index_select");
  const int64_t d = checkIndexOperands(x, index, dim, name, /*same_rank=*/false);
  FUSEBOX_USER_CHECK(index->nDims() <= 1,
                     "{}: the index {} has rank {}; index_select takes a vector of indices "
                     "(rank 0 or 1)",
                     name, describe(index), index->nDims());
  requireIndexable(x, d, index, name);
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  auto in = x->logicalNoReductions();
  for (int64_t k = 0; k < x->nDims(); ++k) {
    if (k != d) {
      domain.push_back(cloneDomain(in[k]));
      continue;
    }
    if (index->nDims() == 0) {
      domain.push_back(f.newIterDomain(f.one(), IterType::Broadcast));  // one index: size 1
      continue;
    }
    IterDomain* id = index->axis(0);
    domain.push_back(domainForExtent(id->logicalExtent(),
                                     id->isSymbolic() ? IterType::Symbolic : IterType::Iteration));
  }
  return makeIndexOp(OpType::IndexSelect, {x, index}, std::move(domain), x->dtype(), d);
}

TensorView* select(TensorView* x, Val* index, int64_t dim) {
  const std::string name = pyOp("select");
  const int64_t d = indexedDim(x, dim, name);
  Scalar* i = requireIntScalar(index, name, "index");
  fusionOf({x, i}, name);
  auto size = constInt(x->axis(d)->logicalExtent());
  auto value = constInt(i);
  // As torch.select: a negative index counts from the end.
  FUSEBOX_USER_CHECK(!size || !value || (*value >= -*size && *value < *size),
                     "{}: index {} is out of range for dim {} of {} (size {}; expected {}..{})",
                     name, *value, d, describe(x), *size, -*size, *size - 1);
  std::vector<IterDomain*> domain;
  auto in = x->logicalNoReductions();
  for (int64_t k = 0; k < x->nDims(); ++k)
    if (k != d) domain.push_back(cloneDomain(in[k]));
  return makeIndexOp(OpType::Select, {x, i}, std::move(domain), x->dtype(), d);
}

TensorView* gather(TensorView* x, TensorView* index, int64_t dim) {
  const std::string name = pyOp("gather");
  const int64_t d = checkIndexOperands(x, index, dim, name, /*same_rank=*/true);
  requireIndexWithinInput(x, index, d, name);
  requireIndexable(x, d, index, name);
  std::vector<IterDomain*> domain;
  for (IterDomain* id : index->logicalNoReductions()) domain.push_back(materializedDomain(id));
  return makeIndexOp(OpType::Gather, {x, index}, std::move(domain), x->dtype(), d);
}

TensorView* takeAlongAxis(TensorView* x, TensorView* index, int64_t dim) {
  const std::string name = pyOp("take_along_axis");
  const int64_t d = checkIndexOperands(x, index, dim, name, /*same_rank=*/true);
  const std::vector<std::string> names = {fmt::format("input {}", describe(x)),
                                          fmt::format("index {}", describe(index))};
  auto in = x->logicalNoReductions(), idx = index->logicalNoReductions();
  for (int64_t k = 0; k < x->nDims(); ++k)
    if (k != d) checkDimsAgree({in[k], idx[k]}, names, name, k, /*broadcasting=*/true);
  requireIndexable(x, d, index, name);
  std::vector<IterDomain*> domain;
  for (int64_t k = 0; k < x->nDims(); ++k)
    domain.push_back(k == d ? materializedDomain(idx[k])
                            : unifyDims({in[k], idx[k]}, names, name, k, /*broadcasting=*/true));
  return makeIndexOp(OpType::TakeAlongAxis, {x, index}, std::move(domain), x->dtype(), d);
}

TensorView* scatter(TensorView* self, TensorView* index, Val* src, int64_t dim) {
  const std::string name = pyOp("scatter");
  const int64_t d = checkIndexOperands(self, index, dim, name, /*same_rank=*/true);
  requirePresent(src, name, "src");
  fusionOf({self, index, src}, name);
  if (src->isTensor()) {
    auto* s = src->as<TensorView>();
    FUSEBOX_USER_CHECK(s->dtype() == self->dtype(),
                       "{}: src {} is {} but the input {} is {} (torch.scatter needs equal "
                       "dtypes; cast one of them)",
                       name, describe(s), pythonName(s->dtype()), describe(self),
                       pythonName(self->dtype()));
    requireSameRank(self, s, name, "src");
    for (int64_t k = 0; k < self->nDims(); ++k)
      requireNotLarger(index, "index", s, "src", k, name, "");
  }
  requireIndexWithinInput(self, index, d, name);
  requireIndexable(self, d, index, name);
  std::vector<IterDomain*> domain;
  for (IterDomain* id : self->logicalNoReductions()) domain.push_back(materializedDomain(id));
  return makeIndexOp(OpType::Scatter, {self, index, src}, std::move(domain), self->dtype(), d);
}

TensorView* embedding(TensorView* input, TensorView* weight) {
  const std::string name = pyOp("embedding_fwd");
  requireIndexTensor(input, name, "input");
  requirePresent(weight, name, "weight");
  fusionOf({input, weight}, name);
  FUSEBOX_USER_CHECK(weight->nDims() == 2,
                     "{}: weight {} has rank {}; expected a 2-D [num_embeddings, embedding_dim] "
                     "tensor",
                     name, describe(weight), weight->nDims());
  if (input->nDims() == 1) return indexSelect(weight, input, 0);
  // Rows of the flattened indices, then the input's shape with a row each.
  Fusion& f = *input->fusion();
  TensorView* rows = indexSelect(weight, reshape(input, {f.constantInt(-1)}), 0);
  std::vector<Val*> shape;
  for (IterDomain* id : input->logicalNoReductions()) shape.push_back(id->logicalExtent());
  shape.push_back(weight->axis(1)->logicalExtent());
  return reshape(rows, shape);
}

}  // namespace fusebox
