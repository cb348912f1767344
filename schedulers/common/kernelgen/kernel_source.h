// A generated kernel and its translation unit (kir::kernelSource, in the
// kernel IR library, with its params' lines as the header comment).
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/scheduler.h>

#include <string>
#include <vector>

#include "kernel_ir/kernel_source.h"

namespace fusebox::kernelgen {

// A kernel, the KernelParams slots it reads, and the index checks of its
// indirect loads (KernelPlan::index_checks).
struct GeneratedKernel {
  KernelSource source;
  std::vector<ParamBinding> bindings;
  std::vector<IndexCheck> index_checks;
  std::string kernel_ir;  // KernelPlan::kernel_ir: the IR dump, when built through it
};

using kir::kernelSource;
using kir::LaunchBounds;

// `scheduler`: "pointwise" names the kernel fusebox_pointwise_<hash>. `body`:
// the kernel's statements, indented one level.
KernelSource kernelSource(const std::string& scheduler, const HeuristicParams& params,
                          const std::string& body, bool uses_block_sync, LaunchBounds bounds = {});
// kir::kernelSource takes the header comment's lines themselves: a kernel
// over symbolic sizes describes its params without the sizes, which its
// source must not hold.

}  // namespace fusebox::kernelgen
