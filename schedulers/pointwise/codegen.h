// Kernel source generation for the pointwise scheduler (codegen.cpp), and the
// list of memory accesses the heuristics size vector widths by.
#pragma once

#include <fusebox/kernel_plan.h>

#include <string>
#include <vector>

#include "analysis.h"
#include "heuristics.h"
#include "index_math.h"

namespace fusebox::pointwise {

// One tensor read (a segment input) or write (a segment output) of the kernel.
struct Access {
  const TensorView* tv = nullptr;
  bool is_output = false;
  IndexExpr offset;          // element offset from the data pointer, per iteration index
  bool conditional = false;  // under a pad / cat bound check
  int64_t element_size = 0;
  int64_t alignment = 16;  // of the data pointer, bytes
  int64_t max_offset = 0;  // largest element offset it can reach
};

// Every access the kernel will make, from walking the segment once.
std::vector<Access> collectAccesses(const Fusion& segment, const SegmentFacts& facts,
                                    RuntimeInfo& info);

struct GeneratedKernel {
  KernelSource source;
  std::vector<ParamBinding> bindings;
};

GeneratedKernel generateKernel(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& params, RuntimeInfo& info);

}  // namespace fusebox::pointwise
