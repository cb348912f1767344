#include "backend/host/grid_runner.h"

#include <fusebox/error.h>

#include <fstream>
#include <memory>
#include <system_error>
#include <utility>

#include "backend/host/cluster_group.h"
#include "backend/host/grid_barrier.h"

namespace fusebox::host {
namespace {

// Below this many thread runs a launch stays on the calling thread: waking
// workers costs tens of microseconds.
constexpr int64_t kMinParallelThreadRuns = 1 << 14;

// Each block of a cooperative launch is an OS thread of its own.
constexpr int64_t kMaxCooperativeBlocks = 1024;
// The portable cluster size on the GPU (LaunchConfig::cluster).
constexpr uint32_t kMaxClusterBlocks = 8;

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
  FUSEBOX_CHECK(c.cluster >= 1 && c.cluster <= kMaxClusterBlocks && c.grid[0] % c.cluster == 0,
                "kernel {}: a cluster of {} blocks over a grid of {} along x; a cluster has 1 to "
                "{} blocks and divides the grid's x extent",
                *launch.kernel_name, c.cluster, c.grid[0], kMaxClusterBlocks);
  FUSEBOX_CHECK(c.cluster == 1 || !c.cooperative,
                "kernel {}: a launch is cooperative or has clusters, not both",
                *launch.kernel_name);
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
  if (c.cluster > 1) {
    runClusters(launch, blocks);
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
  runTogether(launch, 0, preparedExecutors(launch, blocks), barrier, nullptr);
}

// One cluster after another, each cluster's blocks at once, on the same
// executors (their fiber stacks are made once a launch).
void GridRunner::runClusters(const GridLaunch& launch, int64_t blocks) {
  const int64_t size = launch.config.cluster;
  const std::vector<std::unique_ptr<BlockExecutor>> executors = preparedExecutors(launch, size);
  for (int64_t first = 0; first < blocks; first += size) {
    ClusterGroup cluster(size);
    cluster.shared_bytes = launch.config.dynamic_shared_memory;
    for (const auto& e : executors) cluster.shared.push_back(e->dynamicShared());
    runTogether(launch, first, executors, cluster.barrier, &cluster);
  }
}

// Prepared before any block starts: a cluster's blocks map each other's
// shared memory from their first instruction on.
std::vector<std::unique_ptr<BlockExecutor>> GridRunner::preparedExecutors(const GridLaunch& launch,
                                                                          int64_t count) {
  std::vector<std::unique_ptr<BlockExecutor>> executors;
  executors.reserve(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    executors.push_back(std::make_unique<BlockExecutor>());
    executors.back()->prepare(launch);
  }
  return executors;
}

// Blocks first, first + 1, ..., one on each executor, at once, each on an
// OS thread of its own (the caller's runs the first), waiting for each
// other at `barrier`: the grid's (cooperative) or the cluster's.
void GridRunner::runTogether(const GridLaunch& launch, int64_t first,
                             const std::vector<std::unique_ptr<BlockExecutor>>& executors,
                             GridBarrier& barrier, ClusterGroup* cluster) {
  const auto count = static_cast<int64_t>(executors.size());
  std::mutex error_mutex;
  std::exception_ptr first_error, first_broken;
  auto runOne = [&](int64_t b) {
    currentGridBarrier() = cluster == nullptr ? &barrier : nullptr;
    currentCluster() = cluster;
    try {
      executors[static_cast<size_t>(b)]->runBlock(first + b);
      barrier.blockFinished();
    } catch (const BarrierBroken&) {
      std::lock_guard lock(error_mutex);
      if (!first_broken) first_broken = std::current_exception();
    } catch (...) {
      barrier.breakBarrier();
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
    currentGridBarrier() = nullptr;
    currentCluster() = nullptr;
  };
  std::vector<std::thread> others;
  others.reserve(static_cast<size_t>(count - 1));
  try {
    for (int64_t b = 1; b < count; ++b) others.emplace_back(runOne, b);
  } catch (const std::system_error& e) {
    // No thread for a block: the ones started would wait for it forever.
    barrier.breakBarrier();
    for (std::thread& t : others) t.join();
    throw UserError(fmt::format(
        "kernel {}: {} blocks that wait for each other need an OS thread each on the host "
        "backend; starting one failed: {}",
        *launch.kernel_name, count, e.what()));
  }
  runOne(0);
  for (std::thread& t : others) t.join();
  if (first_error) std::rethrow_exception(first_error);
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
