// The runtime's float16 / bfloat16 types in a kernel on the host backend:
// narrowing gives the IEEE bit patterns (round to nearest even, overflow to
// infinity, subnormals, NaN), stored through 8-wide vectors into two-byte
// elements, and widening gives back the values they stand for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend_host/host_test_util.h"

namespace fusebox::testing {
namespace {

uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Narrows p.i64[0] floats (a multiple of 8) to half and bfloat16, stored as
// 8-wide vectors, widens them back, and reports the layout it was compiled with.
const char* kHalfSource = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void half_bits(fusebox::KernelParams p) {
  const float* in = static_cast<const float*>(p.ptr[0]);
  auto* h = static_cast<fusebox::Half*>(p.ptr[1]);
  auto* b = static_cast<fusebox::BFloat16*>(p.ptr[2]);
  float* back = static_cast<float*>(p.ptr[3]);
  int64_t* layout = static_cast<int64_t*>(p.ptr[4]);
  const int64_t n = p.i64[0];
  for (int64_t i = 0; i < n; i += 8) {
    fusebox::Array<fusebox::Half, 8> hv;
    fusebox::Array<fusebox::BFloat16, 8> bv;
    for (int k = 0; k < 8; ++k) {
      hv[k] = fusebox::Half(in[i + k]);
      bv[k] = fusebox::BFloat16(in[i + k]);
    }
    fusebox::storeVec<8>(h + i, hv);
    fusebox::storeVec<8>(b + i, bv);
  }
  for (int64_t i = 0; i < n; ++i) {
    back[i] = static_cast<float>(h[i]);
    back[n + i] = static_cast<float>(b[i]);
  }
  layout[0] = sizeof(fusebox::Half);
  layout[1] = alignof(fusebox::Half);
  layout[2] = sizeof(fusebox::BFloat16);
  layout[3] = alignof(fusebox::Array<fusebox::Half, 8>);
  layout[4] = alignof(fusebox::Array<float, 4>);
  layout[5] = alignof(fusebox::Array<float, 3>);
  layout[6] = alignof(fusebox::Array<double, 2>);
  layout[7] = alignof(fusebox::Array<float, 8>);
}
)";

TEST(RuntimeHalf, KernelNarrowsToKnownBitPatternsInTwoByteArrays) {
  // IEEE binary16 and bfloat16 patterns (rounding to nearest even), and the
  // values they stand for.
  struct Case {
    float in;
    uint16_t half;
    uint16_t bf16;
    float half_value;
    float bf16_value;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Case> cases = {
      {1.0f, 0x3C00, 0x3F80, 1.0f, 1.0f},
      {-2.0f, 0xC000, 0xC000, -2.0f, -2.0f},
      {0.5f, 0x3800, 0x3F00, 0.5f, 0.5f},
      {-0.0f, 0x8000, 0x8000, -0.0f, -0.0f},
      {inf, 0x7C00, 0x7F80, inf, inf},
      {-inf, 0xFC00, 0xFF80, -inf, -inf},
      // The largest half; bfloat16 keeps 8 bits and rounds up to 2^16.
      {65504.0f, 0x7BFF, 0x4780, 65504.0f, 65536.0f},
      // Halfway from 65504 to the next step (65536): rounds to infinity.
      {65520.0f, 0x7C00, 0x4780, inf, 65536.0f},
      {3.0e38f, 0x7C00, 0x7F62, inf, 0x1.c4p+127f},
      // Ties: 1 + 2^-11 to even (1), 1 + 3 * 2^-11 to even (1 + 2^-9).
      {1.0f + 0x1p-11f, 0x3C00, 0x3F80, 1.0f, 1.0f},
      {1.0f + 3 * 0x1p-11f, 0x3C02, 0x3F80, 1.0f + 0x1p-9f, 1.0f},
      // bfloat16's tie: 1 + 3 * 2^-8 between 1 + 2^-7 and 1 + 2^-6.
      {1.0f + 3 * 0x1p-8f, 0x3C0C, 0x3F82, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-6f},
      // Half's smallest subnormal 2^-24; 2^-25 ties to even (0); 0.75 * 2^-24 up.
      {0x1p-24f, 0x0001, 0x3380, 0x1p-24f, 0x1p-24f},
      {0x1p-25f, 0x0000, 0x3300, 0.0f, 0x1p-25f},
      {0x3p-26f, 0x0001, 0x3340, 0x1p-24f, 0x3p-26f},
      {0.1f, 0x2E66, 0x3DCD, 0.0999755859375f, 0.10009765625f},
  };
  const int64_t n = 24;  // the cases, then NaNs
  ASSERT_LE(static_cast<int64_t>(cases.size()), n - 2);
  Tensor in = Tensor::empty(DataType::Float, {n});
  auto* iv = static_cast<float*>(in.data());
  for (int64_t i = 0; i < n; ++i)
    iv[i] = i < static_cast<int64_t>(cases.size()) ? cases[static_cast<size_t>(i)].in
                                                   : std::numeric_limits<float>::quiet_NaN();
  iv[n - 1] = -std::numeric_limits<float>::quiet_NaN();
  Tensor h = Tensor::empty(DataType::Half, {n});
  Tensor b = Tensor::empty(DataType::BFloat16, {n});
  Tensor back = Tensor::empty(DataType::Float, {2 * n});
  Tensor layout = Tensor::empty(DataType::Int64, {8});
  auto kernel = sharedHostBackend().compile(kernelSource("half_bits", kHalfSource, false));
  KernelParams p{};
  p.ptr[0] = in.data();
  p.ptr[1] = h.data();
  p.ptr[2] = b.data();
  p.ptr[3] = back.data();
  p.ptr[4] = layout.data();
  p.i64[0] = n;
  kernel->launch(launchConfig({1, 1, 1}, {1, 1, 1}), p);

  const auto* hb = static_cast<const uint16_t*>(h.data());
  const auto* bb = static_cast<const uint16_t*>(b.data());
  const auto* fb = static_cast<const float*>(back.data());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    EXPECT_EQ(hb[i], c.half) << std::hexfloat << c.in;
    EXPECT_EQ(bb[i], c.bf16) << std::hexfloat << c.in;
    EXPECT_EQ(floatBits(fb[i]), floatBits(c.half_value)) << std::hexfloat << c.in;
    EXPECT_EQ(floatBits(fb[n + static_cast<int64_t>(i)]), floatBits(c.bf16_value))
        << std::hexfloat << c.in;
  }
  for (int64_t i = static_cast<int64_t>(cases.size()); i < n; ++i) {
    // Any NaN, -NaN too, narrows to the canonical NaN, as CUDA's cvt.rn.
    EXPECT_EQ(hb[i], 0x7FFF) << i;
    EXPECT_EQ(bb[i], 0x7FFF) << i;
    EXPECT_TRUE(std::isnan(fb[i]) && std::isnan(fb[n + i])) << i;
  }
  // Two-byte types; vectors aligned to their size, capped at 16 bytes.
  const auto* l = static_cast<const int64_t*>(layout.data());
  EXPECT_EQ(l[0], 2);
  EXPECT_EQ(l[1], 2);
  EXPECT_EQ(l[2], 2);
  EXPECT_EQ(l[3], 16);
  EXPECT_EQ(l[4], 16);
  EXPECT_EQ(l[5], 4);
  EXPECT_EQ(l[6], 16);
  EXPECT_EQ(l[7], 16);
}

}  // namespace
}  // namespace fusebox::testing
