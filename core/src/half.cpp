// IEEE binary16 and bfloat16 conversions, written once for any small binary
// format (sign, exponent bits, mantissa bits) so both share one rounding path.
#include <fusebox/half.h>

#include <cmath>
#include <limits>

namespace fusebox {
namespace {

struct SmallFloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint16_t infinityBits() const {
    return static_cast<uint16_t>(((1u << exponent_bits) - 1) << mantissa_bits);
  }
};

// What a NaN narrows to, whatever its sign and payload: the canonical NaN
// (every bit but the sign), as CUDA's cvt.rn gives it and so PyTorch on the
// GPU and nvFuser; the kernels narrow with that one instruction.
constexpr uint16_t kCanonicalNan = 0x7FFF;

constexpr SmallFloatFormat kHalf{5, 10};
constexpr SmallFloatFormat kBfloat16{8, 7};

// Rounds a non-negative double below 2^53 to the nearest integer, ties to even,
// independent of the floating-point environment's rounding mode.
double roundHalfEven(double v) {
  double r = std::floor(v);
  double frac = v - r;  // exact: both share the exponent range
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

uint16_t encode(double value, SmallFloatFormat fmt) {
  const uint16_t sign = std::signbit(value) ? static_cast<uint16_t>(0x8000) : 0;
  if (std::isnan(value)) return kCanonicalNan;
  const double a = std::fabs(value);
  const int min_normal_exp = 1 - fmt.bias();
  const int max_exp = fmt.bias();
  // Largest finite value plus half an ulp: from there on, ties and above round to infinity.
  const double overflow = std::ldexp(2.0 - std::ldexp(1.0, -fmt.mantissa_bits - 1), max_exp);
  if (a >= overflow) return sign | fmt.infinityBits();
  if (a < std::ldexp(1.0, min_normal_exp)) {
    // Subnormal: count units of 2^(min_normal_exp - mantissa_bits). Rounding up to
    // 2^mantissa_bits units yields the smallest normal's bit pattern, as it should.
    double units = roundHalfEven(std::ldexp(a, fmt.mantissa_bits - min_normal_exp));
    return sign | static_cast<uint16_t>(units);
  }
  int e2 = 0;
  std::frexp(a, &e2);    // a = f * 2^e2, f in [0.5, 1)
  const int e = e2 - 1;  // a in [2^e, 2^(e+1))
  // Mantissa with its implicit bit, in [2^m, 2^(m+1)]; a carry into the exponent
  // field from rounding up is exactly right.
  double m = roundHalfEven(std::ldexp(a, fmt.mantissa_bits - e));
  uint32_t bits = (static_cast<uint32_t>(e + fmt.bias()) << fmt.mantissa_bits) +
                  (static_cast<uint32_t>(m) - (1u << fmt.mantissa_bits));
  return sign | static_cast<uint16_t>(bits);
}

double decode(uint16_t bits, SmallFloatFormat fmt) {
  const bool negative = (bits & 0x8000) != 0;
  const uint32_t exponent = (bits >> fmt.mantissa_bits) & ((1u << fmt.exponent_bits) - 1);
  const uint32_t mantissa = bits & ((1u << fmt.mantissa_bits) - 1);
  double magnitude;
  if (exponent == (1u << fmt.exponent_bits) - 1) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - fmt.bias() - fmt.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa + (1u << fmt.mantissa_bits)),
                           static_cast<int>(exponent) - fmt.bias() - fmt.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

float halfToFloat(uint16_t bits) {
  return static_cast<float>(decode(bits, kHalf));
}
uint16_t floatToHalf(float value) {
  return encode(value, kHalf);
}
float bfloat16ToFloat(uint16_t bits) {
  return static_cast<float>(decode(bits, kBfloat16));
}
uint16_t floatToBfloat16(float value) {
  return encode(value, kBfloat16);
}
uint16_t doubleToHalf(double value) {
  return encode(value, kHalf);
}
uint16_t doubleToBfloat16(double value) {
  return encode(value, kBfloat16);
}

}  // namespace fusebox
