// timeCallMs and timeKernelMs: device time from CUDA events, for --bench.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/error.h>

#include <algorithm>
#include <vector>

#include "backend/cuda/cuda_backend_impl.h"
#include "backend/cuda/cuda_kernel.h"

namespace fusebox {

double timeCallMs(Backend& backend, const std::function<void()>& call, int iterations, L2State l2,
                  std::string_view what) {
  cuda::CudaBackendImpl& cuda_backend = cuda::asCudaBackend(backend, "timeCallMs");
  FUSEBOX_USER_CHECK(iterations >= 1, "timing {}: iterations must be at least 1, got {}", what,
                     iterations);
  cuda::CudaDevice& device = cuda_backend.device();
  device.makeCurrent();
  const cuda::DriverApi& api = cuda::driver();

  // Two events around each timed call: the flush between calls is not
  // timed. While the GPU flushes, the host enqueues the call's work, as
  // triton.testing.do_bench's timed calls do.
  struct Events {
    std::vector<CUevent> list;
    ~Events() {
      for (CUevent e : list) cuda::driver().eventDestroy(e);
    }
  } events;
  for (int i = 0; i < 2 * iterations; ++i) {
    CUevent e = nullptr;
    cuda::check(api.eventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    events.list.push_back(e);
  }
  Tensor flush;
  if (l2 == L2State::Flushed) flush = backend.allocate(DataType::Int64, {kL2FlushBytes / 8}, {1});
  call();  // warm-up: first-launch costs, caches
  for (int i = 0; i < iterations; ++i) {
    if (flush.defined()) backend.memsetZero(flush);
    // The stream is read each time: a call may not change it, but the
    // events must bracket the stream its work went to.
    cuda::check(api.eventRecord(events.list[2 * i], device.stream()), "cuEventRecord");
    call();
    cuda::check(api.eventRecord(events.list[2 * i + 1], device.stream()), "cuEventRecord");
  }
  device.synchronize(fmt::format("timing {}", what));
  std::vector<double> times;
  for (int i = 0; i < iterations; ++i) {
    float ms = 0;
    cuda::check(api.eventElapsedTime(&ms, events.list[2 * i], events.list[2 * i + 1]),
                "cuEventElapsedTime");
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

double timeKernelMs(Backend& backend, CompiledKernel& kernel, const LaunchConfig& config,
                    const KernelParams& params, int iterations, L2State l2) {
  FUSEBOX_USER_CHECK(dynamic_cast<cuda::CudaKernel*>(&kernel) != nullptr,
                     "timeKernelMs: kernel {} was not compiled by a cuda "
                     "backend",
                     kernel.name());
  FUSEBOX_USER_CHECK(iterations >= 1, "timeKernelMs: iterations must be at least 1, got {}",
                     iterations);
  return timeCallMs(
      backend, [&] { kernel.launch(config, params); }, iterations, l2,
      fmt::format("kernel {}", kernel.name()));
}

}  // namespace fusebox
