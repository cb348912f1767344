// The cuda backend object behind createCudaBackend(): a device (context and
// stream), its caching allocator, the kernel cache (loaded kernels in memory,
// cubins on disk), and a cuBLAS handle made at first use.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/backend/kernel_cache.h>

#include <memory>
#include <mutex>
#include <string>

#include "backend/cuda/cuda_device.h"
#include "backend/cuda/device_allocator.h"
#include "backend/cuda/nvrtc_compile.h"

namespace fusebox::cuda {

class MappedSlots;  // pinned memory of allocateMapped (cuda_backend.cpp)

class CudaBackendImpl final : public Backend {
 public:
  explicit CudaBackendImpl(const CudaBackendOptions& options);
  ~CudaBackendImpl() override;

  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string describe() const override;
  std::shared_ptr<CompiledKernel> compile(const KernelSource& kernel,
                                          CompileTimings* timings = nullptr) override;
  Tensor allocate(DataType dtype, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides) override;
  Tensor toBackend(const Tensor& host) override;
  Tensor toHost(const Tensor& t) override;
  void memsetZero(const Tensor& t) override;
  void copy(const Tensor& src, const Tensor& dst) override;
  void synchronize() override;
  Tensor allocateMapped(int64_t words) override;

  CudaDevice& device() { return *device_; }
  DeviceAllocator& allocator() { return *allocator_; }
  // cuBLAS handle bound to the backend's stream (created at first use).
  void* cublasHandle();

 private:
  std::shared_ptr<CudaDevice> device_;
  std::shared_ptr<DeviceAllocator> allocator_;
  NvrtcCompiler compiler_;
  KernelCache cache_;  // loaded kernels (memory) and cubins (disk)
  std::once_flag cublas_once_;
  // Pinned slots of allocateMapped, made at its first use.
  std::once_flag mapped_slots_once_;
  std::shared_ptr<MappedSlots> mapped_slots_;
  void* cublas_handle_ = nullptr;
};

// The backend as a CudaBackendImpl, or UserError "<what> needs a cuda backend".
CudaBackendImpl& asCudaBackend(Backend& backend, std::string_view what);

}  // namespace fusebox::cuda
