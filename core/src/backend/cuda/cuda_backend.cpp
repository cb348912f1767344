#include "backend/cuda/cuda_backend_impl.h"

#include <fusebox/checked_math.h>
#include <fusebox/error.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>

#include "backend/cuda/cublas_library.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/nvrtc_api.h"
#include "backend/cuda/nvrtc_compile.h"
#include "backend/kernel_record.h"

namespace fusebox::cuda {
namespace {

// Elements from element 0 to the last reachable one (0 for an empty tensor).
int64_t spanElements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  for (int64_t s : sizes)
    if (s == 0) return 0;
  std::optional<int64_t> span = 1;
  for (size_t i = 0; i < sizes.size(); ++i)
    span = checked::add(span, checked::mul(sizes[i] - 1, strides[i]));
  return checked::orThrow(span, "tensor extent");
}

// True when every element of the span is reachable (broadcast dims aside), so
// zeroing the span zeroes exactly the tensor.
bool fillsItsSpan(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1 && t.strides()[i] != 0) dims.emplace_back(t.strides()[i], t.sizes()[i]);
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

// The options' NVRTC flags, then $FUSEBOX_NVRTC_OPTIONS split at spaces
// ("-lineinfo" for a profiler's source view, "--use_fast_math" to try it).
std::vector<std::string> nvrtcOptions(const CudaBackendOptions& options) {
  std::vector<std::string> out = options.nvrtc_options;
  if (const char* env = std::getenv("FUSEBOX_NVRTC_OPTIONS"); env != nullptr) {
    std::istringstream words(env);
    for (std::string w; words >> w;) out.push_back(w);
  }
  return out;
}

}  // namespace

CudaBackendImpl::CudaBackendImpl(const CudaBackendOptions& options)
    : device_(std::make_shared<CudaDevice>(options.device)),
      allocator_(std::make_shared<DeviceAllocator>(device_)),
      compiler_(device_->arch(), nvrtcOptions(options)),
      cache_(options.cache) {}

CudaBackendImpl::~CudaBackendImpl() {
  try {
    device_->synchronize("destroying the cuda backend");
  } catch (const UserError&) {
    // A failed kernel was reported (or will be) where it was synchronized.
  }
  cache_.clearMemory();
  if (cublas_handle_) {
    device_->makeCurrent();
    cublas().destroy(static_cast<cublasHandle_t>(cublas_handle_));
  }
  allocator_->close();
}

std::string CudaBackendImpl::describe() const {
  return fmt::format("{} (sm_{})", device_->properties().name, device_->arch());
}

std::shared_ptr<CompiledKernel> CudaBackendImpl::compile(const KernelSource& kernel,
                                                         CompileTimings* timings) {
  FUSEBOX_USER_CHECK(!kernel.name.empty(), "compile: the kernel has no name");
  recordKernelSource(kernel);  // FUSEBOX_RECORD_KERNELS (docs/testing.md)
  const std::string key =
      kernelCacheKey(BackendKind::Cuda, kernel, compiler_.options(kernel),
                     fmt::format("sm_{}", compiler_.arch()), compiler_.version());
  return cache_.getOrCompile(
      key, BackendKind::Cuda, [&] { return compiler_.compile(kernel, cache_.failureDirectory()); },
      [&](const std::string& cubin) -> std::shared_ptr<CompiledKernel> {
        return std::make_shared<CudaKernel>(device_, kernel.name, cubin);
      },
      timings);
}

Tensor CudaBackendImpl::allocate(DataType dtype, const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& strides) {
  FUSEBOX_USER_CHECK(sizes.size() == strides.size(), "allocate: {} sizes but {} strides",
                     sizes.size(), strides.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    FUSEBOX_USER_CHECK(sizes[i] >= 0 && strides[i] >= 0,
                       "allocate: negative size or stride in dim {} ({}, {})", i, sizes[i],
                       strides[i]);
  const int64_t bytes = checked::orThrow(
      checked::mul(spanElements(sizes, strides), dataTypeSize(dtype)), "tensor size in bytes");
  CUdeviceptr ptr = allocator_->allocate(bytes);
  std::shared_ptr<DeviceAllocator> allocator = allocator_;
  return Tensor::fromBlob(
      reinterpret_cast<void*>(ptr), dtype, sizes, strides, Device::Cuda,
      [allocator](void* p) { allocator->free(reinterpret_cast<CUdeviceptr>(p)); });
}

Tensor CudaBackendImpl::toBackend(const Tensor& host) {
  FUSEBOX_USER_CHECK(host.defined(), "toBackend: undefined tensor");
  FUSEBOX_USER_CHECK(host.device() == Device::Host, "toBackend: {} is already on the GPU",
                     host.describe());
  Tensor t = allocate(host.dtype(), host.sizes(), host.strides());
  const int64_t bytes = spanElements(host.sizes(), host.strides()) * host.elementSize();
  if (bytes > 0) {
    device_->makeCurrent();
    // From pageable memory the driver stages the bytes before returning, so
    // `host` may change or go as soon as this returns.
    check(driver().memcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(t.data()), host.data(),
                                   static_cast<size_t>(bytes), device_->stream()),
          fmt::format("copying {} to the GPU", host.describe()));
  }
  return t;
}

