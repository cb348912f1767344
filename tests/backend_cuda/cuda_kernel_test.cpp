// Compiling and launching hand-written kernels in the calling convention:
// elementwise, a shared-memory block reduction, more than 48 KB of dynamic
// shared memory, scalar parameters, and the device properties schedulers read.
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "backend_cuda/cuda_test_util.h"
#include "backend_host/cluster_kernel.h"
#include "backend_host/grid_sync_kernel.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::hostTensor;
using test::userErrorOf;
using ::testing::HasSubstr;

// out[i] = in[i] * f64[0] + i64[1] for i < i64[0]. Defines KernelParams itself
// (no runtime header), as any source in the calling convention may; the array
// sizes come from the host's struct, so the layouts cannot drift apart.
const std::string kScaleAdd =
    fmt::format(R"(
namespace fusebox {{
struct KernelParams {{ void* ptr[{}]; long long i64[{}]; double f64[{}]; }};
}}
extern "C" __global__ void scale_add(fusebox::KernelParams p) {{
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  long long n = p.i64[0];
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (float)p.f64[0] + (float)p.i64[1];
}}
)",
                KernelParams::kMaxPointers, KernelParams::kMaxInts, KernelParams::kMaxDoubles);

KernelParams paramsOf(std::initializer_list<void*> ptrs, std::initializer_list<int64_t> ints = {},
                      std::initializer_list<double> doubles = {}) {
  KernelParams p{};
  int i = 0;
  for (void* x : ptrs) p.ptr[i++] = x;
  i = 0;
  for (int64_t x : ints) p.i64[i++] = x;
  i = 0;
  for (double x : doubles) p.f64[i++] = x;
  return p;
}

class CudaKernelTest : public CudaTest {};

TEST_F(CudaKernelTest, ElementwiseKernelWithScalarParams) {
  // n is not a multiple of the block: the bounds check in the kernel matters.
  const int64_t n = 100003;
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % 97) * 0.5;
  Tensor in = backend().toBackend(hostTensor(DataType::Float, {n}, values));
  Tensor out = backend().allocate(DataType::Float, {n}, {1});
  auto kernel = backend().compile({"scale_add", kScaleAdd, {}, false});
  EXPECT_EQ(kernel->name(), "scale_add");
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>((n + 255) / 256), 1, 1};
  config.block = {256, 1, 1};
  kernel->launch(config, paramsOf({in.data(), out.data()}, {n, 2}, {3.0}));
  Tensor result = backend().toHost(out);
  ASSERT_EQ(result.numel(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(result.getDouble({i}), values[i] * 3 + 2) << "element " << i;
}

// Each block sums 256 consecutive values through a shared-memory tree.
constexpr const char* kBlockSum = R"(
#include <fusebox_runtime.cuh>
extern "C" __global__ void block_sum(fusebox::KernelParams p) {
  __shared__ float partial[256];
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  int64_t n = p.i64[0];
  int64_t i = (int64_t)blockIdx.x * 256 + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
)";

TEST_F(CudaKernelTest, BlockReductionThroughSharedMemory) {
  const int64_t n = 256 * 37 + 5;  // a partial last block
  const int64_t blocks = (n + 255) / 256;
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % 13) - 6;  // exact in float
  Tensor in = backend().toBackend(hostTensor(DataType::Float, {n}, values));
  Tensor out = backend().allocate(DataType::Float, {blocks}, {1});
  auto kernel = backend().compile({"block_sum", kBlockSum, {}, true});
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>(blocks), 1, 1};
  config.block = {256, 1, 1};
  kernel->launch(config, paramsOf({in.data(), out.data()}, {n}));
  Tensor sums = backend().toHost(out);
  for (int64_t b = 0; b < blocks; ++b) {
    double want = 0;
    for (int64_t i = b * 256; i < std::min(n, (b + 1) * 256); ++i) want += values[i];
    EXPECT_EQ(sums.getDouble({b}), want) << "block " << b;
  }
}

// Copies i64[0] floats into dynamic shared memory, then writes them reversed:
// every byte of the buffer is used.
constexpr const char* kReverseThroughShared = R"(
#include <fusebox_runtime.cuh>
extern "C" __global__ void reverse_shared(fusebox::KernelParams p) {
  float* buffer = fusebox::dynamicSharedMemory<float>();
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  int64_t m = p.i64[0];
  for (int64_t j = threadIdx.x; j < m; j += blockDim.x) buffer[j] = in[j];
  __syncthreads();
  for (int64_t j = threadIdx.x; j < m; j += blockDim.x) out[j] = buffer[m - 1 - j];
}
)";

