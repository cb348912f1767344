// The host backend's barrier across blocks: grid-wide (fusebox::gridSync) for
// cooperative launches, cluster-wide (fusebox::clusterSync) for a cluster's
// blocks; each block runs on an OS thread of its own. A barrier
// that could never open (a block that returned, or failed, while others wait,
// or that calls fewer barriers than the rest) is an error, never a hang.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include <fusebox/error.h>

namespace fusebox::host {

// Thrown in the blocks that waited on a barrier another block's failure
// broke; the runner reports that block's own error instead.
class BarrierBroken : public InternalError {
 public:
  using InternalError::InternalError;
};

class GridBarrier {
 public:
  // `call`: the device function that waits at it, for the messages.
  explicit GridBarrier(int64_t blocks, const char* call = "gridSync")
      : blocks_(blocks), call_(call) {}
  // One call per block (by its thread 0); returns once every block called it
  // as many times. Throws when the barrier is broken.
  void arriveAndWait();
  // The calling block returned: later or pending waits cannot open.
  void blockFinished();
  // A block failed: wakes and fails the waiting blocks.
  void breakBarrier();

 private:
  // Breaks the barrier for `why`; waiting and later blocks fail with it.
  void breakFor(std::string why);
  [[noreturn]] void throwBroken() const;

  const int64_t blocks_;
  const char* call_;
  std::mutex mutex_;
  std::condition_variable opened_;
  int64_t arrived_ = 0, finished_ = 0;
  uint64_t generation_ = 0;
  bool broken_ = false;
  std::string broken_why_;  // empty: another block failed
};

// The barrier of the cooperative launch this OS thread runs a block of, or
// null (then gridSync is an error: the launch is not cooperative).
GridBarrier*& currentGridBarrier();

// The HostOps grid_sync both block engines use.
void engineGridSync(const struct ThreadContext* self, const std::string& kernel_name);

// Waits at `barrier` for the kernel's thread `self` (grid_sync,
// cluster_sync); a null barrier fails the kernel with `without`, and a
// barrier that can never open fails it with why.
void engineWait(GridBarrier* barrier, const struct ThreadContext* self,
                const std::string& kernel_name, const char* without);

}  // namespace fusebox::host
