// Kernel source generation for the pointwise scheduler (codegen.cpp): the
// kernel around the element code of the shared walker
// (schedulers/common/kernelgen), and the list of memory accesses the
// heuristics size vector widths by.
#pragma once

#include <fusebox/kernel_plan.h>

#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "kernelgen/kernel_source.h"
#include "pointwise/analysis.h"
#include "pointwise/heuristics.h"

namespace fusebox::pointwise {

// Every access the kernel will make, from walking the segment once.
std::vector<kernelgen::Access> collectAccesses(const Fusion& segment, const SegmentFacts& facts,
                                               RuntimeInfo& info);

using kernelgen::GeneratedKernel;

// Throws UserError when the kernel's parameters do not fit KernelParams (a
// kernel over symbolic sizes with too many sizes: kernelParamProblem).
GeneratedKernel generateKernel(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& params, RuntimeInfo& info);

// Why the kernel's parameters, its sizes taken as parameters included
// (ShapeMode::Symbolic), do not fit KernelParams, or "".
std::string kernelParamProblem(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& params, RuntimeInfo& info);

}  // namespace fusebox::pointwise