TEST_F(CudaKernelTest, MoreThan48KBOfDynamicSharedMemory) {
  const DeviceProperties props = queryDeviceProperties(backend());
  const int64_t bytes = std::min<int64_t>(100 * 1024, props.shared_memory_per_block);
  ASSERT_GT(bytes, 48 * 1024) << "the device allows no more than 48 KB per block";
  const int64_t m = bytes / 4;
  std::vector<double> values(m);
  for (int64_t j = 0; j < m; ++j) values[j] = static_cast<double>(j);
  Tensor in = backend().toBackend(hostTensor(DataType::Float, {m}, values));
  Tensor out = backend().allocate(DataType::Float, {m}, {1});
  auto kernel = backend().compile({"reverse_shared", kReverseThroughShared, {}, true});
  LaunchConfig config;
  config.block = {512, 1, 1};
  config.dynamic_shared_memory = static_cast<uint32_t>(bytes);
  kernel->launch(config, paramsOf({in.data(), out.data()}, {m}));
  Tensor result = backend().toHost(out);
  for (int64_t j = 0; j < m; ++j) ASSERT_EQ(result.getDouble({j}), m - 1 - j) << "element " << j;

  // Past the device's limit: a clear error naming the kernel, before any launch.
  config.dynamic_shared_memory = static_cast<uint32_t>(props.shared_memory_per_block + 1024);
  std::string message = userErrorOf([&] { kernel->launch(config, paramsOf({nullptr, nullptr})); });
  EXPECT_THAT(message, HasSubstr("kernel reverse_shared"));
  EXPECT_THAT(message, HasSubstr("dynamic shared memory"));
  EXPECT_THAT(message, HasSubstr(std::to_string(props.shared_memory_per_block)));
}

// 20 KiB of static shared memory beside 32 KiB dynamic: under 48 KiB of
// dynamic alone, but over the function's default limit (48 KiB less its
// static memory), which the launch must raise.
constexpr const char* kStaticAndDynamicShared = R"(
#include <fusebox_runtime.cuh>
extern "C" __global__ void static_and_dynamic(fusebox::KernelParams p) {
  __shared__ float fixed[5120];
  float* buffer = fusebox::dynamicSharedMemory<float>();
  const float* in = static_cast<const float*>(p.ptr[0]);
  float* out = static_cast<float*>(p.ptr[1]);
  const int m = 8192;
  for (int j = threadIdx.x; j < m; j += blockDim.x) buffer[j] = in[j];
  for (int j = threadIdx.x; j < 5120; j += blockDim.x) fixed[j] = 1.0f;
  __syncthreads();
  for (int j = threadIdx.x; j < m; j += blockDim.x) out[j] = buffer[m - 1 - j] + fixed[j % 5120];
}
)";

TEST_F(CudaKernelTest, StaticAndDynamicSharedMemoryOver48KBTogether) {
  const int64_t m = 8192;
  std::vector<double> values(m);
  for (int64_t j = 0; j < m; ++j) values[j] = static_cast<double>(j);
  Tensor in = backend().toBackend(hostTensor(DataType::Float, {m}, values));
  Tensor out = backend().allocate(DataType::Float, {m}, {1});
  auto kernel = backend().compile({"static_and_dynamic", kStaticAndDynamicShared, {}, true});
  LaunchConfig config;
  config.block = {256, 1, 1};
  config.dynamic_shared_memory = static_cast<uint32_t>(m * 4);
  kernel->launch(config, paramsOf({in.data(), out.data()}));
  config.cooperative = true;  // the occupancy check must count the block as fitting
  kernel->launch(config, paramsOf({in.data(), out.data()}));
  Tensor result = backend().toHost(out);
  for (int64_t j = 0; j < m; ++j) ASSERT_EQ(result.getDouble({j}), m - j) << "element " << j;
}

TEST_F(CudaKernelTest, ZeroSizedGridLaunchesNothing) {
  Tensor out = backend().toBackend(hostTensor(DataType::Float, {4}, {1, 2, 3, 4}));
  auto kernel = backend().compile({"scale_add", kScaleAdd, {}, false});
  LaunchConfig config;
  config.grid = {0, 1, 1};
  config.block = {256, 1, 1};
  kernel->launch(config, paramsOf({out.data(), out.data()}, {4, 100}, {0.0}));
  EXPECT_EQ(backend().toHost(out).toDoubles(), (std::vector<double>{1, 2, 3, 4}));
}

// fusebox::gridSync in a cooperative launch of two blocks per multiprocessor;
// a cooperative grid that cannot be resident at once is refused, not hung.
TEST_F(CudaKernelTest, CooperativeLaunchWaitsAtTheGridBarrier) {
  const DeviceProperties props = queryDeviceProperties(backend());
  const uint32_t blocks = 2 * static_cast<uint32_t>(props.multiprocessor_count);
  auto kernel = backend().compile({"ring_rounds", testing::kGridSyncRingSource, {}, true});
  Tensor slots = backend().toBackend(
      hostTensor(DataType::Int64, {2 * int64_t{blocks}}, std::vector<double>(2 * blocks, 0)));
  Tensor out = backend().toBackend(
      hostTensor(DataType::Int64, {int64_t{blocks}}, std::vector<double>(blocks, -1)));
  Tensor barrier = backend().toBackend(hostTensor(DataType::Int32, {1}, {0}));
  LaunchConfig config;
  config.grid = {blocks, 1, 1};
  config.block = {128, 1, 1};
  config.cooperative = true;
  const std::vector<int64_t> expected = testing::ringRoundsExpected(blocks, 7);
  for (int launch = 0; launch < 2; ++launch) {
    kernel->launch(config, paramsOf({slots.data(), out.data(), barrier.data()}, {7, 0}));
    const std::vector<double> got = backend().toHost(out).toDoubles();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t b = 0; b < got.size(); ++b)
      EXPECT_EQ(static_cast<int64_t>(got[b]), expected[b]) << "block " << b;
  }
  config.grid = {blocks * 1000, 1, 1};
  const std::string message = userErrorOf([&] {
    kernel->launch(config, paramsOf({slots.data(), out.data(), barrier.data()}, {1, 0}));
  });
  EXPECT_THAT(message, HasSubstr("cooperative launch of " + std::to_string(blocks * 1000)));
  EXPECT_THAT(message, HasSubstr("all must be resident"));
  std::cout << "refused: " << message << "\n";  // docs/backends.md quotes it
}

