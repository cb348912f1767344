// The very same kernel source on the cuda and the host backend: results agree
// within floating-point tolerance (the math library's ulps differ; integer and
// exact results must be equal).
#include <fusebox/backend/host_backend.h>

#include <cmath>

#include "backend_cuda/cuda_test_util.h"
#include "kernel_ir/async_copy_kernel.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::hostTensor;

// out_f[i] = tanh(x) * exp(-x * x) + erf(x); out_h[i] = half(x * 0.75 + sigmoid(x)).
constexpr const char* kMath = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void math_mix(fusebox::KernelParams p) {
  const float* x = static_cast<const float*>(p.ptr[0]);
  float* out_f = static_cast<float*>(p.ptr[1]);
  fusebox::Half* out_h = static_cast<fusebox::Half*>(p.ptr[2]);
  int64_t n = p.i64[0];
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out_f[i] = fusebox::op::tanh(v) * fusebox::op::exp(-v * v) + fusebox::op::erf(v);
  out_h[i] = fusebox::Half(v * 0.75f + fusebox::op::sigmoid(v));
}
)";

// Each block of 128 threads sums its chunk through shared memory.
constexpr const char* kChunkSum = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void chunk_sum(fusebox::KernelParams p) {
  __shared__ int64_t partial[128];
  const int64_t* in = static_cast<const int64_t*>(p.ptr[0]);
  int64_t* out = static_cast<int64_t*>(p.ptr[1]);
  int64_t n = p.i64[0];
  int64_t i = (int64_t)blockIdx.x * 128 + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int half = 64; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
)";

class CudaVsHostTest : public CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
    HostBackendOptions options;
    options.cache.directory = dir_.path() / "cache";
    host_ = makeHostBackend(options);
  }
  // Runs `source` on `backend` with inputs copied there; returns the outputs on the host.
  std::vector<Tensor> run(Backend& backend, const KernelSource& source, const LaunchConfig& config,
                          const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                          int64_t n) {
    std::vector<Tensor> in, out;
    KernelParams params{};
    int slot = 0;
    for (const Tensor& t : inputs) {
      in.push_back(backend.toBackend(t));
      params.ptr[slot++] = in.back().data();
    }
    for (const Tensor& t : outputs) {
      out.push_back(backend.allocate(t.dtype(), t.sizes(), t.strides()));
      params.ptr[slot++] = out.back().data();
    }
    params.i64[0] = n;
    backend.compile(source)->launch(config, params);
    std::vector<Tensor> result;
    for (const Tensor& t : out) result.push_back(backend.toHost(t));
    return result;
  }
  fusebox::testing::TempDir dir_;
  std::unique_ptr<Backend> host_;
};

TEST_F(CudaVsHostTest, MathKernelAgreesWithinTolerance) {
  const int64_t n = 5001;  // x[2500] = 0 exactly
  std::vector<double> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = -4.0 + 8.0 * static_cast<double>(i) / (n - 1);
  Tensor x = hostTensor(DataType::Float, {n}, xs);
  const std::vector<Tensor> outputs = {Tensor::empty(DataType::Float, {n}),
                                       Tensor::empty(DataType::Half, {n})};
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>((n + 127) / 128), 1, 1};
  config.block = {128, 1, 1};
  const KernelSource source{"math_mix", kMath, {}, false};
  auto gpu = run(backend(), source, config, {x}, outputs, n);
  auto cpu = run(*host_, source, config, {x}, outputs, n);
  for (int64_t i = 0; i < n; ++i) {
    const double g = gpu[0].getDouble({i}), c = cpu[0].getDouble({i});
    // A few float ulps of each library function.
    ASSERT_NEAR(g, c, 1e-5 * (1 + std::abs(c))) << "float output " << i << ", x = " << xs[i];
    // Half: the float results may round to neighbouring halfs.
    const double gh = gpu[1].getDouble({i}), ch = cpu[1].getDouble({i});
    ASSERT_NEAR(gh, ch, std::ldexp(1.0, -10) * (1 + std::abs(ch))) << "half output " << i;
  }
  // The formula itself at x = 0, by hand: tanh(0) * exp(0) + erf(0) = 0 and
  // half(0 * 0.75 + sigmoid(0)) = 0.5.
  ASSERT_EQ(xs[2500], 0.0);
  EXPECT_EQ(gpu[0].getDouble({2500}), 0.0);
  EXPECT_EQ(gpu[1].getDouble({2500}), 0.5);
}

TEST_F(CudaVsHostTest, SharedMemoryReductionIsExactOnBoth) {
  const int64_t n = 128 * 9 + 17;
  const int64_t blocks = (n + 127) / 128;
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>((i * 7919) % 1000 - 500);
  Tensor in = hostTensor(DataType::Int64, {n}, values);
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>(blocks), 1, 1};
  config.block = {128, 1, 1};
  const KernelSource source{"chunk_sum", kChunkSum, {}, true};
  auto gpu = run(backend(), source, config, {in}, {Tensor::empty(DataType::Int64, {blocks})}, n);
  auto cpu = run(*host_, source, config, {in}, {Tensor::empty(DataType::Int64, {blocks})}, n);
  EXPECT_EQ(gpu[0].toDoubles(), cpu[0].toDoubles());
  double first = 0;
  for (int64_t i = 0; i < 128; ++i) first += values[i];
  EXPECT_EQ(gpu[0].getDouble({0}), first);
}

// Asynchronous copies (cp.async on the GPU, a plain copy on the host) in a
// kernel built as kernel IR: the same exact result on both.
TEST_F(CudaVsHostTest, AsynchronousCopiesStageRowsAlikeOnBoth) {
  const int64_t rows = 2 * 37, n = rows * test::kAsyncRowFloats;
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>((i * 31) % 997) - 498.0;
  Tensor in = hostTensor(DataType::Float, {n}, values);
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>(rows / 2), 1, 1};
  config.block = {test::kAsyncThreads, 1, 1};
  const KernelSource source = test::asyncCopyReverseKernel();
  const std::vector<Tensor> outputs = {Tensor::empty(DataType::Float, {n})};
  auto gpu = run(backend(), source, config, {in}, outputs, /*offset=*/0);
  auto cpu = run(*host_, source, config, {in}, outputs, 0);
  EXPECT_EQ(gpu[0].toDoubles(), cpu[0].toDoubles());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < test::kAsyncRowFloats; ++c)
      ASSERT_EQ(gpu[0].getDouble({r * test::kAsyncRowFloats + c}),
                values[r * test::kAsyncRowFloats + test::kAsyncRowFloats - 1 - c])
          << "row " << r << ", column " << c;
}

}  // namespace
}  // namespace fusebox
