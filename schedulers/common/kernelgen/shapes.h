// Run-time sizes of a segment's tensors, and the scalars shapes depend on.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox::kernelgen {

using TensorSizes = std::unordered_map<const TensorView*, std::vector<int64_t>>;

// The run-time layout of each segment input, in segment order (null for a
// scalar input). Throws UserError when one is not what the segment says (a
// scalar for a tensor, another rank).
std::vector<const TensorArgInfo*> tensorInputArgs(const Fusion& segment, RuntimeInfo& info);

// The concrete (non-reduction) sizes of every tensor of the segment, from the
// run-time inputs (RuntimeInfo::sizes: the evaluator's shape rules). Throws
// UserError when the inputs do not fit the segment.
TensorSizes tensorSizes(const Fusion& segment, RuntimeInfo& info);

// The strides a segment output is allocated with (KernelPlan::OutputSpec): the
// fusion's required stride order for it, else its allocation-domain hint,
// else row-major.
std::vector<int64_t> outputStrides(const Fusion& segment, const TensorView* tv,
                                   const std::vector<int64_t>& sizes);

// Why a kernel cannot read the segment's tensor inputs (a negative stride),
// or "" when it can.
std::string inputLayoutProblem(const Fusion& segment, RuntimeInfo& info);

// The value of a scalar that shapes depend on (slice bounds, pad widths...).
int64_t evaluateShapeScalar(RuntimeInfo& info, const Val* v, const char* what);

}  // namespace fusebox::kernelgen