// Thread-block clusters: each block reads the next block's shared memory
// (distributed shared memory) after the cluster barrier; a cluster larger
// than the device allows is refused.
TEST_F(CudaKernelTest, ClusterLaunchReadsThePeersSharedMemory) {
  const DeviceProperties props = queryDeviceProperties(backend());
  if (props.max_cluster_blocks < 2) GTEST_SKIP() << props.name << " has no clusters";
  auto kernel = backend().compile({"cluster_ring", testing::kClusterRingSource, {}, true});
  for (uint32_t size : {2u, 8u}) {
    const uint32_t blocks = 4 * size;
    Tensor out = backend().toBackend(
        hostTensor(DataType::Int64, {int64_t{blocks}}, std::vector<double>(blocks, -1)));
    LaunchConfig config;
    config.grid = {blocks, 1, 1};
    config.block = {64, 1, 1};
    config.cluster = size;
    config.dynamic_shared_memory = 16;
    kernel->launch(config, paramsOf({out.data()}, {5, 0, size}));
    const std::vector<double> got = backend().toHost(out).toDoubles();
    const std::vector<int64_t> expected = testing::clusterRingExpected(blocks, size, 5);
    for (size_t b = 0; b < got.size(); ++b)
      EXPECT_EQ(static_cast<int64_t>(got[b]), expected[b]) << "block " << b << " of " << size;
  }
  LaunchConfig too_large;
  too_large.grid = {32, 1, 1};
  too_large.block = {64, 1, 1};
  too_large.cluster = 16;
  too_large.dynamic_shared_memory = 16;
  Tensor out = backend().toBackend(hostTensor(DataType::Int64, {32}, std::vector<double>(32, -1)));
  EXPECT_THAT(userErrorOf([&] {
                kernel->launch(too_large, paramsOf({out.data()}, {1, 0, 16}));
              }),
              HasSubstr("clusters of at most 8 blocks"));
}

TEST_F(CudaKernelTest, DevicePropertiesComeFromTheDriver) {
  const DeviceProperties props = queryDeviceProperties(backend());
  EXPECT_TRUE(props.is_gpu);
  EXPECT_GE(props.compute_major, 7);
  EXPECT_GT(props.multiprocessor_count, 0);
  EXPECT_EQ(props.warp_size, 32);
  EXPECT_GE(props.max_threads_per_block, 1024);
  EXPECT_GE(props.shared_memory_per_block, 48 * 1024);
  EXPECT_GT(props.registers_per_block, 0);
  EXPECT_FALSE(props.name.empty());
  const std::string sm = "sm_" + std::to_string(props.compute_major * 10 + props.compute_minor);
  EXPECT_THAT(backend().describe(), HasSubstr(props.name));
  EXPECT_THAT(backend().describe(), HasSubstr(sm));
  EXPECT_EQ(backend().kind(), BackendKind::Cuda);
}

TEST_F(CudaKernelTest, TimingAKernelGivesAPositiveMedian) {
  const int64_t n = 1 << 22;
  Tensor in = backend().allocate(DataType::Float, {n}, {1});
  Tensor out = backend().allocate(DataType::Float, {n}, {1});
  backend().memsetZero(in);
  auto kernel = backend().compile({"scale_add", kScaleAdd, {}, false});
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>(n / 256), 1, 1};
  config.block = {256, 1, 1};
  double ms =
      timeKernelMs(backend(), *kernel, config, paramsOf({in.data(), out.data()}, {n, 1}, {1.0}), 5);
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 1000.0);  // 32 MB moved: far below a second on any GPU
  EXPECT_THAT(userErrorOf([&] {
                timeKernelMs(backend(), *kernel, config, paramsOf({in.data(), out.data()}), 0);
              }),
              HasSubstr("iterations must be at least 1"));
  // The timed launches really ran: out = in * 1 + 1 = 1.
  Tensor host = backend().toHost(out);
  EXPECT_EQ(host.getDouble({0}), 1.0);
  EXPECT_EQ(host.getDouble({n - 1}), 1.0);
}

}  // namespace
}  // namespace fusebox
