// Runs the blocks of a host-backend launch on the calling OS thread: a
// block's threads either one after another (plain loop) or, for kernels that
// synchronize, as fibers that switch at every barrier (fiber_block.h).
#pragma once

#include <fusebox/backend/kernel.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fusebox_runtime/host/abi.h"

namespace fusebox::host {

// fusebox_host_run_threads in the kernel library (fusebox_runtime/host/entry.h).
using RunThreadsFn = void (*)(ThreadContext* threads, unsigned count, const KernelParams* params);

struct GridLaunch {
  RunThreadsFn run = nullptr;
  LaunchConfig config;
  const KernelParams* params = nullptr;
  bool fibers = false;  // KernelSource::uses_block_sync
  const std::string* kernel_name = nullptr;
};

class FiberBlockRunner;

class BlockExecutor {
 public:
  BlockExecutor();
  ~BlockExecutor();
  // Sets up thread contexts, exchange areas and shared memory for a launch.
  void prepare(const GridLaunch& launch);
  // Runs block number `linear_block` (x fastest) of the prepared launch.
  void runBlock(int64_t linear_block);
  // The prepared launch's dynamic shared memory (16-byte aligned).
  unsigned char* dynamicShared() const;

 private:
  const GridLaunch* launch_ = nullptr;
  // The shape the contexts were built for, to rebuild them only when it changes.
  LaunchConfig prepared_config_{{0, 0, 0}, {0, 0, 0}, 0};
  std::vector<ThreadContext> contexts_;
  bool contexts_hold_fiber_ops_ = false;  // a fiber block ran since they were set up
  std::vector<uint64_t> warp_exchange_;
  std::vector<unsigned char> dynamic_shared_;  // over-allocated for 16-byte alignment
  std::unique_ptr<FiberBlockRunner> fibers_;
};

// Builds the error for a kernel that broke an engine rule or trapped.
[[noreturn]] void failKernel(const ThreadContext* thread, const std::string& kernel_name,
                             const std::string& message);

}  // namespace fusebox::host
