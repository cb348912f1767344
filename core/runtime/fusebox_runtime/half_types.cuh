// float16 and bfloat16, stored as their 16 bits; arithmetic happens in float.
//
// Narrowing rounds to nearest even. On the GPU it is one PTX cvt instruction;
// on the host it is integer arithmetic giving exactly core/src/half.cpp's bits.
// A NaN narrows to the canonical NaN 0x7FFF, as cvt gives it (and so PyTorch
// on the GPU and nvFuser): keeping the NaN's sign cost each rounded element a
// NaN test, a select and the sign's bit operations, half the instructions of
// a bfloat16 RoPE kernel's loop (docs/perf.md). double -> 16 bits rounds
// once: the double is first rounded to float with round-to-odd, which leaves
// enough extra bits that the second rounding equals a direct one.
#pragma once

namespace fusebox {
namespace detail {

// m / 2^shift rounded to nearest even, for 0 < shift < 32.
FUSEBOX_DEVICE uint32_t shiftRightRoundEven(uint32_t m, int shift) {
  const uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  return (rem > halfway || (rem == halfway && (q & 1u))) ? q + 1u : q;
}

FUSEBOX_DEVICE uint16_t floatToHalfBitsSoftware(float f) {
  const uint32_t x = bitCast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7FFFu;  // NaN: the canonical one, as cvt gives
  // From 65520 (largest half, 65504, plus half an ulp) on: infinity.
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a >= 0x38800000u) {                        // at least 2^-14: a normal half
    const uint32_t exponent = (a >> 23) - 112u;  // rebias 127 -> 15
    const uint32_t mantissa = a & 0x7FFFFFu;
    // Rounding may carry into the exponent field, which is the right result.
    const uint32_t rounded = shiftRightRoundEven((exponent << 23) | mantissa, 13);
    return static_cast<uint16_t>(sign | rounded);
  }
  // 2^-25 and below round to zero (2^-25 itself is a tie, and zero is even).
  if (a <= 0x33000000u) return static_cast<uint16_t>(sign);
  // Subnormal half: count units of 2^-24. a = m * 2^(E - 23) with E = biased - 127,
  // so units = m * 2^(E + 1), a right shift by 126 - biased (14..24).
  const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
  const int shift = 126 - static_cast<int>(a >> 23);
  return static_cast<uint16_t>(sign | shiftRightRoundEven(m, shift));
}

FUSEBOX_DEVICE float halfBitsToFloatSoftware(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return bitCast<float>(sign | (mantissa ? 0x7FC00000u : 0x7F800000u));
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // 2^-24, exact
    return sign ? -magnitude : magnitude;
  }
  return bitCast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

FUSEBOX_DEVICE uint16_t floatToBfloat16BitsSoftware(float f) {
  const uint32_t x = bitCast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFFu;  // NaN: the canonical one
  // Adding just under half a unit (plus the kept lsb) rounds to nearest even;
  // a carry walks into the exponent, ending at infinity past the largest value.
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

FUSEBOX_DEVICE float bfloat16BitsToFloatSoftware(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return bitCast<float>((x & 0x80000000u) | 0x7FC00000u);
  return bitCast<float>(x);
}

// double -> float rounding toward zero, then the lsb set when inexact
// ("round to odd"): a later rounding to fewer bits then equals a direct one.
FUSEBOX_DEVICE float doubleToFloatRoundOdd(double d) {
#if defined(__CUDA_ARCH__)
  float f = __double2float_rz(d);
#else
  float f = static_cast<float>(d);  // nearest; step back toward zero if it went past
  if (static_cast<double>(f) != d && d == d) {
    const double fd = static_cast<double>(f);
    if ((fd < 0 ? -fd : fd) > (d < 0 ? -d : d)) f = bitCast<float>(bitCast<uint32_t>(f) - 1u);
  }
#endif
  if (static_cast<double>(f) != d && d == d) f = bitCast<float>(bitCast<uint32_t>(f) | 1u);
  return f;
}

FUSEBOX_DEVICE uint16_t floatToHalfBits(float f) {
#if defined(__CUDA_ARCH__)
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));  // NaN: 0x7FFF
  return h;
#else
  return floatToHalfBitsSoftware(f);
#endif
}

FUSEBOX_DEVICE float halfBitsToFloat(uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  // cvt gives NaN without its sign; keep it, as the software path does (signbit).
  if ((h & 0x7C00u) == 0x7C00u && (h & 0x03FFu) != 0u)
    f = bitCast<float>((static_cast<uint32_t>(h & 0x8000u) << 16) | 0x7FC00000u);
  return f;
#else
  return halfBitsToFloatSoftware(h);
#endif
}

FUSEBOX_DEVICE uint16_t floatToBfloat16Bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint16_t b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));  // NaN: 0x7FFF
  return b;
#else
  return floatToBfloat16BitsSoftware(f);
#endif
}

FUSEBOX_DEVICE float bfloat16BitsToFloat(uint16_t b) {
#if defined(__CUDA_ARCH__)
  return bitCast<float>(static_cast<uint32_t>(b) << 16);  // exact; NaN payload kept
#else
  return bfloat16BitsToFloatSoftware(b);
#endif
}

}  // namespace detail

struct alignas(2) Half {
  uint16_t bits;
  Half() = default;
  FUSEBOX_DEVICE explicit Half(float f) : bits(detail::floatToHalfBits(f)) {}
  FUSEBOX_DEVICE explicit Half(double d)
      : bits(detail::floatToHalfBits(detail::doubleToFloatRoundOdd(d))) {}
  FUSEBOX_DEVICE operator float() const { return detail::halfBitsToFloat(bits); }
  static FUSEBOX_DEVICE Half fromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct alignas(2) BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  FUSEBOX_DEVICE explicit BFloat16(float f) : bits(detail::floatToBfloat16Bits(f)) {}
  FUSEBOX_DEVICE explicit BFloat16(double d)
      : bits(detail::floatToBfloat16Bits(detail::doubleToFloatRoundOdd(d))) {}
  FUSEBOX_DEVICE operator float() const { return detail::bfloat16BitsToFloat(bits); }
  static FUSEBOX_DEVICE BFloat16 fromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  // A float that holds a bfloat16 exactly, as every value of a bfloat16
  // tensor a kernel computes does (each op rounds to its dtype): its top
  // half, one instruction where the rounding conversion and its NaN fix-up
  // are several. The host backend checks the claim, so a kernel storing an
  // unrounded float fails in CI instead of truncating it.
  static FUSEBOX_DEVICE BFloat16 fromExact(float f) {
    const uint32_t x = bitCast<uint32_t>(f);
#if !defined(__CUDA_ARCH__)
    if ((x & 0xFFFFu) != 0u)
      ::fusebox::host::failAccess("BFloat16::fromExact of a float that is no bfloat16");
#endif
    return fromBits(static_cast<uint16_t>(x >> 16));
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit float types must be 2 bytes");

}  // namespace fusebox
