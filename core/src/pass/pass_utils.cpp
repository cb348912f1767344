#include <fusebox/ir/ops.h>
#include <fusebox/pass_utils.h>

#include <algorithm>

namespace fusebox {

std::optional<int64_t> constantInt(const Scalar* s) {
  if (s == nullptr || !s->isConst() || !isIntegralType(s->dtype())) return std::nullopt;
  return toInt(*s->value());
}

bool hasZeroSize(const TensorView* tv) {
  for (IterDomain* id : tv->logicalNoReductions())
    if (constantInt(id->logicalExtent()) == 0) return true;
  return false;
}

void copyAllocationOrder(const TensorView* from, TensorView* to) {
  if (!from->hasAllocation()) return;
  FUSEBOX_CHECK(from->nDims() == to->nDims(), "copyAllocationOrder: {} and {} differ in rank",
                from->toString(), to->toString());
  to->setStrideOrder(from->strideOrder());
}

TensorView* replaceTensor(Fusion& fusion, TensorView* old_tv, TensorView* replacement) {
  if (old_tv == replacement) return replacement;
  if (old_tv->isFusionOutput()) {
    if (replacement->isFusionInput() || replacement->isFusionOutput())
      replacement = set(replacement);
    copyAllocationOrder(old_tv, replacement);
  }
  fusion.replaceAllUsesWith(old_tv, replacement);
  return replacement;
}

}  // namespace fusebox
