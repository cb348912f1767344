// fd.define_tensor and fd.from_pytorch: tensor inputs of the fusion.
#pragma once

#include "frontend/python_expr.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox::frontend {

// What nvFuser derives from a tensor's sizes and strides (its
// computeTensorDescriptor): contiguity in allocation order, None for
// broadcast dims (size 1 or stride 0); the stride order (empty when
// row-major).
struct TensorLayout {
  std::vector<std::optional<bool>> contiguity;
  std::vector<int64_t> stride_order;
};
TensorLayout layoutFromStrides(const std::vector<int64_t>& sizes,
                               const std::vector<int64_t>& strides);

// `<fd>.define_tensor(...)` (`fn` names it in messages).
PyValue defineTensorCall(Fusion& f, const std::string& fn, const CallArgs& args);
// `<fd>.from_pytorch(t, static_sizes=False)`: t is a torch tensor of the inputs
// list (or any expression making one) or a number. The result's `input` is t's.
PyValue fromPytorchCall(Fusion& f, const std::string& fn, const CallArgs& args);

}  // namespace fusebox::frontend
