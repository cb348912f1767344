#include "backend/cuda/cuda_kernel.h"

#include <fusebox/error.h>

#include <algorithm>

namespace fusebox::cuda {

CudaKernel::CudaKernel(std::shared_ptr<CudaDevice> device, std::string name,
                       const std::string& cubin)
    : device_(std::move(device)), name_(std::move(name)) {
  interned_name_ = device_->internKernelName(name_);
  device_->makeCurrent();
  const DriverApi& api = driver();
  check(api.moduleLoadData(&module_, cubin.data()),
        fmt::format("loading the cubin of kernel {} (cuModuleLoadData)", name_));
  CUresult found = api.moduleGetFunction(&function_, module_, name_.c_str());
  if (found != CUDA_SUCCESS) {
    api.moduleUnload(module_);
    throw UserError(
        fmt::format("kernel {}: the compiled module has no function of that name ({}); declare it "
                    "extern \"C\" __global__ void {}(fusebox::KernelParams p)",
                    name_, errorText(found), name_));
  }
  check(api.funcGetAttribute(&max_threads_per_block_, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                             function_),
        "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  check(api.funcGetAttribute(&static_shared_bytes_, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_),
        "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  // The default limit is 48 KiB less the static shared memory, not 48 KiB:
  // a kernel with 18 KiB static and 32 KiB dynamic must raise it (else the
  // occupancy check counts 0 blocks and the launch fails).
  int dynamic_limit = 0;
  check(api.funcGetAttribute(&dynamic_limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             function_),
        "cuFuncGetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  dynamic_shared_limit_.store(static_cast<uint32_t>(std::max(0, dynamic_limit)));
}

CudaKernel::~CudaKernel() {
  // Unloading waits for nothing: the caller synchronizes before dropping kernels
  // it still has in flight (the backend keeps every kernel it compiled).
  try {
    device_->makeCurrent();
    driver().moduleUnload(module_);
  } catch (const UserError&) {
    // The driver is gone (process exit) or the context is broken: nothing to free.
  }
}

void CudaKernel::allowDynamicSharedMemory(uint32_t bytes) {
  std::lock_guard lock(attribute_mutex_);
  if (bytes <= dynamic_shared_limit_.load()) return;
  const int64_t optin = device_->properties().shared_memory_per_block;
  if (static_cast<int64_t>(bytes) + static_shared_bytes_ > optin)
    throw UserError(fmt::format(
        "kernel {}: launch asks for {} bytes of dynamic shared memory; with its {} bytes of "
        "static shared memory that exceeds the {} bytes per block that {} allows",
        name_, bytes, static_shared_bytes_, optin, device_->properties().name));
  check(
      driver().funcSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(bytes)),
      fmt::format("kernel {}: raising its dynamic shared memory limit to {} bytes", name_, bytes));
  dynamic_shared_limit_.store(bytes);
}

std::string CudaKernel::launchFailure(const LaunchConfig& c, CUresult result) const {
  const uint64_t threads = uint64_t{c.block[0]} * c.block[1] * c.block[2];
  std::string hints;
  if (threads > static_cast<uint64_t>(max_threads_per_block_))
    hints += fmt::format("; the block has {} threads but the kernel allows at most {}", threads,
                         max_threads_per_block_);
  const int64_t optin = device_->properties().shared_memory_per_block;
  if (c.dynamic_shared_memory + static_shared_bytes_ > optin)
    hints += fmt::format("; {} bytes of shared memory exceed the device's {} per block",
                         c.dynamic_shared_memory + static_shared_bytes_, optin);
  return fmt::format(
      "launch of kernel {} failed: {} (grid [{}, {}, {}], block [{}, {}, {}], {} bytes of dynamic "
      "shared memory){}",
      name_, errorText(result), c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
      c.dynamic_shared_memory, hints);
}

void CudaKernel::checkCoResident(const LaunchConfig& c) {
  const int threads = static_cast<int>(c.block[0] * c.block[1] * c.block[2]);
  int per_sm = 0;
  check(driver().occupancyMaxActiveBlocks(&per_sm, function_, threads, c.dynamic_shared_memory),
        fmt::format("kernel {}: cuOccupancyMaxActiveBlocksPerMultiprocessor", name_));
  const uint64_t resident = uint64_t(per_sm) * device_->properties().multiprocessor_count;
  const uint64_t blocks = uint64_t{c.grid[0]} * c.grid[1] * c.grid[2];
  if (blocks > resident)
    throw UserError(fmt::format(
        "kernel {}: a cooperative launch of {} blocks of {} threads, but only {} fit on {} at "
        "once ({} per multiprocessor with this kernel's registers and shared memory); its blocks "
        "wait for each other, so all must be resident",
        name_, blocks, threads, resident, device_->properties().name, per_sm));
}

CUresult CudaKernel::launchCluster(const LaunchConfig& c, void** args) {
  const int max = device_->properties().max_cluster_blocks;
  if (c.cooperative || static_cast<int>(c.cluster) > max || c.grid[0] % c.cluster != 0)
    throw UserError(fmt::format(
        "kernel {}: a launch with clusters of {} blocks over a grid of {} along x{}; {} allows "
        "clusters of at most {} blocks, dividing the grid's x extent, in launches that are not "
        "cooperative",
        name_, c.cluster, c.grid[0], c.cooperative ? ", cooperative" : "",
        device_->properties().name, max));
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = c.cluster;
  attribute.value.clusterDim.y = 1;
  attribute.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = c.grid[0];
  config.gridDimY = c.grid[1];
  config.gridDimZ = c.grid[2];
  config.blockDimX = c.block[0];
  config.blockDimY = c.block[1];
  config.blockDimZ = c.block[2];
  config.sharedMemBytes = c.dynamic_shared_memory;
  config.hStream = device_->stream();
  config.attrs = &attribute;
  config.numAttrs = 1;
  return driver().launchKernelEx(&config, function_, args, nullptr);
}

void CudaKernel::launch(const LaunchConfig& c, const KernelParams& params) {
  if (c.grid[0] == 0 || c.grid[1] == 0 || c.grid[2] == 0) return;
  device_->makeCurrent();
  if (c.dynamic_shared_memory > dynamic_shared_limit_.load(std::memory_order_relaxed))
    allowDynamicSharedMemory(c.dynamic_shared_memory);
  // The driver copies the parameter block at launch: `params` may go right after.
  void* args[] = {const_cast<KernelParams*>(&params)};
  CUresult result;
  if (c.cluster > 1) {
    result = launchCluster(c, args);
  } else if (c.cooperative) {
    checkCoResident(c);
    result = driver().launchCooperativeKernel(function_, c.grid[0], c.grid[1], c.grid[2],
                                              c.block[0], c.block[1], c.block[2],
                                              c.dynamic_shared_memory, device_->stream(), args);
  } else {
    result = driver().launchKernel(function_, c.grid[0], c.grid[1], c.grid[2], c.block[0],
                                   c.block[1], c.block[2], c.dynamic_shared_memory,
                                   device_->stream(), args, nullptr);
  }
  if (result != CUDA_SUCCESS) throw UserError(launchFailure(c, result));
  device_->noteLaunch(interned_name_);
}

}  // namespace fusebox::cuda
