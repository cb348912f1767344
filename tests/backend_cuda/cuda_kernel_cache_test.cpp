// Compiled cubins are cached in memory per backend and on disk across backends
// (and processes) through the kernel cache.
#include "backend_cuda/cuda_test_util.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using fusebox::testing::TempDir;

constexpr const char* kFill = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void fill_index(fusebox::KernelParams p) {
  int64_t* out = static_cast<int64_t*>(p.ptr[0]);
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.i64[0]) out[i] = i * p.i64[1];
}
)";

// Runs fill_index on `backend` and returns the values.
std::vector<double> runFill(Backend& backend, CompiledKernel& kernel) {
  Tensor out = backend.allocate(DataType::Int64, {300}, {1});
  KernelParams params{};
  params.ptr[0] = out.data();
  params.i64[0] = 300;
  params.i64[1] = 3;
  LaunchConfig config;
  config.grid = {3, 1, 1};
  config.block = {128, 1, 1};
  kernel.launch(config, params);
  return backend.toHost(out).toDoubles();
}

std::vector<double> expectedFill() {
  std::vector<double> v;
  for (int i = 0; i < 300; ++i) v.push_back(3.0 * i);
  return v;
}

TEST(CudaKernelCache, SecondBackendLoadsTheCubinFromDisk) {
  FUSEBOX_REQUIRE_GPU();
  TempDir dir;
  CudaBackendOptions options;
  options.cache.directory = dir.path() / "cache";
  const KernelSource source{"fill_index", kFill, {}, false};
  {
    auto first = createCudaBackend(options);
    CompileTimings t;
    auto kernel = first->compile(source, &t);
    EXPECT_FALSE(t.disk_cache_hit);
    EXPECT_FALSE(t.memory_cache_hit);
    EXPECT_GT(t.compile_ms, 0.0);
    EXPECT_EQ(runFill(*first, *kernel), expectedFill());
    // The same backend again: from memory, the very same kernel object.
    CompileTimings again;
    EXPECT_EQ(first->compile(source, &again), kernel);
    EXPECT_TRUE(again.memory_cache_hit);
  }
  auto second = createCudaBackend(options);
  CompileTimings t;
  auto kernel = second->compile(source, &t);
  EXPECT_TRUE(t.disk_cache_hit);
  EXPECT_EQ(t.compile_ms, 0.0);
  EXPECT_EQ(runFill(*second, *kernel), expectedFill());

  // Different options are a different kernel.
  CompileTimings other;
  second->compile({"fill_index", kFill, {"-DUNUSED_MACRO=1"}, false}, &other);
  EXPECT_FALSE(other.disk_cache_hit);
  EXPECT_FALSE(other.memory_cache_hit);
}

TEST(CudaKernelCache, DiskCacheOffCompilesEveryBackend) {
  FUSEBOX_REQUIRE_GPU();
  TempDir dir;
  CudaBackendOptions options;
  options.cache.directory = dir.path() / "cache";
  options.cache.disk = false;
  const KernelSource source{"fill_index", kFill, {}, false};
  for (int round = 0; round < 2; ++round) {
    auto backend = createCudaBackend(options);
    CompileTimings t;
    auto kernel = backend->compile(source, &t);
    EXPECT_FALSE(t.disk_cache_hit) << "round " << round;
    EXPECT_GT(t.compile_ms, 0.0);
  }
}

}  // namespace
}  // namespace fusebox
