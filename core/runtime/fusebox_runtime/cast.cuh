// fusebox::cast<To>(value) (or Cast<To>::from(value)): conversions between the
// IR's dtypes with the reference evaluator's semantics.
//   - to bool: nonzero (NaN is true);
//   - floating to integer: truncation; NaN and out-of-range values give the
//     type's minimum (what x86 gives, and what the evaluator defines);
//   - integer to integer: wraps;
//   - to float16/bfloat16: round to nearest even, once (even from double);
//   - integer to float16/bfloat16: through double, as the evaluator.
#pragma once

namespace fusebox {
namespace detail {

template <typename Int>
FUSEBOX_DEVICE Int doubleToInteger(double v) {
  // -2^(bits-1) and 2^(bits-1) are exact doubles; every value in between fits
  // after truncation.
  const double low = sizeof(Int) == 8 ? -9223372036854775808.0 : -2147483648.0;
  if (!(v >= low && v < -low))
    return static_cast<Int>(sizeof(Int) == 8 ? 0x8000000000000000ull : 0x80000000ull);
  return static_cast<Int>(v);
}

template <typename To>
struct CastTo;

template <>
struct CastTo<bool> {
  static FUSEBOX_DEVICE bool from(bool v) { return v; }
  static FUSEBOX_DEVICE bool from(int32_t v) { return v != 0; }
  static FUSEBOX_DEVICE bool from(int64_t v) { return v != 0; }
  static FUSEBOX_DEVICE bool from(float v) { return v != 0.0f; }
  static FUSEBOX_DEVICE bool from(double v) { return v != 0.0; }
  static FUSEBOX_DEVICE bool from(Half v) { return static_cast<float>(v) != 0.0f; }
  static FUSEBOX_DEVICE bool from(BFloat16 v) { return static_cast<float>(v) != 0.0f; }
};

template <typename Int>
struct CastToInteger {
  static FUSEBOX_DEVICE Int from(bool v) { return v ? 1 : 0; }
  static FUSEBOX_DEVICE Int from(int32_t v) { return static_cast<Int>(v); }
  static FUSEBOX_DEVICE Int from(int64_t v) { return static_cast<Int>(v); }
  static FUSEBOX_DEVICE Int from(float v) { return doubleToInteger<Int>(v); }
  static FUSEBOX_DEVICE Int from(double v) { return doubleToInteger<Int>(v); }
  static FUSEBOX_DEVICE Int from(Half v) { return doubleToInteger<Int>(static_cast<float>(v)); }
  static FUSEBOX_DEVICE Int from(BFloat16 v) { return doubleToInteger<Int>(static_cast<float>(v)); }
};
template <>
struct CastTo<int32_t> : CastToInteger<int32_t> {};
template <>
struct CastTo<int64_t> : CastToInteger<int64_t> {};

template <typename Float>
struct CastToFloating {
  static FUSEBOX_DEVICE Float from(bool v) { return v ? Float(1) : Float(0); }
  static FUSEBOX_DEVICE Float from(int32_t v) { return static_cast<Float>(v); }
  static FUSEBOX_DEVICE Float from(int64_t v) { return static_cast<Float>(v); }
  static FUSEBOX_DEVICE Float from(float v) { return static_cast<Float>(v); }
  static FUSEBOX_DEVICE Float from(double v) { return static_cast<Float>(v); }
  static FUSEBOX_DEVICE Float from(Half v) { return static_cast<Float>(static_cast<float>(v)); }
  static FUSEBOX_DEVICE Float from(BFloat16 v) { return static_cast<Float>(static_cast<float>(v)); }
};
template <>
struct CastTo<float> : CastToFloating<float> {};
template <>
struct CastTo<double> : CastToFloating<double> {};

template <typename Small>
struct CastToSmallFloat {
  static FUSEBOX_DEVICE Small from(bool v) { return Small(v ? 1.0f : 0.0f); }
  static FUSEBOX_DEVICE Small from(int32_t v) { return Small(static_cast<double>(v)); }
  static FUSEBOX_DEVICE Small from(int64_t v) { return Small(static_cast<double>(v)); }
  static FUSEBOX_DEVICE Small from(float v) { return Small(v); }
  static FUSEBOX_DEVICE Small from(double v) { return Small(v); }
  // Widening either 16-bit type to float is exact, so one rounding happens.
  static FUSEBOX_DEVICE Small from(Half v) { return Small(static_cast<float>(v)); }
  static FUSEBOX_DEVICE Small from(BFloat16 v) { return Small(static_cast<float>(v)); }
};
template <>
struct CastTo<Half> : CastToSmallFloat<Half> {};
template <>
struct CastTo<BFloat16> : CastToSmallFloat<BFloat16> {};

}  // namespace detail

template <typename To, typename From>
FUSEBOX_DEVICE To cast(From value) {
  return detail::CastTo<To>::from(value);
}

// Cast<To>::from(value) is cast<To>(value) spelled as a member of a class
// template, which generated kernels use: GCC parses each call of a function
// template with explicit template arguments in time that grows with the
// number of variables in scope, so a kernel of 100,000 ops took minutes to
// compile on the host backend; this spelling keeps its parse linear.
template <typename To>
struct Cast : detail::CastTo<To> {};

}  // namespace fusebox
