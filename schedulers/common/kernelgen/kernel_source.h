// The translation unit around a generated kernel's body, the same for every
// scheduler: a header comment naming the scheduler and its params (the
// scheduler_params lines), the device runtime's include, and the extern "C"
// kernel, named <prefix>_<hash of the body> so equal kernels share a name.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/scheduler.h>

#include <string>
#include <vector>

namespace fusebox::kernelgen {

// A kernel and the KernelParams slots it reads.
struct GeneratedKernel {
  KernelSource source;
  std::vector<ParamBinding> bindings;
};

// `scheduler`: "pointwise" names the kernel fusebox_pointwise_<hash>. `body`:
// the kernel's statements, indented one level.
KernelSource kernelSource(const std::string& scheduler, const HeuristicParams& params,
                          const std::string& body, bool uses_block_sync);

}  // namespace fusebox::kernelgen
