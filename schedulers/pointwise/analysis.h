// What the pointwise scheduler accepts, and the run-time facts it works from:
// the concrete size of every tensor of the segment and the reference output.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace fusebox::pointwise {

// Most KernelParams slots the kernel may need (kernel.h's limits).
struct SlotCounts {
  int pointers = 0, ints = 0, doubles = 0;
};

// Accepts segments of elementwise and data-movement ops with at least one
// tensor output; rejects reductions, matmul and too many parameters.
Decision checkCompileTime(const Fusion& segment);

// Whether a scalar segment input goes to KernelParams::f64 (else i64).
bool scalarGoesToDouble(DataType t);

struct SegmentFacts {
  // Concrete sizes of every tensor of the segment (RuntimeInfo::sizes: the
  // evaluator's shape rules on the run-time input sizes).
  std::unordered_map<const TensorView*, std::vector<int64_t>> sizes;
  // Run-time layout of each tensor input.
  std::unordered_map<const TensorView*, TensorArgInfo> inputs;
  // The output whose logical index the kernel iterates over: the first output
  // with the most elements.
  int reference_output = 0;
  std::vector<int64_t> iter_sizes;
  int64_t numel = 0;
  // Layout the runtime allocates each output in (OutputSpec strides).
  std::vector<std::vector<int64_t>> output_strides;
};

// Throws UserError when the inputs do not fit the segment.
SegmentFacts computeFacts(const Fusion& segment, RuntimeInfo& info);

// The value of a scalar that shapes depend on (slice bounds, pad widths...).
int64_t evaluateShapeScalar(RuntimeInfo& info, const Val* v, const char* what);

int64_t product(const std::vector<int64_t>& v);

}  // namespace fusebox::pointwise
