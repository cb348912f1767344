// One device as a backend uses it: the device's primary context (shared with
// any other CUDA user in the process, e.g. PyTorch), one non-blocking stream,
// the properties schedulers read, and a note of the kernels launched since the
// last synchronize so an error surfacing there can name them.
#pragma once

#include <fusebox/scheduler.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "backend/cuda/driver_api.h"

namespace fusebox::cuda {

class CudaDevice {
 public:
  // Throws UserError when the driver, the device or its context is unavailable.
  explicit CudaDevice(int ordinal);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  // Makes the context current on the calling thread (cheap when it already is).
  void makeCurrent() const;
  // The stream launches, copies and allocations go on: the device's own, or
  // the one useStream set.
  CUstream stream() const { return external_stream_ != nullptr ? external_stream_ : stream_; }
  // Work goes on `stream` (another CUDA user's in the primary context, e.g.
  // torch's current stream) from now on; nullptr: the device's own stream.
  // Switching waits for the stream left first, so that memory its work used
  // (the caching allocator's blocks) is free of it before work on the other
  // stream reuses it.
  void useStream(CUstream stream);
  CUdevice device() const { return device_; }
  int ordinal() const { return ordinal_; }
  // shared_memory_per_block is the opt-in maximum: the backend raises a
  // kernel's dynamic shared memory limit past 48 KB when a launch asks for it.
  const DeviceProperties& properties() const { return properties_; }
  int arch() const { return properties_.compute_major * 10 + properties_.compute_minor; }
  int64_t totalMemory() const { return total_memory_; }

  // A stable pointer to `name` for noteLaunch (names are kept for the device's life).
  const std::string* internKernelName(const std::string& name);
  void noteLaunch(const std::string* kernel_name) {
    last_launch_.store(kernel_name, std::memory_order_relaxed);
    launches_since_sync_.fetch_add(1, std::memory_order_relaxed);
  }
  // Waits for the stream. An error here (an illegal address, a trap) throws
  // UserError naming `what` and the last kernel launched.
  void synchronize(std::string_view what);
  // "after kernel k (the last of 3 launches since the previous synchronize)".
  std::string recentLaunches() const;

 private:
  int ordinal_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUstream external_stream_ = nullptr;
  DeviceProperties properties_;
  int64_t total_memory_ = 0;
  std::mutex names_mutex_;
  std::set<std::string> kernel_names_;
  std::atomic<const std::string*> last_launch_{nullptr};
  std::atomic<int64_t> launches_since_sync_{0};
};

}  // namespace fusebox::cuda
