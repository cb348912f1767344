// What every pointwise scheduler does the same way, whatever its heuristics:
// the run-time check of a segment with its params, and the kernel plan.
#pragma once

#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <memory>

#include "pointwise/analysis.h"
#include "pointwise/heuristics.h"

namespace fusebox::pointwise {

// Facts and accesses of a segment for its inputs, or the reason they cannot
// be had (inputs that do not fit the segment).
struct SegmentAnalysis {
  SegmentFacts facts;
  std::vector<kernelgen::Access> accesses;
};
SegmentAnalysis analyzeSegment(const Fusion& segment, RuntimeInfo& info);

// Rejects, with the sizes in the reason, a segment one pointwise kernel
// cannot run: an output with another element count than the reference, an
// input layout the generated indexing cannot address, a grid beyond CUDA's
// limits (x < 2^31, y < 2^16), more sizes than KernelParams holds for a
// kernel over symbolic sizes.
Decision checkRunTime(const Fusion& segment, RuntimeInfo& info, const SegmentFacts& facts,
                      const PointwiseParams& params);

// The kernel for `params`, its bindings, launch and memory description.
std::unique_ptr<KernelPlan> makeKernelPlan(const Fusion& segment, const SegmentFacts& facts,
                                           const PointwiseParams& params, RuntimeInfo& info);

}  // namespace fusebox::pointwise
