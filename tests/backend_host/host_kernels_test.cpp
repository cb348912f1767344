// Hand-written kernels in the calling convention (kernel.h), run on the host
// backend: vector loads with ragged tails, block and warp reductions, many
// blocks, dynamic shared memory, and the errors the engine reports (misaligned
// vector accesses included).
#include <fmt/format.h>
#include <fusebox/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "backend_host/host_test_util.h"

namespace fusebox::testing {
namespace {

using ::testing::HasSubstr;

// out[i] = 2 * in[i] + 1 over n = p.i64[0] floats, 4 per thread with one
// 16-byte load when the whole vector is in range, element by element in the tail.
const char* kScaleSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void scale_vec4(fusebox::KernelParams p) {
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  const int64_t n = p.i64[0];
  const int64_t block = static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  const int64_t first = (block * blockDim.x + threadIdx.x) * 4;
  if (first + 4 <= n) {
    fusebox::Array<float, 4> v = fusebox::loadVec<4>(in + first);
    for (int k = 0; k < 4; ++k) v[k] = 2.0f * v[k] + 1.0f;
    fusebox::storeVec<4>(out + first, v);
  } else {
    for (int64_t i = first; i < n; ++i) out[i] = 2.0f * in[i] + 1.0f;
  }
  // Every thread counts itself once: checks that each block ran exactly once.
  atomicAdd(static_cast<unsigned long long*>(p.ptr[2]), 1ull);
}
)";

TEST(HostKernels, VectorizedElementwiseWithRaggedTails) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("scale_vec4", kScaleSource, false));
  for (int64_t n : {1, 3, 4, 5, 127, 1027, 4099}) {
    Tensor in = Tensor::empty(DataType::Float, {n});
    for (int64_t i = 0; i < n; ++i)
      static_cast<float*>(in.data())[i] = static_cast<float>(i) - 7.5f;
    Tensor out = backend.allocate(DataType::Float, {n}, {1});
    Tensor count = backend.allocate(DataType::Int64, {1}, {1});
    KernelParams p{};
    p.ptr[0] = in.data();
    p.ptr[1] = out.data();
    p.ptr[2] = count.data();
    p.i64[0] = n;
    const uint32_t threads = 32;
    const uint32_t blocks = static_cast<uint32_t>((n + 4 * threads - 1) / (4 * threads));
    kernel->launch(launchConfig({blocks, 1, 1}, {threads, 1, 1}), p);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(static_cast<float*>(out.data())[i], 2.0f * (static_cast<float>(i) - 7.5f) + 1.0f)
          << "n=" << n << " i=" << i;
    EXPECT_EQ(*static_cast<int64_t*>(count.data()), int64_t{blocks} * threads);
  }
}

TEST(HostKernels, ManyBlocksOverTwoGridDimensionsRunOnWorkerThreads) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("scale_vec4", kScaleSource, false));
  const uint32_t threads = 64, gx = 300, gy = 3;  // 57600 threads: the parallel path
  const int64_t n = int64_t{gx} * gy * threads * 4 - 3;
  Tensor in = Tensor::empty(DataType::Float, {n});
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(in.data())[i] = static_cast<float>(i % 1000);
  Tensor out = backend.allocate(DataType::Float, {n}, {1});
  Tensor count = backend.allocate(DataType::Int64, {1}, {1});
  KernelParams p{};
  p.ptr[0] = in.data();
  p.ptr[1] = out.data();
  p.ptr[2] = count.data();
  p.i64[0] = n;
  kernel->launch(launchConfig({gx, gy, 1}, {threads, 1, 1}), p);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(static_cast<float*>(out.data())[i], 2.0f * static_cast<float>(i % 1000) + 1.0f) << i;
  EXPECT_EQ(*static_cast<int64_t*>(count.data()), int64_t{gx} * gy * threads);
}

