// A caching device allocator: freed blocks go to free lists by size class and
// serve later allocations of that class without a cuMemAlloc (which costs tens
// of microseconds and synchronizes). Reuse is ordered by the backend's single
// stream: a block freed while kernels on that stream still use it is only
// handed to work queued after them.
#pragma once

#include <fusebox/backend/cuda_backend.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/cuda/cuda_device.h"

namespace fusebox::cuda {

class DeviceAllocator {
 public:
  explicit DeviceAllocator(std::shared_ptr<CudaDevice> device);
  ~DeviceAllocator();
  DeviceAllocator(const DeviceAllocator&) = delete;
  DeviceAllocator& operator=(const DeviceAllocator&) = delete;

  // A block of at least `bytes` (256-byte aligned); 0 for 0 bytes. When the
  // driver is out of memory the free lists are released and the allocation
  // retried once; then UserError.
  CUdeviceptr allocate(int64_t bytes);
  // Returns a block from allocate() to its free list (or to the driver once
  // close() was called). A block remembers the stream it was allocated on
  // (CudaDevice::stream() then): reused on another stream, that stream is
  // waited for first, since work the block's last user queued there (torch,
  // on its stream, before it freed the tensor) may still read it.
  void free(CUdeviceptr ptr);
  // Returns every free block to the driver.
  void releaseCached();
  // The owning backend is going away: release the cache and stop caching (the
  // blocks tensors still hold are freed as the tensors go).
  void close();
  DeviceAllocatorStats stats() const;

  // The size class of a request: multiples of 512 bytes up to 1 MiB, of 2 MiB above.
  static int64_t roundedSize(int64_t bytes);

 private:
  void releaseCachedLocked();

  std::shared_ptr<CudaDevice> device_;
  mutable std::mutex mutex_;
  struct Block {
    CUdeviceptr ptr = 0;
    int64_t size = 0;           // size class
    CUstream stream = nullptr;  // the stream it was allocated on
  };
  std::map<int64_t, std::vector<Block>> free_blocks_;  // by size class
  std::unordered_map<CUdeviceptr, Block> in_use_;
  DeviceAllocatorStats stats_;
  bool closed_ = false;
};

}  // namespace fusebox::cuda
