#include "backend/cuda/device_allocator.h"

#include <fusebox/error.h>

#include <algorithm>

namespace fusebox::cuda {
namespace {

constexpr int64_t kSmallLimit = 1 << 20;
constexpr int64_t kSmallGranule = 512;
constexpr int64_t kLargeGranule = 2 << 20;

int64_t roundUp(int64_t value, int64_t granule) {
  return (value + granule - 1) / granule * granule;
}

}  // namespace

DeviceAllocator::DeviceAllocator(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {}

DeviceAllocator::~DeviceAllocator() {
  std::lock_guard lock(mutex_);
  releaseCachedLocked();
}

int64_t DeviceAllocator::roundedSize(int64_t bytes) {
  return bytes <= kSmallLimit ? roundUp(bytes, kSmallGranule) : roundUp(bytes, kLargeGranule);
}

CUdeviceptr DeviceAllocator::allocate(int64_t bytes) {
  FUSEBOX_CHECK(bytes >= 0, "negative allocation size {}", bytes);
  if (bytes == 0) return 0;
  const int64_t size = roundedSize(bytes);
  std::lock_guard lock(mutex_);
  if (!closed_) {
    // Small classes are reused exactly; a large request may take a block up to
    // a quarter bigger rather than allocate.
    auto it = free_blocks_.lower_bound(size);
    const int64_t slack = size <= kSmallLimit ? 0 : size / 4;
    if (it != free_blocks_.end() && it->first <= size + slack) {
      Block block = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) free_blocks_.erase(it);
      const CUstream stream = device_->stream();
      if (block.stream != stream) {
        device_->makeCurrent();
        check(driver().streamSynchronize(block.stream),
              "waiting for a reused block's earlier stream");
        block.stream = stream;
      }
      in_use_.emplace(block.ptr, block);
      stats_.reused++;
      stats_.bytes_cached -= block.size;
      stats_.bytes_in_use += block.size;
      return block.ptr;
    }
  }
  device_->makeCurrent();
  const DriverApi& api = driver();
  CUdeviceptr ptr = 0;
  CUresult result = api.memAlloc(&ptr, static_cast<size_t>(size));
  if (result == CUDA_ERROR_OUT_OF_MEMORY && stats_.bytes_cached > 0) {
    stats_.oom_retries++;
    releaseCachedLocked();
    result = api.memAlloc(&ptr, static_cast<size_t>(size));
  }
  if (result != CUDA_SUCCESS) {
    size_t free_bytes = 0, total_bytes = 0;
    api.memGetInfo(&free_bytes, &total_bytes);
    throw UserError(fmt::format(
        "cannot allocate {} bytes of GPU memory on {}: {} (fusebox holds {} bytes; the device "
        "has {} of {} bytes free)",
        bytes, device_->properties().name, errorText(result), stats_.bytes_in_use, free_bytes,
        total_bytes));
  }
  in_use_.emplace(ptr, Block{ptr, size, device_->stream()});
  stats_.driver_allocations++;
  stats_.bytes_in_use += size;
  return ptr;
}

void DeviceAllocator::free(CUdeviceptr ptr) {
  if (ptr == 0) return;
  std::lock_guard lock(mutex_);
  auto it = in_use_.find(ptr);
  FUSEBOX_CHECK(it != in_use_.end(),
                "freeing device pointer {:#x} that this allocator did not hand out",
                static_cast<uint64_t>(ptr));
  const Block block = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= block.size;
  if (closed_) {
    device_->makeCurrent();
    driver().memFree(ptr);  // errors ignored: nothing useful to do at teardown
    return;
  }
  free_blocks_[block.size].push_back(block);
  stats_.bytes_cached += block.size;
}

void DeviceAllocator::releaseCached() {
  std::lock_guard lock(mutex_);
  releaseCachedLocked();
}

void DeviceAllocator::releaseCachedLocked() {
  if (free_blocks_.empty()) return;
  device_->makeCurrent();
  const DriverApi& api = driver();
  // A freed block may still be used by queued kernels; cuMemFree does not wait
  // for them. Each stream the blocks were used on is waited for once.
  std::vector<CUstream> waited;
  for (auto& [size, blocks] : free_blocks_)
    for (const Block& b : blocks)
      if (std::find(waited.begin(), waited.end(), b.stream) == waited.end()) {
        api.streamSynchronize(b.stream);
        waited.push_back(b.stream);
      }
  for (auto& [size, blocks] : free_blocks_)
    for (const Block& b : blocks) api.memFree(b.ptr);
  free_blocks_.clear();
  stats_.bytes_cached = 0;
}

void DeviceAllocator::close() {
  std::lock_guard lock(mutex_);
  releaseCachedLocked();
  closed_ = true;
}

DeviceAllocatorStats DeviceAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace fusebox::cuda