// One block per row of an m-column matrix (m = p.i64[0]); p.i64[1] picks what
// the block computes:
//   0: sum of the row by blockReduce (whole block)
//   1: per threadIdx.y slice, the max by blockReduceX (row = blockIdx.x * blockDim.y + y)
//   2: Welford variance (m2 / n) of the row by warp shuffles + blockReduce
//   3: the row reversed through dynamic shared memory (m == block size)
//   4: per threadIdx.y slice, the sum and the max at once by
//      storeWarpPartial / combineWarpPartials (out[2r], out[2r + 1]), twice
//      in a row through the same slots
const char* kReduceSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void block_reductions(fusebox::KernelParams p) {
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  const int64_t m = p.i64[0];
  const int mode = static_cast<int>(p.i64[1]);
  __shared__ float smem[1024];
  __shared__ fusebox::Welford<float> wsmem[1024];
  const int tid = fusebox::linearThreadIdx();
  const int nthreads = fusebox::blockThreadCount();
  if (mode == 0) {
    const float* row = in + blockIdx.x * m;
    float acc = 0.0f;
    for (int64_t j = tid; j < m; j += nthreads) acc += row[j];
    const float total = fusebox::blockReduce(acc, fusebox::ReduceSum{}, smem);
    if (tid == 0) out[blockIdx.x] = total;
    // Every thread got the total.
    if (total != fusebox::blockReduce(total, fusebox::ReduceMax{}, smem)) __trap();
  } else if (mode == 1) {
    const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
    const float* row = in + r * m;
    float acc = fusebox::NumericLimits<float>::lowest();
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x) acc = fusebox::op::maximum(acc, row[j]);
    const float best = fusebox::blockReduceX(acc, fusebox::ReduceMax{}, smem);
    if (threadIdx.x == 0) out[r] = best;
  } else if (mode == 2) {
    const float* row = in + blockIdx.x * m;
    fusebox::Welford<float> w = fusebox::welfordInit<float>();
    for (int64_t j = tid; j < m; j += nthreads) fusebox::welfordUpdate(w, row[j]);
    w = fusebox::blockReduce(w, fusebox::WelfordCombine{}, wsmem);
    if (tid == 0) out[blockIdx.x] = w.m2 / static_cast<float>(w.n);
  } else if (mode == 4) {
    const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
    const float* row = in + r * m;
    float sum = 0.0f, best = fusebox::NumericLimits<float>::lowest();
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
      sum += row[j];
      best = fusebox::op::maximum(best, row[j]);
    }
    unsigned char* const slots = reinterpret_cast<unsigned char*>(smem);
    float* const sums = reinterpret_cast<float*>(slots);
    float* const bests = reinterpret_cast<float*>(slots + fusebox::warpSlotBytes<float>());
    for (int round = 0; round < 2; ++round) {
      // The second round combines the first's results again: every lane
      // holds the row's total, so the sum grows by the lane count.
      fusebox::storeWarpPartial(sum, fusebox::ReduceSum{}, sums);
      fusebox::storeWarpPartial(best, fusebox::ReduceMax{}, bests);
      __syncthreads();
      // The warp count is the kernel's constant: one case a block shape.
#define COMBINE(W)                                                   \
  case W:                                                            \
    sum = fusebox::combineWarpPartials<W>(fusebox::ReduceSum{}, sums);    \
    best = fusebox::combineWarpPartials<W>(fusebox::ReduceMax{}, bests); \
    break;
      switch (blockDim.x / 32) {
        COMBINE(2)
        COMBINE(3)
        COMBINE(8)
        COMBINE(32)
        default:
          __trap();
      }
#undef COMBINE
      __syncthreads();
      if (round == 0 && threadIdx.x == 0) {
        out[2 * r] = sum;
        out[2 * r + 1] = best;
      }
    }
    // Every lane of the row got the same results.
    if (threadIdx.x == 1 && (sum != out[2 * r] * static_cast<float>(blockDim.x) ||
                             best != out[2 * r + 1]))
      __trap();
  } else {
    float* staged = fusebox::dynamicSharedMemory<float>();
    staged[tid] = in[blockIdx.x * m + tid];
    __syncthreads();
    out[blockIdx.x * m + tid] = staged[nthreads - 1 - tid];
  }
}
)";

std::vector<float> rowValues(int64_t rows, int64_t m) {
  std::vector<float> v(rows * m);
  for (int64_t i = 0; i < rows * m; ++i) v[i] = static_cast<float>((i * 37) % 101) * 0.25f - 3.0f;
  return v;
}

Tensor hostFloats(const std::vector<float>& v) {
  Tensor t = Tensor::empty(DataType::Float, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), static_cast<float*>(t.data()));
  return t;
}

