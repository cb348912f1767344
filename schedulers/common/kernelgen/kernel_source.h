// The translation unit around a generated kernel's body, the same for every
// scheduler: a header comment naming the scheduler and its params (the
// scheduler_params lines, or what a kernel over symbolic sizes depends on),
// the device runtime's include, and the extern "C" kernel, named
// <prefix>_<hash of the body> so equal kernels share a name.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/scheduler.h>

#include <string>
#include <vector>

namespace fusebox::kernelgen {

// A kernel, the KernelParams slots it reads, and the index checks of its
// indirect loads (KernelPlan::index_checks).
struct GeneratedKernel {
  KernelSource source;
  std::vector<ParamBinding> bindings;
  std::vector<IndexCheck> index_checks;
  std::string kernel_ir;  // KernelPlan::kernel_ir: the IR dump, when built through it
};

// `__launch_bounds__` for a kernel whose heuristics count on a number of
// resident blocks per SM: the compiler then keeps registers low enough for
// them (a grid sized to whole waves is only whole waves if they fit).
struct LaunchBounds {
  int max_threads = 0;  // 0: no bounds
  int min_blocks = 0;
};

// `scheduler`: "pointwise" names the kernel fusebox_pointwise_<hash>. `body`:
// the kernel's statements, indented one level.
KernelSource kernelSource(const std::string& scheduler, const HeuristicParams& params,
                          const std::string& body, bool uses_block_sync, LaunchBounds bounds = {});
// The same with the header comment's lines given: a kernel over symbolic
// sizes describes its params without the sizes, which its source must not hold.
KernelSource kernelSource(const std::string& scheduler, const std::string& params_text,
                          const std::string& body, bool uses_block_sync, LaunchBounds bounds = {});

}  // namespace fusebox::kernelgen
