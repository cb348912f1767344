// Runs one block's threads as Boost.Context fibers on the calling OS thread.
// __syncthreads and warp operations are barriers: a thread that reaches one
// switches back to a round-robin scheduler, which resumes it once every live
// thread involved has arrived. Threads that have returned count as arrived (as
// on the GPU). A round in which no thread can move is a deadlock and an error.
#pragma once

#include <fusebox/backend/kernel.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/host/block_executor.h"

namespace fusebox::host {

class StackPool;

class FiberBlockRunner {
 public:
  FiberBlockRunner();
  ~FiberBlockRunner();
  FiberBlockRunner(const FiberBlockRunner&) = delete;
  FiberBlockRunner& operator=(const FiberBlockRunner&) = delete;

  // Runs `count` threads (contexts prepared by BlockExecutor) to completion;
  // rethrows the first exception a thread raised.
  void run(RunThreadsFn fn, const KernelParams* params, ThreadContext* contexts, unsigned count,
           const std::string& kernel_name);

 private:
  std::unique_ptr<StackPool> stacks_;
};

}  // namespace fusebox::host
