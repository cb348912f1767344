// The runtime's float16 / bfloat16 conversions, compiled for the host, give
// exactly core/src/half.cpp's bits: every 16-bit pattern widened, and
// narrowing checked around every rounding boundary (the midpoints between
// neighbouring 16-bit values, and their float / double neighbours).
#include <fusebox/half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fusebox_runtime.cuh>

namespace fusebox::testing {
namespace {

uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float bitsFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(RuntimeHalf, WideningEveryPatternMatchesHalfCpp) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    ASSERT_EQ(floatBits(static_cast<float>(Half::fromBits(bits))), floatBits(halfToFloat(bits)))
        << std::hex << h;
    ASSERT_EQ(floatBits(static_cast<float>(BFloat16::fromBits(bits))),
              floatBits(bfloat16ToFloat(bits)))
        << std::hex << h;
  }
}

// Floats where rounding decides: for each 16-bit value, the exact midpoint to
// the next one and the floats on either side of it, both signs; plus a sweep
// over the whole float range.
std::vector<float> narrowingProbes(float (*widen)(uint16_t)) {
  std::vector<float> probes;
  for (uint32_t h = 0; h < 0x7FFF; ++h) {
    const double lo = widen(static_cast<uint16_t>(h));
    const double hi = widen(static_cast<uint16_t>(h + 1));
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: few mantissa bits
    for (float f :
         {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), static_cast<float>(lo)}) {
      probes.push_back(f);
      probes.push_back(-f);
    }
  }
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65521)
    probes.push_back(bitsFloat(static_cast<uint32_t>(b)));
  for (float f : {INFINITY, -INFINITY, NAN, -NAN, bitsFloat(0x7F800001u), bitsFloat(0xFFC12345u),
                  65504.0f, 65519.996f, 65520.0f, 5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f,
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()})
    probes.push_back(f);
  return probes;
}

TEST(RuntimeHalf, FloatToHalfMatchesHalfCppAtEveryRoundingBoundary) {
  const std::vector<float> probes = narrowingProbes(halfToFloat);
  ASSERT_GT(probes.size(), 300000u);
  for (float f : probes) ASSERT_EQ(Half(f).bits, floatToHalf(f)) << std::hexfloat << f;
}

TEST(RuntimeHalf, FloatToBfloat16MatchesHalfCppAtEveryRoundingBoundary) {
  const std::vector<float> probes = narrowingProbes(bfloat16ToFloat);
  ASSERT_GT(probes.size(), 300000u);
  for (float f : probes) ASSERT_EQ(BFloat16(f).bits, floatToBfloat16(f)) << std::hexfloat << f;
}

// Doubles just off a midpoint are where rounding to float first would tie
// and then round the wrong way; the runtime rounds once, as half.cpp.
std::vector<double> doubleProbes(float (*widen)(uint16_t)) {
  std::vector<double> probes;
  for (uint32_t h = 0; h < 0x7FFF; h += 3) {
    const double lo = widen(static_cast<uint16_t>(h));
    const double hi = widen(static_cast<uint16_t>(h + 1));
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    const double mid = (lo + hi) / 2;
    for (double d : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY),
                     mid + (hi - lo) * 1e-12, mid - (hi - lo) * 1e-12}) {
      probes.push_back(d);
      probes.push_back(-d);
    }
  }
  for (double d : {1e300, -1e300, 1e-300, -1e-300, 65520.0, 65519.999999999, 3.4028235677973366e38,
                   3.402823466385289e38, static_cast<double>(NAN), static_cast<double>(INFINITY)})
    probes.push_back(d);
  return probes;
}

TEST(RuntimeHalf, DoubleNarrowingRoundsOnceAsHalfCpp) {
  for (double d : doubleProbes(halfToFloat))
    ASSERT_EQ(Half(d).bits, doubleToHalf(d)) << std::hexfloat << d;
  for (double d : doubleProbes(bfloat16ToFloat))
    ASSERT_EQ(BFloat16(d).bits, doubleToBfloat16(d)) << std::hexfloat << d;
  // A case where float-first rounding differs: just above the midpoint
  // between 1 and 1 + 2^-10, by less than a float ulp.
  const double above = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(Half(above).bits, 0x3C01);
  EXPECT_EQ(Half(static_cast<float>(above)).bits, 0x3C00);  // float rounding ties, then even
}

// Layout, checked by this file's compiler (runtime_half_kernel_test.cpp runs
// a kernel that reports it from the kernel's compile).
static_assert(sizeof(Half) == 2 && alignof(Half) == 2);
static_assert(std::is_trivially_copyable_v<Half> &&
              std::is_trivially_default_constructible_v<Half>);
static_assert(std::is_trivially_copyable_v<BFloat16>);
static_assert(alignof(Array<Half, 8>) == 16 && alignof(Array<float, 4>) == 16);
static_assert(alignof(Array<float, 3>) == 4 && alignof(Array<double, 2>) == 16);
static_assert(alignof(Array<float, 8>) == 16);  // capped at the widest access

}  // namespace
}  // namespace fusebox::testing
