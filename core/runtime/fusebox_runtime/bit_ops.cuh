// Ops whose result depends on the bits of a dtype narrower than the one the
// kernel computes in (codegen_ops.cpp picks the variant by the op's dtype):
// signbit, nextafter on each floating grid, gcd and logical_right_shift in
// the width of int32 or int64. The semantics are the evaluator's
// (core/src/eval/eval_math.cpp), which follow torch.
#pragma once

namespace fusebox {
namespace op {
namespace detail {

using fusebox::detail::bfloat16BitsToFloat;
using fusebox::detail::floatToBfloat16Bits;
using fusebox::detail::floatToHalfBits;
using fusebox::detail::halfBitsToFloat;

FUSEBOX_DEVICE uint16_t bits16(float f, bool half) {
  return half ? floatToHalfBits(f) : floatToBfloat16Bits(f);
}
FUSEBOX_DEVICE float value16(uint16_t bits, bool half) {
  return half ? halfBitsToFloat(bits) : bfloat16BitsToFloat(bits);
}
// One step of the sign-magnitude bit pattern of float16 (half) or bfloat16
// from a toward b, both rounded to that grid first.
FUSEBOX_DEVICE float nextAfter16(float a, float b, bool half) {
  const uint16_t ab = bits16(a, half);
  const float x = value16(ab, half), y = value16(bits16(b, half), half);
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0f) return value16(static_cast<uint16_t>(y < 0.0f ? 0x8001u : 0x0001u), half);
  const bool away_from_zero = (x < y) == (x > 0.0f);
  return value16(static_cast<uint16_t>(away_from_zero ? ab + 1 : ab - 1), half);
}

// Euclid on |a| and |b| in T's width; |min| wraps, as torch's kernel.
template <typename T, typename U>
FUSEBOX_DEVICE T gcdIn(T a, T b) {
  if (a < 0) a = static_cast<T>(U{0} - static_cast<U>(a));
  if (b < 0) b = static_cast<T>(U{0} - static_cast<U>(b));
  while (a != 0) {
    const T c = a;
    a = a == -1 ? 0 : static_cast<T>(b % a);
    b = c;
  }
  return b;
}

}  // namespace detail

FUSEBOX_DEVICE bool signbit(float x) {
  return (bitCast<uint32_t>(x) >> 31) != 0;
}
FUSEBOX_DEVICE bool signbit(double x) {
  return (bitCast<uint64_t>(x) >> 63) != 0;
}
FUSEBOX_DEVICE bool signbit(int64_t x) {
  return x < 0;
}

FUSEBOX_DEVICE float nextafter(float a, float b) {
  return ::nextafterf(a, b);
}
FUSEBOX_DEVICE double nextafter(double a, double b) {
  return ::nextafter(a, b);
}
FUSEBOX_DEVICE float nextafter_half(float a, float b) {
  return detail::nextAfter16(a, b, true);
}
FUSEBOX_DEVICE float nextafter_bfloat16(float a, float b) {
  return detail::nextAfter16(a, b, false);
}

// Integers compute in int64_t; the 32-bit variants work on the low 32 bits.
FUSEBOX_DEVICE int64_t gcd(int64_t a, int64_t b) {
  return detail::gcdIn<int64_t, uint64_t>(a, b);
}
FUSEBOX_DEVICE int64_t gcd_int32(int64_t a, int64_t b) {
  return detail::gcdIn<int32_t, uint32_t>(static_cast<int32_t>(a), static_cast<int32_t>(b));
}
// Zero-filled shift of the operand's bits; amounts outside [0, width) give 0.
FUSEBOX_DEVICE int64_t logical_right_shift(int64_t a, int64_t b) {
  if (b < 0 || b >= 64) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) >> b);
}
FUSEBOX_DEVICE int64_t logical_right_shift_int32(int64_t a, int64_t b) {
  if (b < 0 || b >= 32) return 0;
  return static_cast<int64_t>(static_cast<uint32_t>(a) >> b);
}

}  // namespace op
}  // namespace fusebox