std::vector<float> runReduction(int mode, int64_t rows, int64_t m, std::array<uint32_t, 3> block,
                                uint32_t grid, int64_t outputs, uint32_t dynamic_shared = 0) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("block_reductions", kReduceSource, true));
  Tensor in = hostFloats(rowValues(rows, m));
  Tensor out = backend.allocate(DataType::Float, {outputs}, {1});
  KernelParams p{};
  p.ptr[0] = in.data();
  p.ptr[1] = out.data();
  p.i64[0] = m;
  p.i64[1] = mode;
  kernel->launch(launchConfig({grid, 1, 1}, block, dynamic_shared), p);
  const float* o = static_cast<const float*>(out.data());
  return std::vector<float>(o, o + outputs);
}

TEST(HostKernels, BlockSumWithSharedMemoryAndSyncthreads) {
  // 160 blocks of 128 threads: enough thread runs for the blocks to spread over
  // worker threads, each with its own __shared__ arrays.
  const int64_t rows = 160, m = 1000;
  const std::vector<float> values = rowValues(rows, m);
  // 128 threads reduce through warps; 100 threads through the shared-memory tree.
  for (uint32_t threads : {128u, 100u, 1u}) {
    const std::vector<float> sums = runReduction(0, rows, m, {threads, 1, 1}, rows, rows);
    for (int64_t r = 0; r < rows; ++r) {
      double expected = 0;
      for (int64_t j = 0; j < m; ++j) expected += values[r * m + j];
      EXPECT_NEAR(sums[r], expected, 1e-3) << "threads=" << threads << " row=" << r;
    }
  }
}

TEST(HostKernels, BlockReduceXReducesEachRowOfTheBlockSeparately) {
  const int64_t m = 77;
  // 64 columns of threads reduce through warps; 24 through the shared-memory tree.
  for (std::array<uint32_t, 3> block : {std::array<uint32_t, 3>{64, 4, 1}, {24, 3, 1}}) {
    const int64_t rows = 2 * block[1];
    const std::vector<float> values = rowValues(rows, m);
    const std::vector<float> best = runReduction(1, rows, m, block, 2, rows);
    for (int64_t r = 0; r < rows; ++r) {
      const float expected =
          *std::max_element(values.begin() + r * m, values.begin() + (r + 1) * m);
      EXPECT_EQ(best[r], expected) << "block.x=" << block[0] << " row " << r;
    }
  }
}

TEST(HostKernels, SeveralStatesCombineAcrossWarpsInOneBarrier) {
  const int64_t m = 301;
  for (std::array<uint32_t, 3> block :
       {std::array<uint32_t, 3>{64, 4, 1}, {96, 2, 1}, {256, 1, 1}, {1024, 1, 1}}) {
    const int64_t rows = 3 * block[1];
    const std::vector<float> values = rowValues(rows, m);
    const std::vector<float> out = runReduction(4, rows, m, block, 3, 2 * rows);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < m; ++j) sum += values[r * m + j];
      const float best = *std::max_element(values.begin() + r * m, values.begin() + (r + 1) * m);
      EXPECT_NEAR(out[2 * r], sum, 1e-3) << "block.x=" << block[0] << " row " << r;
      EXPECT_EQ(out[2 * r + 1], best) << "block.x=" << block[0] << " row " << r;
    }
  }
}

TEST(HostKernels, WelfordVarianceThroughWarpShufflesAndBlockReduce) {
  const int64_t rows = 3, m = 513;
  const std::vector<float> values = rowValues(rows, m);
  for (uint32_t threads : {64u, 96u, 33u}) {
    const std::vector<float> var = runReduction(2, rows, m, {threads, 1, 1}, rows, rows);
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, m2 = 0;
      for (int64_t j = 0; j < m; ++j) mean += values[r * m + j];
      mean /= m;
      for (int64_t j = 0; j < m; ++j) m2 += (values[r * m + j] - mean) * (values[r * m + j] - mean);
      EXPECT_NEAR(var[r], m2 / m, 1e-3 * (m2 / m)) << "threads=" << threads << " row=" << r;
    }
  }
}

TEST(HostKernels, DynamicSharedMemoryIsPerBlock) {
  const int64_t rows = 300, m = 64;  // 300 blocks of 64 threads: spread over worker threads
  const std::vector<float> values = rowValues(rows, m);
  const std::vector<float> out =
      runReduction(3, rows, m, {64, 1, 1}, rows, rows * m, 64 * sizeof(float));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < m; ++j) ASSERT_EQ(out[r * m + j], values[r * m + (m - 1 - j)]);
}

