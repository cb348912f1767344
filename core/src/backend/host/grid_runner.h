// Spreads a launch's blocks over a few OS threads (blocks of a CUDA grid do not
// depend on each other). Small grids run on the calling thread alone, so a
// short launch costs no thread hand-off. A cooperative launch, whose blocks
// wait for each other at gridSync, runs every block at once, each on its own
// OS thread; a launch with clusters runs one cluster at a time, its blocks
// at once on OS threads of their own. Launches are synchronous.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/host/block_executor.h"

namespace fusebox::host {

class GridBarrier;
struct ClusterGroup;

class GridRunner {
 public:
  // `threads` OS threads in all, the caller included (at least 1).
  explicit GridRunner(int threads);
  ~GridRunner();
  GridRunner(const GridRunner&) = delete;
  GridRunner& operator=(const GridRunner&) = delete;

  int threads() const { return threads_; }
  // Runs every block; rethrows the first error (remaining blocks are skipped).
  void run(const GridLaunch& launch);

 private:
  void workerLoop();
  void work(const GridLaunch& launch);
  void runCooperative(const GridLaunch& launch, int64_t blocks);
  void runClusters(const GridLaunch& launch, int64_t blocks);
  static std::vector<std::unique_ptr<BlockExecutor>> preparedExecutors(const GridLaunch& launch,
                                                                       int64_t count);
  void runTogether(const GridLaunch& launch, int64_t first,
                   const std::vector<std::unique_ptr<BlockExecutor>>& executors,
                   GridBarrier& barrier, ClusterGroup* cluster);

  const int threads_;
  std::mutex launch_mutex_;  // one launch at a time
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> workers_;
  const GridLaunch* job_ = nullptr;
  uint64_t job_number_ = 0;
  int busy_ = 0;
  bool stopping_ = false;
  std::atomic<int64_t> next_block_{0};
  int64_t total_blocks_ = 0;
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

}  // namespace fusebox::host
