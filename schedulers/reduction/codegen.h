// Kernel source of the reduction scheduler (codegen.cpp): one kernel that
// walks the reduction input's domain, computes the prologue and every
// reduction's input per element, writes the pointwise outputs beside the
// reduction, reduces across threads (and across blocks when the reduced
// extent is split), and writes the epilogue's outputs once per kept element.
#pragma once

#include <fusebox/kernel_plan.h>

#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "kernelgen/kernel_source.h"
#include "kernelgen/shapes.h"
#include "params.h"
#include "structure.h"

namespace fusebox::reduction {

// Run-time facts one kernel is generated from.
struct SegmentFacts {
  kernelgen::TensorSizes sizes;
  std::vector<int64_t> input_sizes;                  // the reduction input's domain
  std::vector<bool> reduced;                         // per dim of input_sizes
  std::vector<std::vector<int64_t>> output_strides;  // per segment output
};

// Every load and pointwise store of the reducing loop, over the reduction
// input's domain (what the heuristics choose the layout and vector width by),
// and the largest element offset the epilogue reaches.
struct LoopAccesses {
  std::vector<kernelgen::Access> loop;
  int64_t epilogue_max_offset = 0;
};
LoopAccesses collectAccesses(const Fusion& segment, const ReductionStructure& st,
                             const SegmentFacts& facts, RuntimeInfo& info);

using kernelgen::GeneratedKernel;

// Throws UserError when the kernel's parameters do not fit KernelParams (a
// kernel over symbolic sizes with too many sizes: kernelParamProblem).
GeneratedKernel generateKernel(const Fusion& segment, const ReductionStructure& st,
                               const SegmentFacts& facts, const ReductionParams& params,
                               RuntimeInfo& info);

// Why the kernel's parameters (scratch and, in ShapeMode::Symbolic, the sizes
// taken as parameters included) do not fit KernelParams, or "".
std::string kernelParamProblem(const Fusion& segment, const ReductionStructure& st,
                               const SegmentFacts& facts, const ReductionParams& params,
                               RuntimeInfo& info);

// Bytes of shared memory the kernel declares (static), for the block shape.
int64_t sharedMemoryBytes(const ReductionStructure& st, const ReductionParams& params);

}  // namespace fusebox::reduction
