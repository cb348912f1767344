#include "backend/host/fiber_block.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include <fusebox/error.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <exception>

#include "backend/host/cluster_group.h"
#include "backend/host/grid_barrier.h"

namespace fusebox::host {

namespace ctx = boost::context;

// Fiber stacks, reused across blocks: mapping 1024 stacks per block would
// cost more than running it. Each has a guard page below it, so an overflow
// faults instead of corrupting a neighbour.
class StackPool {
 public:
  static constexpr size_t kStackBytes = 128 * 1024;
  ~StackPool() {
    for (const ctx::stack_context& s : free_) release(s);
  }
  ctx::stack_context take() {
    if (!free_.empty()) {
      ctx::stack_context s = free_.back();
      free_.pop_back();
      return s;
    }
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t total = kStackBytes + page;
    void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(base, page, PROT_NONE);
    ctx::stack_context s;
    s.size = total;
    s.sp = static_cast<char*>(base) + total;  // stacks grow down
    return s;
  }
  void give(const ctx::stack_context& s) { free_.push_back(s); }

 private:
  static void release(const ctx::stack_context& s) {
    ::munmap(static_cast<char*>(s.sp) - s.size, s.size);
  }
  std::vector<ctx::stack_context> free_;
};

namespace {

// Boost.Context's stack allocator interface over the pool.
struct PooledStackAllocator {
  StackPool* pool;
  ctx::stack_context* handed_out;  // where the fiber's stack is noted (for AddressSanitizer)
  ctx::stack_context allocate() { return *handed_out = pool->take(); }
  void deallocate(ctx::stack_context& s) noexcept { pool->give(s); }
};

struct Barrier {
  unsigned arrived = 0;
  unsigned mask = 0;  // warp barriers: the lanes taking part
  uint64_t generation = 0;
};

struct Block;

// Thrown inside a suspended thread to unwind it once the block has failed.
// (Destroying a suspended Boost fiber would unwind it too, but from a throw
// that AddressSanitizer cannot be told about.)
struct BlockAborted {};

struct FiberThread {
  ThreadContext* context = nullptr;
  Block* block = nullptr;
  unsigned warp = 0;
  ctx::fiber fiber;  // the suspended thread, as the scheduler holds it
  ctx::fiber sink;   // the scheduler, as the running thread holds it
  ctx::stack_context stack;
  void* asan_fake_stack = nullptr;
  // While waiting: the barrier generation it waits to see change.
  const uint64_t* wait_generation = nullptr;
  uint64_t wait_value = 0;
  bool done = false;
};

struct Block {
  std::vector<FiberThread> threads;
  unsigned live = 0;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<unsigned> live_lanes;  // per warp
  std::exception_ptr error;
  // After an error: suspended threads are resumed only to unwind (BlockAborted).
  bool aborting = false;
  const std::string* kernel_name = nullptr;
  // The scheduler's stack, as AddressSanitizer needs to hear of it.
  const void* scheduler_stack_bottom = nullptr;
  size_t scheduler_stack_size = 0;
  void* scheduler_fake_stack = nullptr;
};

// AddressSanitizer must hear of every switch between stacks, or it reports
// false errors; these compile to nothing without it.
#if defined(__SANITIZE_ADDRESS__)
void schedulerSwitchesTo(Block& b, const FiberThread& t) {
  __sanitizer_start_switch_fiber(&b.scheduler_fake_stack,
                                 static_cast<char*>(t.stack.sp) - t.stack.size, t.stack.size);
}
void schedulerResumed(Block& b) {
  __sanitizer_finish_switch_fiber(b.scheduler_fake_stack, nullptr, nullptr);
}
void fiberSwitchesToScheduler(FiberThread* t, bool exiting) {
  __sanitizer_start_switch_fiber(exiting ? nullptr : &t->asan_fake_stack,
                                 t->block->scheduler_stack_bottom, t->block->scheduler_stack_size);
}
void fiberResumed(FiberThread* t) {
  __sanitizer_finish_switch_fiber(t->asan_fake_stack, &t->block->scheduler_stack_bottom,
                                  &t->block->scheduler_stack_size);
}
#else
void schedulerSwitchesTo(Block&, const FiberThread&) {}
void schedulerResumed(Block&) {}
void fiberSwitchesToScheduler(FiberThread*, bool) {}
void fiberResumed(FiberThread*) {}
#endif

void release(Barrier& barrier) {
  barrier.arrived = 0;
  ++barrier.generation;
}

// Arrives at `barrier`; returns once `expected` threads have (switching to the
// scheduler until then).
void arriveAndWait(FiberThread* t, Barrier& barrier, unsigned expected) {
  const uint64_t generation = barrier.generation;
  if (++barrier.arrived >= expected) {
    release(barrier);
    return;
  }
  t->wait_generation = &barrier.generation;
  t->wait_value = generation;
  fiberSwitchesToScheduler(t, false);
  t->sink = std::move(t->sink).resume();
  fiberResumed(t);
  if (t->block->aborting) throw BlockAborted{};
  t->wait_generation = nullptr;
}

unsigned warpExpected(const Block& b, unsigned warp) {
  return static_cast<unsigned>(__builtin_popcount(b.warp_barriers[warp].mask & b.live_lanes[warp]));
}

void fiberBlockSync(ThreadContext* self) {
  auto* t = static_cast<FiberThread*>(self->engine);
  arriveAndWait(t, t->block->block_barrier, t->block->live);
}

void fiberWarpSync(ThreadContext* self, unsigned mask) {
  auto* t = static_cast<FiberThread*>(self->engine);
  Block& b = *t->block;
  Barrier& barrier = b.warp_barriers[t->warp];
  if (barrier.arrived == 0) barrier.mask = mask | (1u << self->lane);
  arriveAndWait(t, barrier, warpExpected(b, t->warp));
}

void fiberFail(ThreadContext* self, const char* message) {
  failKernel(self, *static_cast<FiberThread*>(self->engine)->block->kernel_name, message);
}

// Only thread 0 of a block waits at the grid barrier, holding up this OS
// thread: the block's other threads wait at the __syncthreads after it.
void fiberGridSync(ThreadContext* self) {
  engineGridSync(self, *static_cast<FiberThread*>(self->engine)->block->kernel_name);
}

// The same for the cluster barrier; a peer's shared memory is plain memory.
void fiberClusterSync(ThreadContext* self) {
  engineClusterSync(self, *static_cast<FiberThread*>(self->engine)->block->kernel_name);
}

const void* fiberClusterMap(ThreadContext* self, const void* p, unsigned rank) {
  return engineClusterMap(self, p, rank,
                          *static_cast<FiberThread*>(self->engine)->block->kernel_name);
}

const HostOps kFiberOps{fiberBlockSync, fiberWarpSync,    fiberFail,
                        fiberGridSync,  fiberClusterSync, fiberClusterMap};

// A thread returned (or threw): it no longer holds up the barriers it is part of.
void retire(FiberThread* t) {
  Block& b = *t->block;
  t->done = true;
  --b.live;
  b.live_lanes[t->warp] &= ~(1u << t->context->lane);
  if (b.block_barrier.arrived > 0 && b.block_barrier.arrived >= b.live) release(b.block_barrier);
  Barrier& warp = b.warp_barriers[t->warp];
  if (warp.arrived > 0 && warp.arrived >= warpExpected(b, t->warp)) release(warp);
}

std::string describeDeadlock(const Block& b) {
  unsigned at_block = 0, at_warp = 0;
  for (const FiberThread& t : b.threads) {
    if (t.done || !t.wait_generation) continue;
    (t.wait_generation == &b.block_barrier.generation ? at_block : at_warp) += 1;
  }
  return fmt::format(
      "deadlocked: {} thread(s) wait at __syncthreads() and {} at warp operations that the "
      "other threads of the block never reach ({} of {} threads have returned)",
      at_block, at_warp, b.threads.size() - b.live, b.threads.size());
}

}  // namespace

FiberBlockRunner::FiberBlockRunner() : stacks_(std::make_unique<StackPool>()) {}
FiberBlockRunner::~FiberBlockRunner() = default;

void FiberBlockRunner::run(RunThreadsFn fn, const KernelParams* params, ThreadContext* contexts,
                           unsigned count, const std::string& kernel_name) {
  Block b;
  b.kernel_name = &kernel_name;
  b.threads.resize(count);
  b.live = count;
  const unsigned warps = (count + 31) / 32;
  b.warp_barriers.resize(warps);
  b.live_lanes.resize(warps);
  for (unsigned w = 0; w < warps; ++w) b.live_lanes[w] = contexts[w * 32].warp_lane_mask;

  for (unsigned i = 0; i < count; ++i) {
    FiberThread* t = &b.threads[i];
    t->context = &contexts[i];
    t->block = &b;
    t->warp = i / 32;
    contexts[i].ops = &kFiberOps;
    contexts[i].engine = t;
    t->fiber = ctx::fiber(std::allocator_arg, PooledStackAllocator{stacks_.get(), &t->stack},
                          [t, fn, params](ctx::fiber&& sink) {
                            fiberResumed(t);
                            t->sink = std::move(sink);
                            try {
                              if (!t->block->aborting) fn(t->context, 1, params);
                            } catch (const BlockAborted&) {
                              // unwound on purpose: another thread failed
                            } catch (...) {
                              if (!t->block->error) t->block->error = std::current_exception();
                            }
                            retire(t);
                            fiberSwitchesToScheduler(t, true);
                            return std::move(t->sink);
                          });
  }

  // Round robin over the threads that can move; a round where none can is a deadlock.
  while (b.live > 0 && !b.error) {
    bool moved = false;
    for (FiberThread& t : b.threads) {
      if (t.done || (t.wait_generation && *t.wait_generation == t.wait_value)) continue;
      schedulerSwitchesTo(b, t);
      t.fiber = std::move(t.fiber).resume();
      schedulerResumed(b);
      moved = true;
      if (b.error) break;
    }
    if (!moved) {
      b.error = std::make_exception_ptr(InternalError(
          fmt::format("kernel {} {} (host backend)", kernel_name, describeDeadlock(b))));
    }
  }
  // After an error, unwind the threads still suspended (or never started).
  if (b.error) {
    b.aborting = true;
    for (FiberThread& t : b.threads) {
      if (t.done) continue;
      schedulerSwitchesTo(b, t);
      t.fiber = std::move(t.fiber).resume();
      schedulerResumed(b);
    }
    std::rethrow_exception(b.error);
  }
}

}  // namespace fusebox::host