Tensor CudaBackendImpl::toHost(const Tensor& t) {
  FUSEBOX_USER_CHECK(t.defined(), "toHost: undefined tensor");
  FUSEBOX_USER_CHECK(t.device() == Device::Cuda, "toHost: {} is not a GPU tensor", t.describe());
  Tensor host = Tensor::emptyStrided(t.dtype(), t.sizes(), t.strides());
  const int64_t bytes = spanElements(t.sizes(), t.strides()) * t.elementSize();
  if (bytes > 0) {
    device_->makeCurrent();
    check(driver().memcpyDtoHAsync(host.data(), reinterpret_cast<CUdeviceptr>(t.data()),
                                   static_cast<size_t>(bytes), device_->stream()),
          fmt::format("copying {} from the GPU", t.describe()));
  }
  device_->synchronize(fmt::format("copying {} from the GPU", t.describe()));
  return host;
}

// Pinned host slots that kernels write through the same pointer (unified
// addressing), reused: cuMemFreeHost waits for the whole device, so a slot
// cannot be freed while the stream runs; chunks are freed with the backend.
class MappedSlots {
 public:
  static constexpr int64_t kSlotBytes = 64;
  explicit MappedSlots(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {}
  ~MappedSlots() {
    // At process exit the driver may be gone already: nothing to release then.
    try {
      for (void* chunk : chunks_) driver().memFreeHost(chunk);
    } catch (...) {
    }
  }
  void* take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      constexpr int64_t kSlots = 64;
      void* chunk = nullptr;
      check(driver().memAllocHost(&chunk, static_cast<size_t>(kSlots * kSlotBytes)),
            "cuMemAllocHost");
      chunks_.push_back(chunk);
      for (int64_t i = 0; i < kSlots; ++i)
        free_.push_back(static_cast<char*>(chunk) + i * kSlotBytes);
    }
    void* slot = free_.back();
    free_.pop_back();
    std::memset(slot, 0, static_cast<size_t>(kSlotBytes));
    return slot;
  }
  // A kernel queued before the slot's owner let it go may still write it:
  // the slot is reused only after the stream's work (a stream switch waits
  // for the stream left, so the current one is the last a kernel ran on).
  void give(void* slot) {
    try {
      device_->synchronize("returning a mapped host slot");
    } catch (...) {
      return;  // a failed context runs no more kernels; the slot stays out of use
    }
    std::lock_guard lock(mutex_);
    free_.push_back(slot);
  }

 private:
  std::shared_ptr<CudaDevice> device_;
  std::mutex mutex_;
  std::vector<void*> chunks_, free_;
};

Tensor CudaBackendImpl::allocateMapped(int64_t words) {
  FUSEBOX_CHECK(words >= 1 && words * 8 <= MappedSlots::kSlotBytes,
                "allocateMapped of {} words (1 to {})", words, MappedSlots::kSlotBytes / 8);
  std::call_once(mapped_slots_once_, [this] {
    // A kernel writes the slot through its host address: that needs unified
    // addressing (every 64-bit Linux driver has it; checked, not assumed).
    int unified = 0;
    check(driver().deviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
                                      device_->device()),
          "cuDeviceGetAttribute(UNIFIED_ADDRESSING)");
    FUSEBOX_USER_CHECK(unified != 0,
                       "{} has no unified addressing: its kernels cannot write host memory, "
                       "which index checks need",
                       describe());
    mapped_slots_ = std::make_shared<MappedSlots>(device_);
  });
  std::shared_ptr<MappedSlots> slots = mapped_slots_;
  device_->makeCurrent();  // cuMemAllocHost belongs to the current context
  return Tensor::fromBlob(slots->take(), DataType::Int64, {words}, {1}, Device::Host,
                          [slots](void* slot) { slots->give(slot); });
}

void CudaBackendImpl::memsetZero(const Tensor& t) {
  FUSEBOX_USER_CHECK(t.defined() && t.device() == Device::Cuda,
                     "memsetZero: {} is not a GPU tensor",
                     t.defined() ? t.describe() : "undefined");
  FUSEBOX_USER_CHECK(fillsItsSpan(t),
                     "memsetZero: {} has gaps between its elements; zero a dense tensor",
                     t.describe());
  const int64_t bytes = spanElements(t.sizes(), t.strides()) * t.elementSize();
  if (bytes == 0) return;
  device_->makeCurrent();
  check(driver().memsetD8Async(reinterpret_cast<CUdeviceptr>(t.data()), 0,
                               static_cast<size_t>(bytes), device_->stream()),
        fmt::format("zeroing {}", t.describe()));
}

