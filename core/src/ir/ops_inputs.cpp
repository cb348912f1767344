// Fusion inputs: nvFuser's define_tensor and define_scalar.
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

TensorView* defineTensor(Fusion& f, const std::vector<int64_t>& shape, DataType dtype,
                         const std::vector<std::optional<bool>>& contiguity,
                         const std::vector<int64_t>& stride_order) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<IterDomain*> logical;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape[d];
    FUSEBOX_USER_CHECK(size >= -1,
                       "fd.define_tensor: shape entry {} is {}; expected -1 (symbolic), 1 "
                       "(broadcast) or a fixed size >= 0 (shape [{}])",
                       d, size, fmt::join(shape, ", "));
    if (size == -1)
      logical.push_back(f.newIterDomain(f.newScalar(DataType::Int64), IterType::Iteration));
    else
      logical.push_back(f.newIterDomain(f.constantInt(size),
                                        size == 1 ? IterType::Broadcast : IterType::Iteration));
  }
  auto* tv = f.newTensor(std::move(logical), dtype);

  if (!stride_order.empty()) {
    FUSEBOX_USER_CHECK(
        static_cast<int64_t>(stride_order.size()) == rank && isPermutation(stride_order),
        "fd.define_tensor: stride_order must be a permutation of 0..{} (one entry "
        "per dim of shape [{}]), got [{}]",
        rank - 1, fmt::join(shape, ", "), fmt::join(stride_order, ", "));
    tv->setStrideOrder(stride_order);
  }
  if (!contiguity.empty()) {
    // As in nvFuser, contiguity follows the allocation (stride) order, which is
    // the logical order unless stride_order says otherwise.
    FUSEBOX_USER_CHECK(static_cast<int64_t>(contiguity.size()) == rank,
                       "fd.define_tensor: contiguity needs one entry per dim ({}), got {}", rank,
                       contiguity.size());
    auto alloc = tv->allocation();
    for (int64_t k = 0; k < rank; ++k) {
      bool broadcast = alloc[k]->isBroadcast();
      FUSEBOX_USER_CHECK(
          broadcast != contiguity[k].has_value(),
          "fd.define_tensor: contiguity entry {} is {}; expected {} for a {} dim (shape [{}])", k,
          contiguity[k] ? (*contiguity[k] ? "True" : "False") : "None",
          broadcast ? "None" : "True or False", broadcast ? "broadcast (size 1)" : "non-broadcast",
          fmt::join(shape, ", "));
    }
    tv->setContiguity(contiguity);
  }
  f.addInput(tv);
  return tv;
}

TensorView* defineSymbolicTensor(Fusion& f, int64_t ndims, DataType dtype) {
  FUSEBOX_USER_CHECK(ndims >= 0, "defineSymbolicTensor: rank must be >= 0, got {}", ndims);
  return defineTensor(f, std::vector<int64_t>(ndims, -1), dtype);
}

Scalar* defineScalar(Fusion& f, DataType dtype) {
  auto* s = f.newScalar(dtype);
  f.addInput(s);
  return s;
}

}  // namespace fusebox
