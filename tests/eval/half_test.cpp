// IEEE binary16 and bfloat16 conversions: exact bit patterns worked out by hand
// from the formats (sign | exponent | mantissa), ties to even, subnormals,
// overflow, NaN.
#include <fusebox/half.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace fusebox {
namespace {

float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(Half, ExactValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);   // exponent 15, mantissa 0
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);  // sign, exponent 16
  EXPECT_EQ(floatToHalf(0.5f), 0x3800);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);  // largest finite
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);  // 1.0101010101b * 2^-2
}

TEST(Half, Subnormals) {
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);     // tie -> even (0)
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 units, tie -> 2
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(2047.0f, -25)), 0x0400);  // rounds up into the normals
}

TEST(Half, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);             // spacing of halves in [1, 2)
  EXPECT_EQ(floatToHalf(1.0f + ulp / 2), 0x3C00);      // tie, 0x3C00 is even
  EXPECT_EQ(floatToHalf(1.0f + 3 * ulp / 2), 0x3C02);  // tie, 0x3C02 is even
  EXPECT_EQ(floatToHalf(1.0f + ulp * 0.51f), 0x3C01);  // above the tie
  EXPECT_EQ(floatToHalf(1.0f + ulp * 0.49f), 0x3C00);
}

TEST(Half, OverflowAndSpecials) {
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);  // below the halfway point to 65536
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);  // tie; 0x7BFF is odd, so up to infinity
  EXPECT_EQ(floatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_EQ(halfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
}

TEST(Half, EveryBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float f = halfToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    ASSERT_EQ(floatToHalf(f), bits) << "bits " << bits;
  }
}

TEST(Half, DoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40 lies just above the tie between 0x3C00 and 0x3C01. Through
  // float the 2^-40 is lost first and the tie then goes to even (0x3C00).
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(doubleToHalf(v), 0x3C01);
  EXPECT_EQ(floatToHalf(static_cast<float>(v)), 0x3C00);
  EXPECT_EQ(doubleToBfloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
}

TEST(Bfloat16, ExactValues) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBfloat16(-1.5f), 0xBFC0);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);  // 1.1001001b * 2
  EXPECT_EQ(floatToBfloat16(3.14159265f), 0x4049);
  EXPECT_EQ(bfloat16ToFloat(0x7F7F), std::ldexp(255.0f, 120));  // largest finite
  EXPECT_EQ(bfloat16ToFloat(0x0001), std::ldexp(1.0f, -133));   // smallest subnormal
}

TEST(Bfloat16, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -7);
  EXPECT_EQ(floatToBfloat16(1.0f + ulp / 2), 0x3F80);
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * ulp / 2), 0x3F82);
  EXPECT_EQ(floatToBfloat16(1.0f + ulp * 0.75f), 0x3F81);
  EXPECT_EQ(floatToBfloat16(std::numeric_limits<float>::max()), 0x7F80);  // rounds to inf
  EXPECT_EQ(floatToBfloat16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(std::nanf("")))));
}

// Any NaN narrows to the canonical NaN, sign dropped, as CUDA's cvt.rn (and
// so PyTorch on the GPU and nvFuser) gives it; widening keeps a stored
// NaN's sign.
TEST(Bfloat16, NaNNarrowsToTheCanonicalNaN) {
  for (float nan :
       {std::nanf(""), -std::nanf(""), bitsFloat(0xFFC12345u), bitsFloat(0x7F800001u)}) {
    EXPECT_EQ(floatToBfloat16(nan), 0x7FFF);
    EXPECT_EQ(floatToHalf(nan), 0x7FFF);
    EXPECT_EQ(doubleToBfloat16(static_cast<double>(nan)), 0x7FFF);
    EXPECT_EQ(doubleToHalf(static_cast<double>(nan)), 0x7FFF);
  }
  EXPECT_TRUE(std::signbit(bfloat16ToFloat(0xFFC0)));
  EXPECT_TRUE(std::signbit(halfToFloat(0xFE00)));
}

TEST(Bfloat16, EveryBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float f = bfloat16ToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(floatToBfloat16(f), bits) << "bits " << bits;
  }
}

}  // namespace
}  // namespace fusebox
