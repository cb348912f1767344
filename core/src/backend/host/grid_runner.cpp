#include "backend/host/grid_runner.h"

#include <fusebox/error.h>

#include <fstream>
#include <system_error>
#include <utility>

#include "backend/host/grid_barrier.h"

namespace fusebox::host {
namespace {

// Below this many thread runs a launch stays on the calling thread: waking
// workers costs tens of microseconds.
constexpr int64_t kMinParallelThreadRuns = 1 << 14;

// Each block of a cooperative launch is an OS thread of its own.
constexpr int64_t kMaxCooperativeBlocks = 1024;

// The memory mappings a process may hold (vm.max_map_count; Linux's
// default when it cannot be read). Read once, not on every launch.
int64_t maxMapCount() {
  static const int64_t count = [] {
    std::ifstream in("/proc/sys/vm/max_map_count");
    int64_t n = 0;
    return in >> n && n > 0 ? n : int64_t{65530};
  }();
  return count;
}

BlockExecutor& executorOfThisThread() {
  thread_local BlockExecutor executor;
  return executor;
}

void checkLaunch(const GridLaunch& launch) {
  const auto& c = launch.config;
  const int64_t threads = int64_t{c.block[0]} * c.block[1] * c.block[2];
  FUSEBOX_CHECK(threads >= 1 && threads <= 1024,
                "kernel {}: a block has {} threads; CUDA allows 1 to 1024", *launch.kernel_name,
                threads);
  FUSEBOX_CHECK(c.block[2] <= 64, "kernel {}: block z extent {} exceeds 64", *launch.kernel_name,
                c.block[2]);
  FUSEBOX_CHECK(c.grid[1] <= 65535 && c.grid[2] <= 65535,
                "kernel {}: grid y/z extents ({}, {}) exceed 65535", *launch.kernel_name, c.grid[1],
                c.grid[2]);
}

}  // namespace

GridRunner::GridRunner(int threads) : threads_(std::max(1, threads)) {}

GridRunner::~GridRunner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void GridRunner::run(const GridLaunch& launch) {
  const auto& c = launch.config;
  const int64_t blocks = int64_t{c.grid[0]} * c.grid[1] * c.grid[2];
  if (blocks == 0) return;
  checkLaunch(launch);
  const int64_t block_threads = int64_t{c.block[0]} * c.block[1] * c.block[2];

  std::lock_guard launch_lock(launch_mutex_);
  if (c.cooperative) {
    runCooperative(launch, blocks);
    return;
  }
  if (threads_ == 1 || blocks == 1 || blocks * block_threads < kMinParallelThreadRuns) {
    BlockExecutor& executor = executorOfThisThread();
    executor.prepare(launch);
    for (int64_t b = 0; b < blocks; ++b) executor.runBlock(b);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (workers_.empty())
      for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { workerLoop(); });
    job_ = &launch;
    ++job_number_;
    busy_ = static_cast<int>(workers_.size());
    next_block_ = 0;
    total_blocks_ = blocks;
    failed_ = false;
    error_ = nullptr;
  }
  wake_.notify_all();
  work(launch);
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return busy_ == 0; });
  job_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

// Every block at once, as a cooperative launch on the GPU runs them: a block
// waiting at gridSync holds its OS thread, and the others go on on theirs.
void GridRunner::runCooperative(const GridLaunch& launch, int64_t blocks) {
  FUSEBOX_CHECK(blocks <= kMaxCooperativeBlocks,
                "kernel {}: a cooperative launch of {} blocks; the host backend runs each block of "
                "a cooperative grid on an OS thread of its own and allows at most {}",
                *launch.kernel_name, blocks, kMaxCooperativeBlocks);
  // Every thread of every block is live at once (a block waits at gridSync
  // with its threads suspended), each on a fiber stack with a guard page:
  // two mappings each, and the OS threads' own. Refuse before the kernel
  // starts rather than fail inside it.
  const auto& c = launch.config;
  const int64_t threads = blocks * c.block[0] * c.block[1] * c.block[2];
  const int64_t mappings = 2 * threads + 2 * blocks, limit = maxMapCount() * 3 / 4;
  if (mappings > limit)
    throw UserError(fmt::format(
        "kernel {}: a cooperative launch of {} blocks of {} threads keeps all {} threads' stacks "
        "at once on the host backend ({} memory mappings), more than the {} this process may "
        "use (three quarters of vm.max_map_count)",
        *launch.kernel_name, blocks, threads / blocks, threads, mappings, limit));
  GridBarrier barrier(blocks);
  std::mutex error_mutex;
  std::exception_ptr first, first_broken;
  auto runOne = [&](int64_t b) {
    try {
      BlockExecutor executor;
      executor.prepare(launch);
      currentGridBarrier() = &barrier;
      executor.runBlock(b);
      currentGridBarrier() = nullptr;
      barrier.blockFinished();
    } catch (const BarrierBroken&) {
      currentGridBarrier() = nullptr;
      std::lock_guard lock(error_mutex);
      if (!first_broken) first_broken = std::current_exception();
    } catch (...) {
      currentGridBarrier() = nullptr;
      barrier.breakBarrier();
      std::lock_guard lock(error_mutex);
      if (!first) first = std::current_exception();
    }
  };
  std::vector<std::thread> others;
  others.reserve(static_cast<size_t>(blocks - 1));
  try {
    for (int64_t b = 1; b < blocks; ++b) others.emplace_back(runOne, b);
  } catch (const std::system_error& e) {
    // No thread for a block: the ones started would wait for it forever.
    barrier.breakBarrier();
    for (std::thread& t : others) t.join();
    throw UserError(
        fmt::format("kernel {}: a cooperative launch of {} blocks needs an OS thread "
                    "per block on the host backend; starting one failed: {}",
                    *launch.kernel_name, blocks, e.what()));
  }
  runOne(0);
  for (std::thread& t : others) t.join();
  if (first) std::rethrow_exception(first);
  if (first_broken) std::rethrow_exception(first_broken);
}

void GridRunner::work(const GridLaunch& launch) {
  try {
    BlockExecutor& executor = executorOfThisThread();
    executor.prepare(launch);
    for (int64_t b = next_block_++; b < total_blocks_ && !failed_; b = next_block_++)
      executor.runBlock(b);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    failed_ = true;
  }
}

void GridRunner::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || job_number_ != seen; });
    if (stopping_) return;
    seen = job_number_;
    const GridLaunch* job = job_;
    lock.unlock();
    work(*job);
    lock.lock();
    if (--busy_ == 0) finished_.notify_all();
  }
}

}  // namespace fusebox::host
