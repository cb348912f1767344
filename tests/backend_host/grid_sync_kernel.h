// A kernel whose blocks wait for each other (fusebox::gridSync), shared by
// the host and cuda backend tests: `rounds` times, every block publishes its
// value, waits at the grid barrier, and adds the value its right neighbour
// published. With `skip_block_0`, block 0 returns before the first barrier
// (a kernel bug that must be an error, never a hang).
#pragma once

#include <cstdint>
#include <vector>

namespace fusebox::testing {

inline const char* kGridSyncRingSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void ring_rounds(fusebox::KernelParams p) {
  int64_t* slots = static_cast<int64_t*>(p.ptr[0]);  // two halves of gridDim.x
  int64_t* out = static_cast<int64_t*>(p.ptr[1]);
  unsigned int* barrier = static_cast<unsigned int*>(p.ptr[2]);
  const int64_t rounds = p.i64[0];
  const unsigned n = gridDim.x, b = blockIdx.x;
  if (p.i64[1] != 0 && b == 0) return;
  __shared__ int64_t value;
  if (threadIdx.x == 0) value = b;
  for (int64_t r = 0; r < rounds; ++r) {
    // Round r uses half r % 2: round r + 2 overwrites it only after the
    // barrier of round r + 1, which every block reaches after its reads.
    int64_t* half = slots + (r % 2) * n;
    if (threadIdx.x == 0) half[b] = value;
    fusebox::gridSync(barrier);
    if (threadIdx.x == 0) value += fusebox::loadFromOtherBlock(&half[(b + 1) % n]);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[b] = value;
}
)";

// What ring_rounds leaves in out[] for `blocks` blocks.
inline std::vector<int64_t> ringRoundsExpected(int64_t blocks, int64_t rounds) {
  std::vector<int64_t> v(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) v[static_cast<size_t>(b)] = b;
  for (int64_t r = 0; r < rounds; ++r) {
    std::vector<int64_t> next(v.size());
    for (int64_t b = 0; b < blocks; ++b)
      next[static_cast<size_t>(b)] =
          v[static_cast<size_t>(b)] + v[static_cast<size_t>((b + 1) % blocks)];
    v = next;
  }
  return v;
}

}  // namespace fusebox::testing
