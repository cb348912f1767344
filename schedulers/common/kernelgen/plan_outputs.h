// What every generated kernel's plan says about memory: how the runtime
// allocates each segment output, and the bytes a launch must move at least
// (each input read once, each output written once: the denominator of GB/s
// in --bench).
#pragma once

#include <fusebox/kernel_plan.h>

#include <vector>

#include "kernelgen/shapes.h"

namespace fusebox::kernelgen {

// Fills plan.outputs (sizes from `sizes`, strides from `output_strides`)
// and plan.bytes_moved. An input dim of stride 0 (expanded) counts once.
// Throws UserError when a size in bytes overflows int64.
void describePlanMemory(KernelPlan& plan, const Fusion& segment, RuntimeInfo& info,
                        const TensorSizes& sizes,
                        const std::vector<std::vector<int64_t>>& output_strides);

}  // namespace fusebox::kernelgen
