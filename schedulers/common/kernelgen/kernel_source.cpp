// The translation unit of a generated kernel (kernel_source.h).
#include "kernelgen/kernel_source.h"

namespace fusebox::kernelgen {

KernelSource kernelSource(const std::string& scheduler, const HeuristicParams& params,
                          const std::string& body, bool uses_block_sync, LaunchBounds bounds) {
  return kernelSource(scheduler, params.toString(), body, uses_block_sync, bounds);
}

}  // namespace fusebox::kernelgen
