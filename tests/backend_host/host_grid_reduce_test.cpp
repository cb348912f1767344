// The cross-block and sub-warp reductions of the device runtime
// (fusebox_runtime/grid_reduce.cuh), run on the host backend, whose blocks run
// on several OS threads in no fixed order: exactly one block of each group is
// the last to arrive, it sees every partial, and the ticket resets itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backend_host/host_test_util.h"

namespace fusebox::testing {
namespace {

// Column sums of a rows x cols int64 matrix (rows = p.i64[0], cols = p.i64[1]):
// block (blockIdx.x, blockIdx.y) sums columns [32 * blockIdx.x, +32) over its
// gridDim.y-th share of the rows into partials[blockIdx.y][col]; the last block
// of each column group adds the partials in order. finishers[blockIdx.x] counts
// the blocks that thought they were last.
const char* kColumnSumSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void column_sums(fusebox::KernelParams p) {
  const int64_t* in = static_cast<const int64_t*>(p.ptr[0]);
  int64_t* out = static_cast<int64_t*>(p.ptr[1]);
  int64_t* partials = static_cast<int64_t*>(p.ptr[2]);
  unsigned int* tickets = static_cast<unsigned int*>(p.ptr[3]);
  unsigned int* finishers = static_cast<unsigned int*>(p.ptr[4]);
  const int64_t rows = p.i64[0], cols = p.i64[1];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  __shared__ int64_t smem[32 * 8];
  int64_t acc = 0;
  if (col < cols)
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
         r += static_cast<int64_t>(gridDim.y) * blockDim.y)
      acc += in[r * cols + col];
  smem[threadIdx.y * 32 + threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0) {
    for (unsigned y = 1; y < blockDim.y; ++y) acc += smem[y * 32 + threadIdx.x];
    if (col < cols) partials[blockIdx.y * cols + col] = acc;
  }
  if (!fusebox::arriveLastOfBlocks(&tickets[blockIdx.x], gridDim.y)) return;
  if (fusebox::linearThreadIdx() == 0) atomicAdd(&finishers[blockIdx.x], 1u);
  if (threadIdx.y != 0 || col >= cols) return;
  int64_t total = 0;
  for (unsigned b = 0; b < gridDim.y; ++b)
    total += fusebox::loadFromOtherBlock(&partials[b * cols + col]);
  out[col] = total;
}
)";

TEST(HostGridReduce, LastBlockOfEachGroupSeesEveryPartialAndTicketsReset) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("column_sums", kColumnSumSource, true));
  const int64_t rows = 1000, cols = 70;  // 3 column groups, the last one ragged
  const uint32_t groups = 3, splits = 13;
  std::vector<int64_t> in(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) in[i] = (i * 7919) % 1009 - 500;
  std::vector<int64_t> out(cols, -1), partials(splits * cols, 0), expected(cols, 0);
  std::vector<unsigned int> tickets(groups, 0), finishers(groups, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) expected[c] += in[r * cols + c];
  KernelParams p{};
  p.ptr[0] = in.data();
  p.ptr[1] = out.data();
  p.ptr[2] = partials.data();
  p.ptr[3] = tickets.data();
  p.ptr[4] = finishers.data();
  p.i64[0] = rows;
  p.i64[1] = cols;
  // Twice with the same tickets: the last block of each group leaves its ticket at 0.
  for (int launch = 1; launch <= 2; ++launch) {
    std::fill(out.begin(), out.end(), -1);
    kernel->launch(launchConfig({groups, splits, 1}, {32, 8, 1}), p);
    EXPECT_EQ(out, expected) << "launch " << launch;
    for (uint32_t g = 0; g < groups; ++g) {
      EXPECT_EQ(finishers[g], static_cast<unsigned>(launch)) << "group " << g;
      EXPECT_EQ(tickets[g], 0u) << "group " << g;
    }
  }
}

// Lane i contributes i + 1; groups of p.i64[0] lanes (1, 2, 4, 8, 16 or 32) sum them.
const char* kGroupSumSource = R"(#include <fusebox_runtime.cuh>
template <int Width>
FUSEBOX_DEVICE int groupSum(int v) {
  return fusebox::warpGroupReduce<Width>(v, fusebox::ReduceSum{});
}
extern "C" __global__ void group_sums(fusebox::KernelParams p) {
  int* out = static_cast<int*>(p.ptr[0]);
  const int v = static_cast<int>(threadIdx.x) + 1;
  int r = 0;
  switch (p.i64[0]) {
    case 1: r = groupSum<1>(v); break;
    case 2: r = groupSum<2>(v); break;
    case 4: r = groupSum<4>(v); break;
    case 8: r = groupSum<8>(v); break;
    case 16: r = groupSum<16>(v); break;
    default: r = groupSum<32>(v); break;
  }
  out[threadIdx.x] = r;
}
)";

TEST(HostGridReduce, WarpGroupReduceSumsEachAlignedGroupOfLanes) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("group_sums", kGroupSumSource, true));
  for (int width : {1, 2, 4, 8, 16, 32}) {
    std::vector<int> out(32, 0);
    KernelParams p{};
    p.ptr[0] = out.data();
    p.i64[0] = width;
    kernel->launch(launchConfig({1, 1, 1}, {32, 1, 1}), p);
    for (int lane = 0; lane < 32; ++lane) {
      const int first = lane / width * width;
      int expected = 0;
      for (int k = first; k < first + width; ++k) expected += k + 1;
      EXPECT_EQ(out[lane], expected) << "width " << width << " lane " << lane;
    }
  }
}

}  // namespace
}  // namespace fusebox::testing
