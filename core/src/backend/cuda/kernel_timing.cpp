// timeKernelMs: device time of one kernel from CUDA events, for --bench.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/error.h>

#include <algorithm>
#include <vector>

#include "backend/cuda/cuda_backend_impl.h"
#include "backend/cuda/cuda_kernel.h"

namespace fusebox {

double timeKernelMs(Backend& backend, CompiledKernel& kernel, const LaunchConfig& config,
                    const KernelParams& params, int iterations, L2State l2) {
  cuda::CudaBackendImpl& cuda_backend = cuda::asCudaBackend(backend, "timeKernelMs");
  auto* cuda_kernel = dynamic_cast<cuda::CudaKernel*>(&kernel);
  FUSEBOX_USER_CHECK(cuda_kernel != nullptr,
                     "timeKernelMs: kernel {} was not compiled by a cuda "
                     "backend",
                     kernel.name());
  FUSEBOX_USER_CHECK(iterations >= 1, "timeKernelMs: iterations must be at least 1, got {}",
                     iterations);
  cuda::CudaDevice& device = cuda_backend.device();
  device.makeCurrent();
  const cuda::DriverApi& api = cuda::driver();

  // Two events around each timed launch: the flush between launches is not
  // timed.
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
  kernel.launch(config, params);  // warm-up: first-launch costs, caches
  CUstream stream = device.stream();
  for (int i = 0; i < iterations; ++i) {
    if (flush.defined()) backend.memsetZero(flush);
    cuda::check(api.eventRecord(events.list[2 * i], stream), "cuEventRecord");
    kernel.launch(config, params);
    cuda::check(api.eventRecord(events.list[2 * i + 1], stream), "cuEventRecord");
  }
  device.synchronize(fmt::format("timing kernel {}", kernel.name()));
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

}  // namespace fusebox
