// A kernel whose blocks form thread-block clusters (LaunchConfig::cluster),
// shared by the host and cuda backend tests: `rounds` times, every block
// keeps its value in its dynamic shared memory, waits at the cluster
// barrier, and adds the value of the next block of its cluster, read from
// that block's shared memory (fusebox::clusterPeer). With `skip_rank_0`,
// the first block of each cluster returns before the first barrier (a
// kernel bug that must be an error, never a hang).
#pragma once

#include <cstdint>
#include <vector>

namespace fusebox::testing {

inline const char* kClusterRingSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void cluster_ring(fusebox::KernelParams p) {
  int64_t* out = static_cast<int64_t*>(p.ptr[0]);
  const int64_t rounds = p.i64[0];
  const unsigned size = static_cast<unsigned>(p.i64[2]);
  const unsigned rank = blockIdx.x % size;
  if (p.i64[1] != 0 && rank == 0) return;
  // Two slots: round r writes slot r % 2, which round r + 2 overwrites only
  // after the barrier of round r + 1, past every read of round r.
  int64_t* slots = fusebox::dynamicSharedMemory<int64_t>();
  int64_t value = blockIdx.x;
  for (int64_t r = 0; r < rounds; ++r) {
    int64_t* slot = slots + r % 2;
    if (threadIdx.x == 0) *slot = value;
    fusebox::clusterSync();
    value += *fusebox::clusterPeer(slot, (rank + 1) % size);
  }
  fusebox::clusterSync();  // no block leaves while another may read its slots
  if (threadIdx.x == 0) out[blockIdx.x] = value;
}
)";

// What cluster_ring leaves in out[] for `blocks` blocks in clusters of `size`.
inline std::vector<int64_t> clusterRingExpected(int64_t blocks, int64_t size, int64_t rounds) {
  std::vector<int64_t> v(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) v[static_cast<size_t>(b)] = b;
  for (int64_t r = 0; r < rounds; ++r) {
    std::vector<int64_t> next(v.size());
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b / size * size, peer = first + (b - first + 1) % size;
      next[static_cast<size_t>(b)] = v[static_cast<size_t>(b)] + v[static_cast<size_t>(peer)];
    }
    v = next;
  }
  return v;
}

}  // namespace fusebox::testing