// Warp operations: p.ptr[0] gets per-lane results (int64), 64 threads = 2 warps.
const char* kWarpSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void warp_ops(fusebox::KernelParams p) {
  int64_t* out = static_cast<int64_t*>(p.ptr[0]);
  const int tid = fusebox::linearThreadIdx();
  const int lane = fusebox::laneId();
  const int64_t mine = (tid * 7919) % 1009;
  out[tid * 6 + 0] = fusebox::warpReduce(mine, fusebox::ReduceMax{});
  out[tid * 6 + 1] = fusebox::warpReduce(mine, fusebox::ReduceSum{});
  out[tid * 6 + 2] = fusebox::shflIdx(mine, 5);
  out[tid * 6 + 3] = fusebox::shflDown(mine, 3u);
  out[tid * 6 + 4] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  out[tid * 6 + 5] = __any_sync(0xffffffffu, tid == 40) + 2 * __all_sync(0xffffffffu, lane < 32);
}
)";

TEST(HostKernels, WarpShufflesAndVotes) {
  Backend& backend = sharedHostBackend();
  auto kernel = backend.compile(kernelSource("warp_ops", kWarpSource, true));
  Tensor out = backend.allocate(DataType::Int64, {64 * 6}, {1});
  KernelParams p{};
  p.ptr[0] = out.data();
  kernel->launch(launchConfig({1, 1, 1}, {64, 1, 1}), p);
  const int64_t* o = static_cast<const int64_t*>(out.data());
  auto value = [](int tid) { return static_cast<int64_t>((tid * 7919) % 1009); };
  uint32_t ballot = 0;
  for (int lane = 0; lane < 32; lane += 3) ballot |= 1u << lane;
  for (int tid = 0; tid < 64; ++tid) {
    const int warp = tid / 32, lane = tid % 32;
    int64_t max = 0, sum = 0;
    for (int l = 0; l < 32; ++l) {
      max = std::max(max, value(warp * 32 + l));
      sum += value(warp * 32 + l);
    }
    EXPECT_EQ(o[tid * 6 + 0], max) << tid;
    EXPECT_EQ(o[tid * 6 + 1], sum) << tid;
    EXPECT_EQ(o[tid * 6 + 2], value(warp * 32 + 5)) << tid;
    EXPECT_EQ(o[tid * 6 + 3], lane + 3 < 32 ? value(tid + 3) : value(tid)) << tid;
    EXPECT_EQ(o[tid * 6 + 4], ballot) << tid;
    EXPECT_EQ(o[tid * 6 + 5], (warp == 1 ? 1 : 0) + 2) << tid;
  }
}

// Broken kernels: p.i64[0] picks the fault.
const char* kFaultSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void faults(fusebox::KernelParams p) {
  if (p.i64[0] == 0) {
    __syncthreads();
  } else if (p.i64[0] == 1) {
    // Thread 0 waits at the block barrier, the rest of its warp at a warp barrier.
    if (threadIdx.x == 0) { __syncthreads(); __syncwarp(); }
    else { __syncwarp(); __syncthreads(); }
  } else if (threadIdx.x == 3) {
    __trap();
  }
}
)";

void launchFault(bool uses_block_sync, int64_t fault, uint32_t threads) {
  auto kernel = sharedHostBackend().compile(kernelSource("faults", kFaultSource, uses_block_sync));
  KernelParams p{};
  p.i64[0] = fault;
  kernel->launch(launchConfig({2, 1, 1}, {threads, 1, 1}), p);
}

TEST(HostKernels, SyncthreadsWithoutUsesBlockSyncIsAnError) {
  try {
    launchFault(false, 0, 32);
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel faults calls __syncthreads()"));
    EXPECT_THAT(e.what(), HasSubstr("uses_block_sync = false"));
  }
  EXPECT_NO_THROW(launchFault(false, 0, 1));  // one thread per block: nothing to wait for
  EXPECT_NO_THROW(launchFault(true, 0, 48));
}

TEST(HostKernels, DeadlockAndTrapAreErrorsNamingTheKernelAndThread) {
  try {
    launchFault(true, 1, 32);
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel faults deadlocked: 1 thread(s) wait at __syncthreads() "
                                    "and 31 at warp operations"));
  }
  try {
    launchFault(true, 2, 32);
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel faults __trap() called"));
    EXPECT_THAT(e.what(), HasSubstr("block (0, 0, 0), thread (3, 0, 0)"));
  }
  // The backend still works afterwards.
  EXPECT_NO_THROW(launchFault(true, 0, 64));
}

