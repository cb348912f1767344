// op::exp_approx and op::div_approx (math.cuh) on the GPU: the error stays
// far below a 16-bit float's rounding over the whole range, and the special
// values (0, infinities, NaN, divisors whose reciprocal is not a normal float)
// come out as exact division and expf give them.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "backend_cuda/cuda_test_util.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::hostTensor;

constexpr const char* kApproximateMath = R"(
#include <fusebox_runtime.cuh>
extern "C" __global__ void approximate_math(fusebox::KernelParams p) {
  const float* a = static_cast<const float*>(p.ptr[0]);
  const float* b = static_cast<const float*>(p.ptr[1]);
  float* e = static_cast<float*>(p.ptr[2]);
  float* q = static_cast<float*>(p.ptr[3]);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.i64[0]) {
    e[i] = fusebox::op::exp_approx(a[i]);
    q[i] = fusebox::op::div_approx(a[i], b[i]);
  }
}
)";

// Within `rel` of the exact value, or the same class (NaN, infinity, zero).
void expectClose(double got, double want, double rel, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
  } else if (std::isinf(want) || want == 0) {
    EXPECT_EQ(got, want) << what;
  } else {
    EXPECT_LE(std::abs(got - want), rel * std::abs(want)) << what << ": " << got << " vs " << want;
  }
}

class CudaApproximateMathTest : public CudaTest {};

TEST_F(CudaApproximateMathTest, ExpAndDivisionStayFarBelowSixteenBitRounding) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a, b;
  for (double x = -87.0; x <= 88.0; x += 0.37) a.push_back(x);
  for (size_t i = 0; i < a.size(); ++i)
    b.push_back(std::ldexp(1.0 + 0.013 * i, int(i % 200) - 100));
  // Special divisors: zeros, infinities, NaN, a float denormal (its reciprocal
  // overflows), and beyond 2^126 (its reciprocal is denormal).
  const std::vector<std::pair<double, double>> special = {
      {1, 0},      {-1, -0.0}, {0, 0},          {1, inf},    {inf, 3},       {inf, inf},
      {nan, 2},    {2, nan},   {1e-39, 1e-39},  {3, 1e-39},  {1e38, 1.5e38}, {1e38, 3e38},
      {-inf, 0.5}, {0, -2},    {-5e-39, 2e-39}, {7, 8.6e37}, {7, -1.7e38}};
  for (auto [x, y] : special) {
    a.push_back(x);
    b.push_back(y);
  }
  const int64_t n = static_cast<int64_t>(a.size());
  Tensor da = backend().toBackend(hostTensor(DataType::Float, {n}, a));
  Tensor db = backend().toBackend(hostTensor(DataType::Float, {n}, b));
  Tensor de = backend().allocate(DataType::Float, {n}, {1});
  Tensor dq = backend().allocate(DataType::Float, {n}, {1});
  auto kernel = backend().compile({"approximate_math", kApproximateMath, {}, false});
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>((n + 127) / 128), 1, 1};
  config.block = {128, 1, 1};
  KernelParams p{};
  p.ptr[0] = da.data();
  p.ptr[1] = db.data();
  p.ptr[2] = de.data();
  p.ptr[3] = dq.data();
  p.i64[0] = n;
  kernel->launch(config, p);
  Tensor e = backend().toHost(de), q = backend().toHost(dq);
  // exp: 2 + 1.2|x| ulp of float (one more for the rounding of the exact
  // value here), at most 2^-16 relative for |x| <= 88; division: 1.5 ulp.
  // A bfloat16 output rounds to 2^-9 relative.
  const double ulp = std::ldexp(1.0, -23);
  for (int64_t i = 0; i < n; ++i) {
    // The inputs as the kernel saw them (rounded to float).
    const double x = static_cast<float>(a[i]), y = static_cast<float>(b[i]);
    const double want_exp = static_cast<float>(std::exp(x));
    const double want_div = static_cast<float>(x / y);
    // Results under float's smallest normal may flush or lose bits: compare
    // them absolutely (far below anything a 16-bit output keeps).
    const double tiny = std::ldexp(1.0, -120);
    if (std::abs(want_exp) > tiny || want_exp == 0 || !std::isfinite(want_exp))
      expectClose(e.getDouble({i}), want_exp, (3 + 1.2 * std::abs(x)) * ulp,
                  fmt::format("exp_approx({})", x));
    else
      EXPECT_LE(std::abs(e.getDouble({i}) - want_exp), tiny) << x;
    if (std::abs(want_div) > tiny || want_div == 0 || !std::isfinite(want_div))
      expectClose(q.getDouble({i}), want_div, 2 * ulp, fmt::format("div_approx({}, {})", x, y));
    else
      EXPECT_LE(std::abs(q.getDouble({i}) - want_div), tiny) << x << " / " << y;
  }
}

}  // namespace
}  // namespace fusebox
