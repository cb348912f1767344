#include "backend/host/grid_barrier.h"

#include <fusebox/error.h>

#include <utility>

#include "backend/host/block_executor.h"

namespace fusebox::host {

void GridBarrier::breakFor(std::string why) {
  if (!broken_) broken_why_ = std::move(why);
  broken_ = true;
  opened_.notify_all();
}

void GridBarrier::throwBroken() const {
  if (broken_why_.empty())
    throw BarrierBroken(fmt::format("another block waiting at {} failed", call_));
  throw UserError(broken_why_);
}

void GridBarrier::arriveAndWait() {
  std::unique_lock lock(mutex_);
  if (!broken_ && finished_ > 0)
    breakFor(
        fmt::format("{0}: {1} block(s) returned before this barrier, so it could never open; "
                    "every block must call {0} the same number of times",
                    call_, finished_));
  if (broken_) throwBroken();
  const uint64_t mine = generation_;
  if (++arrived_ == blocks_) {
    arrived_ = 0;
    ++generation_;
    opened_.notify_all();
    return;
  }
  opened_.wait(lock, [&] { return generation_ != mine || broken_; });
  if (generation_ == mine) throwBroken();
}

void GridBarrier::blockFinished() {
  std::lock_guard lock(mutex_);
  ++finished_;
  if (arrived_ > 0)
    breakFor(
        fmt::format("{0}: a block returned while {1} block(s) waited at a barrier it never "
                    "reached; every block must call {0} the same number of times",
                    call_, arrived_));
}

void GridBarrier::breakBarrier() {
  std::lock_guard lock(mutex_);
  breakFor({});
}

GridBarrier*& currentGridBarrier() {
  thread_local GridBarrier* barrier = nullptr;
  return barrier;
}

void engineWait(GridBarrier* barrier, const ThreadContext* self, const std::string& kernel_name,
                const char* without) {
  if (barrier == nullptr) failKernel(self, kernel_name, without);
  try {
    barrier->arriveAndWait();
  } catch (const BarrierBroken&) {
    throw;
  } catch (const UserError& e) {
    failKernel(self, kernel_name, e.what());
  }
}

void engineGridSync(const ThreadContext* self, const std::string& kernel_name) {
  engineWait(currentGridBarrier(), self, kernel_name,
             "calls gridSync in a launch that is not cooperative (LaunchConfig::cooperative), "
             "whose blocks need not run at the same time");
}

}  // namespace fusebox::host
