// The cuda backend: NVRTC compiles kernel source to a cubin for the device's own
// architecture; the driver API runs it. libcuda, libnvrtc and libcublas are
// opened with dlopen at first use (never at static initialization), so every
// binary linking libfusebox_runtime starts and runs its host paths on a machine
// with no GPU or driver; only creating a cuda backend there fails, with a
// UserError saying why.
//
// Environment overrides (for unusual installs): FUSEBOX_LIBCUDA, FUSEBOX_LIBNVRTC,
// FUSEBOX_LIBCUBLAS name the library file to open instead of searching.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/backend/kernel_cache.h>
#include <fusebox/scheduler.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

// Whether a cuda backend can be created here. Probes the driver (dlopen,
// cuInit, device count) without creating a context; never throws.
struct CudaAvailability {
  bool available = false;
  std::string reason;  // why not, when !available
  int device_count = 0;
};
CudaAvailability cudaAvailable();

struct CudaBackendOptions {
  int device = 0;  // ordinal
  // Loaded kernels are kept in memory and cubins on disk by the kernel cache;
  // a compile failure's source and log go to its failureDirectory().
  KernelCacheOptions cache = KernelCacheOptions::fromEnvironment();
  // Extra NVRTC options for every kernel (e.g. "--use_fast_math", "-lineinfo").
  std::vector<std::string> nvrtc_options;
};

// Throws UserError when no driver, no device or no NVRTC can be found:
// "no CUDA driver found (libcuda.so.1): ...".
std::unique_ptr<Backend> createCudaBackend(const CudaBackendOptions& options = {});

// The device a backend runs on: filled from the driver for a cuda backend; the
// host defaults (DeviceProperties{}) for any other backend.
DeviceProperties queryDeviceProperties(Backend& backend);

// ptxas's report on `kernel` compiled by NVRTC for `device`'s compute
// capability (the lines `ptxas -v` prints: registers, spills, stack, shared
// memory). Needs libnvrtc only, no GPU or driver: with [runtime] device on
// the host backend, a GPU's kernels are reported from any machine. Throws
// UserError when NVRTC is missing, `device` names no compute capability,
// or the compile fails.
std::string ptxasReport(const KernelSource& kernel, const DeviceProperties& device);

// Times one kernel with CUDA events on the backend's stream: one warm-up
// launch, then `iterations` launches each between two events (after the
// flush, with L2State::Flushed); returns the median in milliseconds. Throws
// UserError for a non-cuda backend or kernel.
double timeKernelMs(Backend& backend, CompiledKernel& kernel, const LaunchConfig& config,
                    const KernelParams& params, int iterations, L2State l2 = L2State::Flushed);

// Times `call` with CUDA events on the backend's stream, as
// triton.testing.do_bench times a function: one warm-up call, then
// `iterations` calls each between two events (after the flush, with
// L2State::Flushed); returns the median in milliseconds. `what` names the
// call in errors. Throws UserError for a non-cuda backend.
double timeCallMs(Backend& backend, const std::function<void()>& call, int iterations,
                  L2State l2 = L2State::Flushed, std::string_view what = "a call");

// The bytes timeKernelMs and timeCallMs write to flush the L2 cache: 256 MiB, as
// triton.testing.do_bench does (Hopper's L2 is 50 MiB).
inline constexpr int64_t kL2FlushBytes = int64_t{256} << 20;

// What the caching device allocator of a cuda backend has done, for tests and
// --bench reports.
struct DeviceAllocatorStats {
  int64_t driver_allocations = 0;  // cuMemAlloc calls that succeeded
  int64_t reused = 0;              // allocations served from the free lists
  int64_t bytes_in_use = 0;        // handed out, not yet freed
  int64_t bytes_cached = 0;        // freed, kept for reuse
  int64_t oom_retries = 0;         // times the cache was released to retry an allocation
};
DeviceAllocatorStats deviceAllocatorStats(Backend& backend);
// Returns every cached (free) block to the driver.
void releaseCachedDeviceMemory(Backend& backend);

// The stream a cuda backend's launches, copies and allocations go on from
// now on: `stream` is a CUstream of another CUDA user in the same (primary)
// context, as an integer (torch's `cuda_stream`; 0 is the legacy default
// stream), so that fusebox's kernels are ordered with that user's work;
// nullopt: the backend's own non-blocking stream. Switching waits for the
// stream left (its cached memory may then go to the other). The Python
// module calls it with torch's current stream on each call.
void setCudaStream(Backend& backend, std::optional<uintptr_t> stream);

}  // namespace fusebox