// One vector of 4 floats copied from in + p.i64[0] to out + p.i64[1]; a
// vector of 8 halves when p.i64[2] is 1. Element offsets that are no
// multiple of the vector make misaligned accesses.
const char* kMisalignedSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void copy_one_vector(fusebox::KernelParams p) {
  if (p.i64[2] == 0) {
    const float* in = static_cast<const float*>(p.ptr[0]) + p.i64[0];
    float* out = static_cast<float*>(p.ptr[1]) + p.i64[1];
    fusebox::storeVec<4>(out, fusebox::loadVec<4>(in));
  } else {
    const fusebox::Half* in = static_cast<const fusebox::Half*>(p.ptr[0]) + p.i64[0];
    fusebox::Half* out = static_cast<fusebox::Half*>(p.ptr[1]) + p.i64[1];
    fusebox::storeVec<8>(out, fusebox::loadVec<8>(in));
  }
}
)";

// Copies one vector with the given element offsets; "" when it ran, else the error.
std::string copyOneVector(int64_t in_offset, int64_t out_offset, bool half, Tensor& in,
                          Tensor& out) {
  auto kernel =
      sharedHostBackend().compile(kernelSource("copy_one_vector", kMisalignedSource, false));
  KernelParams p{};
  p.ptr[0] = in.data();
  p.ptr[1] = out.data();
  p.i64[0] = in_offset;
  p.i64[1] = out_offset;
  p.i64[2] = half ? 1 : 0;
  try {
    kernel->launch(launchConfig({1, 1, 1}, {1, 1, 1}), p);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(HostKernels, MisalignedVectorAccessIsAnErrorNamingTheAccess) {
  // Host storage is 64-byte aligned: float offsets 0, 4, 8 are 16-byte
  // aligned, 1, 2, 3 are not.
  Tensor in = Tensor::empty(DataType::Float, {16});
  for (int64_t i = 0; i < 16; ++i) static_cast<float*>(in.data())[i] = static_cast<float>(i + 1);
  Tensor out = Tensor::empty(DataType::Float, {16});
  ASSERT_EQ(copyOneVector(4, 8, false, in, out), "");
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(static_cast<float*>(out.data())[8 + i], 5.0f + i);

  const auto address = [](const Tensor& t, int64_t byte_offset) {
    return fmt::format("0x{:x}", reinterpret_cast<uintptr_t>(t.data()) + byte_offset);
  };
  std::string error = copyOneVector(1, 0, false, in, out);
  EXPECT_THAT(error, HasSubstr("kernel copy_one_vector made a misaligned vector access: "
                               "loadVec<4> of 4-byte elements at address " +
                               address(in, 4) + ", which is not a multiple of 16 bytes"));
  EXPECT_THAT(error, HasSubstr("block (0, 0, 0), thread (0, 0, 0)"));
  error = copyOneVector(0, 2, false, in, out);
  EXPECT_THAT(error, HasSubstr("storeVec<4> of 4-byte elements at address " + address(out, 8) +
                               ", which is not a multiple of 16 bytes"));
  // Half: 8 per vector; an offset of 4 halves is 8 bytes, half a vector.
  error = copyOneVector(4, 0, true, in, out);
  EXPECT_THAT(error, HasSubstr("loadVec<8> of 2-byte elements at address " + address(in, 8) +
                               ", which is not a multiple of 16 bytes"));
  EXPECT_EQ(copyOneVector(8, 0, true, in, out), "");  // 16 bytes in: aligned
}

TEST(HostKernels, ZeroSizedGridRunsNothing) {
  auto kernel = sharedHostBackend().compile(kernelSource("faults", kFaultSource, true));
  KernelParams p{};
  p.i64[0] = 2;  // would trap if any thread ran
  EXPECT_NO_THROW(kernel->launch(launchConfig({0, 1, 1}, {32, 1, 1}), p));
}

TEST(HostKernels, BadBlockShapeIsAnError) {
  auto kernel = sharedHostBackend().compile(kernelSource("faults", kFaultSource, true));
  KernelParams p{};
  EXPECT_THROW(kernel->launch(launchConfig({1, 1, 1}, {2048, 1, 1}), p), InternalError);
  EXPECT_THROW(kernel->launch(launchConfig({1, 1, 1}, {0, 1, 1}), p), InternalError);
}

}  // namespace
}  // namespace fusebox::testing
