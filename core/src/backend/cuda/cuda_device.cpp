#include "backend/cuda/cuda_device.h"

#include <fusebox/error.h>

namespace fusebox::cuda {
namespace {

int attribute(CUdevice device, CUdevice_attribute which, const char* name) {
  int value = 0;
  check(driver().deviceGetAttribute(&value, which, device),
        fmt::format("cuDeviceGetAttribute({})", name));
  return value;
}

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  const DriverApi& api = driver();
  int count = 0;
  check(api.deviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw UserError("no CUDA device found (the driver reports 0 devices)");
  if (ordinal < 0 || ordinal >= count)
    throw UserError(fmt::format("CUDA device {} does not exist (the driver reports {} device{})",
                                ordinal, count, count == 1 ? "" : "s"));
  check(api.deviceGet(&device_, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(api.deviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName");
  size_t total = 0;
  check(api.deviceTotalMem(&total, device_), "cuDeviceTotalMem");
  total_memory_ = static_cast<int64_t>(total);

  properties_.name = name;
  properties_.is_gpu = true;
#define FUSEBOX_ATTR(x) attribute(device_, CU_DEVICE_ATTRIBUTE_##x, #x)
  properties_.compute_major = FUSEBOX_ATTR(COMPUTE_CAPABILITY_MAJOR);
  properties_.compute_minor = FUSEBOX_ATTR(COMPUTE_CAPABILITY_MINOR);
  properties_.multiprocessor_count = FUSEBOX_ATTR(MULTIPROCESSOR_COUNT);
  properties_.max_threads_per_block = FUSEBOX_ATTR(MAX_THREADS_PER_BLOCK);
  properties_.warp_size = FUSEBOX_ATTR(WARP_SIZE);
  properties_.shared_memory_per_block = FUSEBOX_ATTR(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  properties_.registers_per_block = FUSEBOX_ATTR(MAX_REGISTERS_PER_BLOCK);
  // Clusters of up to 8 blocks are portable wherever the device launches them.
  properties_.max_cluster_blocks = FUSEBOX_ATTR(CLUSTER_LAUNCH) != 0 ? 8 : 1;
  properties_.l2_cache_bytes = FUSEBOX_ATTR(L2_CACHE_SIZE);
#undef FUSEBOX_ATTR

  check(api.primaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  makeCurrent();
  CUresult created = api.streamCreate(&stream_, CU_STREAM_NON_BLOCKING);
  if (created != CUDA_SUCCESS) {
    api.primaryCtxRelease(device_);
    check(created, "cuStreamCreate");
  }
}

CudaDevice::~CudaDevice() {
  // Errors are ignored: at process exit the driver may already be shutting down.
  const DriverApi& api = driver();
  if (api.ctxSetCurrent(context_) == CUDA_SUCCESS) {
    api.streamSynchronize(stream_);
    api.streamDestroy(stream_);
  }
  api.primaryCtxRelease(device_);
}

void CudaDevice::makeCurrent() const {
  // Asking the driver (a thread-local read) rather than caching: other CUDA users
  // in the process may switch contexts on this thread.
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  if (api.ctxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return;
  check(api.ctxSetCurrent(context_), "cuCtxSetCurrent");
}

const std::string* CudaDevice::internKernelName(const std::string& name) {
  std::lock_guard lock(names_mutex_);
  return &*kernel_names_.insert(name).first;
}

std::string CudaDevice::recentLaunches() const {
  const std::string* last = last_launch_.load(std::memory_order_relaxed);
  int64_t count = launches_since_sync_.load(std::memory_order_relaxed);
  if (!last || count == 0) return "with no kernel launched since the previous synchronize";
  if (count == 1) return fmt::format("after kernel {}", *last);
  return fmt::format("after kernel {} (the last of {} launches since the previous synchronize)",
                     *last, count);
}

void CudaDevice::useStream(CUstream stream) {
  if (stream == stream_) stream = nullptr;
  if (stream == external_stream_) return;
  synchronize("switching streams");
  external_stream_ = stream;
}

void CudaDevice::synchronize(std::string_view what) {
  makeCurrent();
  CUresult result = driver().streamSynchronize(stream());
  if (result != CUDA_SUCCESS) {
    std::string launches = recentLaunches();
    launches_since_sync_.store(0, std::memory_order_relaxed);
    throw UserError(fmt::format("CUDA error in {} {}: {}", what, launches, errorText(result)));
  }
  launches_since_sync_.store(0, std::memory_order_relaxed);
}

}  // namespace fusebox::cuda
