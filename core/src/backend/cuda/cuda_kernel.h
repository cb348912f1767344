// A loaded kernel: its module and function, launched on the device's stream
// with the one-parameter calling convention (kernel.h).
#pragma once

#include <fusebox/backend/backend.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "backend/cuda/cuda_device.h"

namespace fusebox::cuda {

class CudaKernel final : public CompiledKernel {
 public:
  // Loads `cubin` into the device's context; throws UserError naming the kernel
  // when the module does not load or lacks the function.
  CudaKernel(std::shared_ptr<CudaDevice> device, std::string name, const std::string& cubin);
  ~CudaKernel() override;

  const std::string& name() const override { return name_; }
  // Asynchronous. A launch the driver refuses (too many threads, too much
  // shared memory, ...) throws UserError naming the kernel, the launch
  // configuration and the driver's error. A grid with a zero extent launches
  // nothing. A cooperative launch whose blocks cannot all be resident at
  // once (the driver's occupancy for this kernel and block) is refused with
  // both figures, never launched to hang.
  void launch(const LaunchConfig& config, const KernelParams& params) override;

  CUfunction function() const { return function_; }
  CudaDevice& device() { return *device_; }
  int maxThreadsPerBlock() const { return max_threads_per_block_; }

 private:
  void allowDynamicSharedMemory(uint32_t bytes);
  std::string launchFailure(const LaunchConfig& config, CUresult result) const;
  void checkCoResident(const LaunchConfig& config);
  // Launches `config` with its thread-block clusters (cuLaunchKernelEx).
  CUresult launchCluster(const LaunchConfig& config, void** args);

  std::shared_ptr<CudaDevice> device_;
  std::string name_;
  const std::string* interned_name_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  int max_threads_per_block_ = 0;
  int static_shared_bytes_ = 0;
  // Dynamic shared memory this function may use without raising its limit
  // (read from the function when it is loaded).
  std::atomic<uint32_t> dynamic_shared_limit_{0};
  std::mutex attribute_mutex_;
};

}  // namespace fusebox::cuda
