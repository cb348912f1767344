// Output specs and traffic of a kernel plan (plan_outputs.h).
#include "kernelgen/plan_outputs.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>

namespace fusebox::kernelgen {

void describePlanMemory(KernelPlan& plan, const Fusion& segment, RuntimeInfo& info,
                        const TensorSizes& sizes,
                        const std::vector<std::vector<int64_t>>& output_strides) {
  int64_t bytes = 0;
  for (const ArgumentInfo& a : info.inputs()) {
    const auto* arg = std::get_if<TensorArgInfo>(&a);
    if (arg == nullptr) continue;
    // Only what memory holds: a dim of stride 0 (expanded) is one element.
    int64_t n = 1;
    for (size_t k = 0; k < arg->sizes.size(); ++k)
      n *= arg->strides[k] == 0 ? std::min<int64_t>(arg->sizes[k], 1) : arg->sizes[k];
    bytes += n * dataTypeSize(arg->dtype);
  }
  plan.outputs.clear();
  for (size_t k = 0; k < segment.outputs().size(); ++k) {
    const auto* tv = segment.outputs()[k]->as<TensorView>();
    KernelPlan::OutputSpec spec;
    spec.dtype = tv->dtype();
    spec.sizes = sizes.at(tv);
    spec.strides = output_strides.at(k);
    // An output too large to count in bytes could never be allocated.
    bytes = checked::orThrow(
        checked::add(bytes, checked::mul(checked::product(spec.sizes), dataTypeSize(spec.dtype))),
        fmt::format("the size in bytes of output {}", tv->toString()));
    plan.outputs.push_back(std::move(spec));
  }
  plan.bytes_moved = bytes;
}

}  // namespace fusebox::kernelgen
