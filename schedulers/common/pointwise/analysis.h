// What the pointwise scheduler accepts, and the run-time facts it works from:
// the concrete size of every tensor of the segment and the reference output.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kernelgen/shapes.h"

namespace fusebox::pointwise {

// A sum/prod/max/min whose reduced dims all have the constant extent 1: one
// element each, so elementwise (a chain of them stays one kernel).
bool isTrivialReduction(const Expr* e);

// Accepts segments of elementwise and data-movement ops with at least one
// tensor output; rejects reductions, matmul and too many parameters.
Decision checkCompileTime(const Fusion& segment);

struct SegmentFacts {
  // Concrete sizes of every tensor of the segment (RuntimeInfo::sizes).
  kernelgen::TensorSizes sizes;
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

// The in-place requests (RuntimeInfo::inPlaceRequests) a pointwise kernel
// honours: the input has the output's sizes and the layout the kernel writes
// the output in, and is read through elementwise ops only, so the thread
// that writes an element of the output is the only one reading that element
// of the input. (The kernel reads it first: ElementWriter::readFirst.)
std::vector<InPlaceRequest> inPlaceWrites(const Fusion& segment, RuntimeInfo& info,
                                          const SegmentFacts& facts);

int64_t product(const std::vector<int64_t>& v);

}  // namespace fusebox::pointwise
