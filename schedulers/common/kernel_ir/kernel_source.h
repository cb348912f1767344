// The translation unit around a kernel's body, the same for every kernel
// fusebox compiles: a header comment naming the scheduler and its params,
// the device runtime's include, and the extern "C" kernel taking
// fusebox::KernelParams, named <prefix>_<hash of the body> so equal kernels
// share a name. A plugin that builds its kernel as kernel IR prints it here.
#pragma once

#include <fusebox/backend/kernel.h>

#include <string>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kir {

// `__launch_bounds__` for a kernel whose heuristics count on a number of
// resident blocks per SM: the compiler then keeps registers low enough for
// them (a grid sized to whole waves is only whole waves if they fit).
struct LaunchBounds {
  int max_threads = 0;  // 0: no bounds
  int min_blocks = 0;
};

// `scheduler`: "pointwise" names the kernel fusebox_pointwise_<hash>.
// `params_text`: the header comment's lines (the scheduler_params lines, or
// what a kernel over symbolic sizes depends on). `body`: the kernel's
// statements, indented one level. `uses_block_sync`: KernelSource's.
KernelSource kernelSource(const std::string& scheduler, const std::string& params_text,
                          const std::string& body, bool uses_block_sync, LaunchBounds bounds = {});
// The same for a body built as kernel IR (printed by printCuda).
KernelSource kernelSource(const std::string& scheduler, const std::string& params_text,
                          const Block& body, bool uses_block_sync, LaunchBounds bounds = {});

}  // namespace fusebox::kir
