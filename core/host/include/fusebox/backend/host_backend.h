// The host backend: kernels in the CUDA calling convention (kernel.h),
// compiled by the system C++ compiler against the device runtime's CPU layer
// and run on the CPU. A block's threads run one after another, or as fibers
// when KernelSource::uses_block_sync says they synchronize; blocks are spread
// over a few OS threads. Memory is host memory; launches are synchronous.
// See docs/backends.md.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/backend/kernel_cache.h>

#include <memory>
#include <string>

namespace fusebox {

struct HostBackendOptions {
  KernelCacheOptions cache = KernelCacheOptions::fromEnvironment();
  // The compiler command (words split at spaces, e.g. "ccache g++"). Empty:
  // $FUSEBOX_HOST_CXX, else the compiler fusebox was built with.
  std::string compiler;
  // Seconds one compiler run may take before it is killed (with everything it
  // started) and the compile is a UserError. 0: $FUSEBOX_HOST_CXX_TIMEOUT,
  // else 300.
  double compile_timeout_seconds = 0;
  // OS threads running blocks; 0: the hardware's thread count, at most 8.
  int threads = 0;
};

class HostBackend;

std::unique_ptr<Backend> makeHostBackend(HostBackendOptions options = {});

// The host backend's kernel cache (its statistics and folders), for tests and
// tools; nullptr when `backend` is not a host backend.
KernelCache* hostKernelCache(Backend& backend);

}  // namespace fusebox
