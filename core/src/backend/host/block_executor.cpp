#include "backend/host/block_executor.h"

#include <fusebox/error.h>

#include "backend/host/cluster_group.h"
#include "backend/host/fiber_block.h"
#include "backend/host/grid_barrier.h"

namespace fusebox::host {
namespace {

// Plain-loop kernels have no barriers: a barrier or warp operation is only
// meaningful when the block has a single thread.
struct PlainThreadState {
  const std::string* kernel_name;
};

unsigned blockThreads(const ThreadContext* t) {
  return t->block_dim.x * t->block_dim.y * t->block_dim.z;
}

void plainBlockSync(ThreadContext* self) {
  if (blockThreads(self) == 1) return;
  failKernel(self, *static_cast<PlainThreadState*>(self->engine)->kernel_name,
             "calls __syncthreads() but its KernelSource has uses_block_sync = false, so the host "
             "backend runs the block's threads one after another");
}

void plainWarpSync(ThreadContext* self, unsigned) {
  if (blockThreads(self) == 1) return;
  failKernel(self, *static_cast<PlainThreadState*>(self->engine)->kernel_name,
             "uses a warp operation (shuffle, vote or __syncwarp) but its KernelSource has "
             "uses_block_sync = false, so the host backend runs the block's threads one after "
             "another");
}

void plainFail(ThreadContext* self, const char* message) {
  failKernel(self, *static_cast<PlainThreadState*>(self->engine)->kernel_name, message);
}

void plainGridSync(ThreadContext* self) {
  engineGridSync(self, *static_cast<PlainThreadState*>(self->engine)->kernel_name);
}

void plainClusterSync(ThreadContext* self) {
  engineClusterSync(self, *static_cast<PlainThreadState*>(self->engine)->kernel_name);
}

const void* plainClusterMap(ThreadContext* self, const void* p, unsigned rank) {
  return engineClusterMap(self, p, rank,
                          *static_cast<PlainThreadState*>(self->engine)->kernel_name);
}

const HostOps kPlainOps{plainBlockSync, plainWarpSync,    plainFail,
                        plainGridSync,  plainClusterSync, plainClusterMap};

thread_local PlainThreadState plain_state;

}  // namespace

void failKernel(const ThreadContext* t, const std::string& kernel_name,
                const std::string& message) {
  throw InternalError(
      fmt::format("kernel {} {} (host backend; block ({}, {}, {}), thread ({}, {}, {}))",
                  kernel_name, message, t->block_idx.x, t->block_idx.y, t->block_idx.z,
                  t->thread_idx.x, t->thread_idx.y, t->thread_idx.z));
}

BlockExecutor::BlockExecutor() = default;
BlockExecutor::~BlockExecutor() = default;

void BlockExecutor::prepare(const GridLaunch& launch) {
  launch_ = &launch;
  plain_state.kernel_name = launch.kernel_name;
  if (launch.fibers && !fibers_) fibers_ = std::make_unique<FiberBlockRunner>();
  if (launch.config == prepared_config_) {
    // Same shape as the last launch on this thread: only undo what fibers changed.
    if (contexts_hold_fiber_ops_) {
      for (ThreadContext& t : contexts_) {
        t.ops = &kPlainOps;
        t.engine = &plain_state;
      }
      contexts_hold_fiber_ops_ = false;
    }
    return;
  }
  contexts_hold_fiber_ops_ = false;
  prepared_config_ = launch.config;
  const auto& block = launch.config.block;
  const auto& grid = launch.config.grid;
  const unsigned count = block[0] * block[1] * block[2];
  const unsigned warps = (count + 31) / 32;
  contexts_.resize(count);
  warp_exchange_.assign(static_cast<size_t>(warps) * 32, 0);
  dynamic_shared_.resize(launch.config.dynamic_shared_memory + 16);
  auto* shared = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(dynamic_shared_.data()) + 15) & ~uintptr_t{15});
  for (unsigned i = 0; i < count; ++i) {
    ThreadContext& t = contexts_[i];
    t.thread_idx = {i % block[0], (i / block[0]) % block[1], i / (block[0] * block[1])};
    t.block_dim = {block[0], block[1], block[2]};
    t.grid_dim = {grid[0], grid[1], grid[2]};
    t.block_idx = {0, 0, 0};
    t.lane = i % 32;
    const unsigned lanes_in_warp = std::min(32u, count - (i / 32) * 32);
    t.warp_lane_mask = lanes_in_warp == 32 ? 0xffffffffu : (1u << lanes_in_warp) - 1u;
    t.warp_exchange = warp_exchange_.data() + (i / 32) * 32;
    t.dynamic_shared_memory = shared;
    t.ops = &kPlainOps;
    t.engine = &plain_state;
  }
}

unsigned char* BlockExecutor::dynamicShared() const {
  return contexts_.empty() ? nullptr : contexts_.front().dynamic_shared_memory;
}

void BlockExecutor::runBlock(int64_t linear_block) {
  const GridLaunch& launch = *launch_;
  const auto& grid = launch.config.grid;
  const Dim3Value block_idx{static_cast<unsigned>(linear_block % grid[0]),
                            static_cast<unsigned>((linear_block / grid[0]) % grid[1]),
                            static_cast<unsigned>(linear_block / (int64_t{grid[0]} * grid[1]))};
  for (ThreadContext& t : contexts_) t.block_idx = block_idx;
  if (launch.fibers && contexts_.size() > 1) {
    contexts_hold_fiber_ops_ = true;
    fibers_->run(launch.run, launch.params, contexts_.data(),
                 static_cast<unsigned>(contexts_.size()), *launch.kernel_name);
  } else {
    launch.run(contexts_.data(), static_cast<unsigned>(contexts_.size()), launch.params);
  }
}

}  // namespace fusebox::host
