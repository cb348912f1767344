// The binary interface between a kernel compiled for the host backend and the
// engine in libfusebox_runtime that runs it (core/src/backend/host/). Plain C
// layout: both sides include this one definition.
//
// The kernel library exports
//   extern "C" int fusebox_host_abi_version();            // == kHostAbiVersion
//   extern "C" void fusebox_host_run_thread(fusebox::host::ThreadContext*,
//                                           const fusebox::KernelParams*);
// The engine calls run_thread once per CUDA thread, as a plain loop or, for
// kernels that synchronize, each call on its own fiber. Barriers and warp
// exchanges call back into the engine through HostOps.
#pragma once

#include <cstdint>

namespace fusebox::host {

inline constexpr int kHostAbiVersion = 3;

struct Dim3Value {
  unsigned x, y, z;
};

struct ThreadContext;

struct HostOps {
  // __syncthreads: returns when every live thread of the block has arrived.
  void (*block_sync)(ThreadContext* self);
  // A warp-wide barrier among the live lanes in `mask` (each warp operation is
  // two: after every lane wrote its value, and after every lane read).
  void (*warp_sync)(ThreadContext* self, unsigned mask);
  // __trap / a broken precondition: throws, never returns.
  void (*fail)(ThreadContext* self, const char* message);
  // fusebox::gridSync's wait, called by one thread per block: returns when
  // every block of the (cooperative) launch has called it as often; fails in
  // a launch that is not cooperative.
  void (*grid_sync)(ThreadContext* self);
  // fusebox::clusterSync's wait, called by one thread per block: returns when
  // every block of this thread's cluster has called it as often; fails in a
  // launch without clusters.
  void (*cluster_sync)(ThreadContext* self);
  // fusebox::clusterPeer: the address in block `rank` of this thread's
  // cluster of what `p` (in this block's dynamic shared memory) points to;
  // fails for another address or rank.
  const void* (*cluster_map)(ThreadContext* self, const void* p, unsigned rank);
};

struct ThreadContext {
  Dim3Value thread_idx;
  Dim3Value block_idx;
  Dim3Value block_dim;
  Dim3Value grid_dim;
  unsigned lane;
  unsigned warp_lane_mask;  // lanes that exist in this thread's warp
  // 32 slots of 8 bytes: this warp's exchange area for shuffles and votes.
  uint64_t* warp_exchange;
  // The launch's dynamic shared memory, one buffer per block.
  unsigned char* dynamic_shared_memory;
  const HostOps* ops;
  void* engine;  // the engine's own state for this thread
};

}  // namespace fusebox::host