void CudaBackendImpl::copy(const Tensor& src, const Tensor& dst) {
  for (const Tensor* t : {&src, &dst})
    FUSEBOX_USER_CHECK(t->defined() && t->device() == Device::Cuda, "copy: {} is not a GPU tensor",
                       t->defined() ? t->describe() : "undefined");
  FUSEBOX_USER_CHECK(src.dtype() == dst.dtype() && src.sizes() == dst.sizes(),
                     "copy: {} does not fit into {}", src.describe(), dst.describe());
  const int64_t bytes = spanElements(dst.sizes(), dst.strides()) * dst.elementSize();
  if (bytes == 0 || (src.data() == dst.data() && src.strides() == dst.strides())) return;
  device_->makeCurrent();
  if (src.strides() == dst.strides() && fillsItsSpan(dst)) {
    check(driver().memcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst.data()),
                                   reinterpret_cast<CUdeviceptr>(src.data()),
                                   static_cast<size_t>(bytes), device_->stream()),
          fmt::format("copying {} into {}", src.describe(), dst.describe()));
    return;
  }
  // Other layouts through the host (the backend has no strided copy kernel):
  // dst's whole span comes down, takes src's elements and goes back up.
  Tensor staged = toHost(dst);
  copyInto(toHost(src), staged);
  check(driver().memcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst.data()), staged.data(),
                                 static_cast<size_t>(bytes), device_->stream()),
        fmt::format("copying {} into {}", src.describe(), dst.describe()));
}

void CudaBackendImpl::synchronize() {
  device_->synchronize("synchronize");
}

void* CudaBackendImpl::cublasHandle() {
  std::call_once(cublas_once_, [this] {
    const CublasApi& api = cublas();
    device_->makeCurrent();
    cublasHandle_t handle = nullptr;
    checkCublas(api.create(&handle), "cublasCreate");
    cublas_handle_ = handle;
    // Full float32 products (no TF32), as PyTorch does by default.
    checkCublas(api.setMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  });
  FUSEBOX_USER_CHECK(cublas_handle_ != nullptr, "cuBLAS could not be initialized earlier");
  // On the device's current stream, which setCudaStream may have changed.
  checkCublas(cublas().setStream(static_cast<cublasHandle_t>(cublas_handle_), device_->stream()),
              "cublasSetStream");
  return cublas_handle_;
}

CudaBackendImpl& asCudaBackend(Backend& backend, std::string_view what) {
  auto* cuda = dynamic_cast<CudaBackendImpl*>(&backend);
  FUSEBOX_USER_CHECK(cuda != nullptr, "{} needs a cuda backend, not {}", what, backend.describe());
  return *cuda;
}

}  // namespace fusebox::cuda

namespace fusebox {

CudaAvailability cudaAvailable() {
  CudaAvailability result;
  try {
    const cuda::DriverApi& api = cuda::driver();
    cuda::check(api.deviceGetCount(&result.device_count), "cuDeviceGetCount");
    if (result.device_count == 0) {
      result.reason = "no CUDA device found (the driver reports 0 devices)";
      return result;
    }
    cuda::nvrtc();
    result.available = true;
  } catch (const UserError& e) {
    result.reason = e.what();
  }
  return result;
}

std::unique_ptr<Backend> createCudaBackend(const CudaBackendOptions& options) {
  return std::make_unique<cuda::CudaBackendImpl>(options);
}

DeviceProperties queryDeviceProperties(Backend& backend) {
  if (backend.kind() != BackendKind::Cuda) return DeviceProperties{};
  return cuda::asCudaBackend(backend, "queryDeviceProperties").device().properties();
}

std::string ptxasReport(const KernelSource& kernel, const DeviceProperties& device) {
  if (device.compute_major <= 0)
    throw UserError(fmt::format(
        "ptxas report of kernel {}: {} names no GPU to compile for; on the host backend set "
        "[runtime] device (e.g. --set runtime.device=h100)",
        kernel.name, device.name));
  const cuda::NvrtcCompiler compiler(device.compute_major * 10 + device.compute_minor, {});
  return compiler.ptxasReport(kernel);
}

DeviceAllocatorStats deviceAllocatorStats(Backend& backend) {
  return cuda::asCudaBackend(backend, "deviceAllocatorStats").allocator().stats();
}

void releaseCachedDeviceMemory(Backend& backend) {
  cuda::asCudaBackend(backend, "releaseCachedDeviceMemory").allocator().releaseCached();
}

void setCudaStream(Backend& backend, std::optional<uintptr_t> stream) {
  CUstream s = nullptr;
  if (stream) s = *stream == 0 ? CU_STREAM_LEGACY : reinterpret_cast<CUstream>(*stream);
  cuda::asCudaBackend(backend, "setCudaStream").device().useStream(s);
}

}  // namespace fusebox
