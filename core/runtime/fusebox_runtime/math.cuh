// The elementwise semantics of every IR unary, binary and ternary op, as the
// reference evaluator (core/src/eval/eval_math.cpp) defines them.
//
// fusebox::op::<name> is spelled as toString(UnaryOpType / BinaryOpType /
// TernaryOpType) spells the op, so code generators map an op to a call by
// name. Floating ops have float and double overloads (16-bit types compute in
// float); integer ops have int32_t and int64_t overloads that wrap on overflow
// (two's complement) instead of being undefined; bool overloads exist where
// the evaluator accepts bools. Passing another type is a compile error, never a
// silent conversion.
//
// One deliberate difference: a kernel cannot report an error, so integer
// division, fmod, remainder and ceilDiv by zero give 0 where the evaluator
// throws.
#pragma once

namespace fusebox {
namespace op {
namespace detail {

template <typename T>
FUSEBOX_DEVICE T wrapAdd(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <typename T>
FUSEBOX_DEVICE T wrapSub(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <typename T>
FUSEBOX_DEVICE T wrapMul(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
// Truncating division; x / -1 is negation (wrapping MIN / -1 to MIN, which
// traps as a hardware division on the host).
template <typename T>
FUSEBOX_DEVICE T truncDiv(T a, T b) {
  if (b == 0) return 0;
  if (b == -1) return wrapSub<T>(0, a);
  return a / b;
}
// Remainder with the sign of the dividend (C's %).
template <typename T>
FUSEBOX_DEVICE T truncMod(T a, T b) {
  if (b == 0 || b == -1) return 0;
  return a % b;
}
// Remainder with the sign of the divisor (Python's %).
template <typename T>
FUSEBOX_DEVICE T floorMod(T a, T b) {
  if (b == 0 || b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T>
FUSEBOX_DEVICE T ceilDivInt(T a, T b) {
  if (b == 0) return 0;
  if (b == -1) return wrapSub<T>(0, a);
  T q = a / b;
  if (a % b != 0 && ((a % b > 0) == (b > 0))) ++q;  // the true quotient is positive
  return q;
}
// Integer power by squaring, wrapping; negative exponents as torch: 1 for base
// 1, +-1 for base -1, else 0.
template <typename T>
FUSEBOX_DEVICE T intPow(T base, T exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  T result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = wrapMul(result, base);
    base = wrapMul(base, base);
    exponent >>= 1;
  }
  return result;
}
// Shifts on the int64 value, as the evaluator; out-of-range amounts give 0
// (left) or only the sign (right), torch's rule.
template <typename T>
FUSEBOX_DEVICE T shiftLeft(T a, T b) {
  if (b < 0 || b >= 64) return 0;
  return static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(a)) << b);
}
template <typename T>
FUSEBOX_DEVICE T shiftRight(T a, T b) {
  if (b < 0 || b >= 64) return a < 0 ? -1 : 0;
  return static_cast<T>(static_cast<int64_t>(a) >> b);
}
template <typename T>
FUSEBOX_DEVICE T floatRemainder(T b, T m) {  // m = fmod(a, b)
  return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
}
// torch.maximum / minimum: a NaN on either side is the result. From sm_80 a
// float takes one instruction (max.NaN); the compare-and-select form cost
// softmax forward over 4096x32000 bf16 rows 9% of its time (H200: 157.7
// against 144.4 us), a max an element.
template <typename T>
FUSEBOX_DEVICE T maxPropagatingNaN(T a, T b) {
  return (a != a || b != b) ? a + b : (a > b ? a : b);
}
template <typename T>
FUSEBOX_DEVICE T minPropagatingNaN(T a, T b) {
  return (a != a || b != b) ? a + b : (a < b ? a : b);
}
#if defined(FUSEBOX_CUDA_COMPILER) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <>
FUSEBOX_DEVICE float maxPropagatingNaN(float a, float b) {
  float d;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
template <>
FUSEBOX_DEVICE float minPropagatingNaN(float a, float b) {
  float d;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
#endif

}  // namespace detail

// Classification, comparison-based so it works on every compiler (NaN is the
// only value unequal to itself; x - x is NaN exactly for infinities and NaN).
// clang-format off
#define FUSEBOX_FLOAT_AND_INT_CLASSIFY(T)                                        \
  FUSEBOX_DEVICE bool isnan(T x) { return x != x; }                              \
  FUSEBOX_DEVICE bool isfinite(T x) { return x - x == 0; }                       \
  FUSEBOX_DEVICE bool isinf(T x) { return x == x && x - x != 0; }                \
  FUSEBOX_DEVICE bool isneginf(T x) { return x < 0 && isinf(x); }                \
  FUSEBOX_DEVICE bool isposinf(T x) { return x > 0 && isinf(x); }
FUSEBOX_FLOAT_AND_INT_CLASSIFY(float)
FUSEBOX_FLOAT_AND_INT_CLASSIFY(double)
#undef FUSEBOX_FLOAT_AND_INT_CLASSIFY
// clang-format on

// One float and one double overload per op, from the CUDA math library names.
// clang-format off
#define FUSEBOX_FLOAT_UNARY(name, float_fn, double_fn)                \
  FUSEBOX_DEVICE float name(float x) { return ::float_fn(x); }       \
  FUSEBOX_DEVICE double name(double x) { return ::double_fn(x); }
FUSEBOX_FLOAT_UNARY(exp, expf, exp)
FUSEBOX_FLOAT_UNARY(exp2, exp2f, exp2)
FUSEBOX_FLOAT_UNARY(expm1, expm1f, expm1)
FUSEBOX_FLOAT_UNARY(log, logf, log)
FUSEBOX_FLOAT_UNARY(log2, log2f, log2)
FUSEBOX_FLOAT_UNARY(log10, log10f, log10)
FUSEBOX_FLOAT_UNARY(log1p, log1pf, log1p)
FUSEBOX_FLOAT_UNARY(sqrt, sqrtf, sqrt)
FUSEBOX_FLOAT_UNARY(rsqrt, rsqrtf, rsqrt)
FUSEBOX_FLOAT_UNARY(sin, sinf, sin)
FUSEBOX_FLOAT_UNARY(cos, cosf, cos)
FUSEBOX_FLOAT_UNARY(tan, tanf, tan)
FUSEBOX_FLOAT_UNARY(asin, asinf, asin)
FUSEBOX_FLOAT_UNARY(acos, acosf, acos)
FUSEBOX_FLOAT_UNARY(atan, atanf, atan)
FUSEBOX_FLOAT_UNARY(sinh, sinhf, sinh)
FUSEBOX_FLOAT_UNARY(cosh, coshf, cosh)
FUSEBOX_FLOAT_UNARY(tanh, tanhf, tanh)
FUSEBOX_FLOAT_UNARY(asinh, asinhf, asinh)
FUSEBOX_FLOAT_UNARY(acosh, acoshf, acosh)
FUSEBOX_FLOAT_UNARY(atanh, atanhf, atanh)
FUSEBOX_FLOAT_UNARY(erf, erff, erf)
FUSEBOX_FLOAT_UNARY(erfc, erfcf, erfc)
FUSEBOX_FLOAT_UNARY(erfinv, erfinvf, erfinv)
FUSEBOX_FLOAT_UNARY(erfcinv, erfcinvf, erfcinv)
FUSEBOX_FLOAT_UNARY(lgamma, lgammaf, lgamma)
FUSEBOX_FLOAT_UNARY(floor, floorf, floor)
FUSEBOX_FLOAT_UNARY(ceil, ceilf, ceil)
FUSEBOX_FLOAT_UNARY(trunc, truncf, trunc)
// rint rounds half to even in the default rounding mode, as torch.round.
FUSEBOX_FLOAT_UNARY(round, rintf, rint)
FUSEBOX_FLOAT_UNARY(abs, fabsf, fabs)
#undef FUSEBOX_FLOAT_UNARY
// clang-format on

// exp and division where kernelgen found the result reaches only 16-bit
// float outputs (schedulers/common/kernelgen/approximate_math.h); compiled
// exactly with -DFUSEBOX_PRECISE_MATH in $FUSEBOX_NVRTC_OPTIONS, and exact in
// the host build. Measured on softmax (docs/perf.md), these two forms beat
// __expf and __fdividef.
// exp: ex2.approx.ftz of x * log2(e), 2 + 1.2|x| ulp of float; results under
// 2^-126 flush to zero.
FUSEBOX_DEVICE float exp_approx(float x) {
#if defined(__CUDA_ARCH__) && !defined(FUSEBOX_PRECISE_MATH)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));
  return y;
#else
  return ::expf(x);
#endif
}
// a / b as (a * s) * (1 / (b * s)), 1.5 ulp. s (a power of two: 2^24 for
// |b| < 2^-126, 2^-24 for |b| >= 2^126, else 1) keeps the reciprocal a
// normal float, so zeros, infinities, NaN, denormal and huge divisors give
// what a / b gives. A divisor the same for many elements (a row's sum) is
// prepared once (approx_divisor: s and the reciprocal), so each element
// costs two multiplies instead of a division; div_approx(a, b) is
// div_approx(a, approx_divisor(b)), the same result either way.
struct ApproxDivisor {
  float divisor;  // b itself: the exact division of the host and precise builds
  float scale;
  float reciprocal;
};
FUSEBOX_DEVICE ApproxDivisor approx_divisor(float b) {
#if defined(__CUDA_ARCH__) && !defined(FUSEBOX_PRECISE_MATH)
  const float magnitude = ::fabsf(b);
  const float s = magnitude < 1.17549435e-38f   ? 16777216.0f
                  : magnitude >= 8.50705917e37f ? 5.96046448e-08f
                                                : 1.0f;
  return {b, s, 1.0f / (b * s)};
#else
  return {b, 1.0f, 1.0f};
#endif
}
FUSEBOX_DEVICE float div_approx(float a, ApproxDivisor d) {
#if defined(__CUDA_ARCH__) && !defined(FUSEBOX_PRECISE_MATH)
  return (a * d.scale) * d.reciprocal;
#else
  return a / d.divisor;
#endif
}
FUSEBOX_DEVICE float div_approx(float a, float b) {
  return div_approx(a, approx_divisor(b));
}

// Ops written out once for both floating types.
// clang-format off
#define FUSEBOX_FLOAT_OPS(T)                                                                  \
  FUSEBOX_DEVICE T neg(T x) { return -x; }                                                    \
  FUSEBOX_DEVICE T reciprocal(T x) { return T(1) / x; }                                       \
  FUSEBOX_DEVICE T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }                           \
  FUSEBOX_DEVICE T silu(T x) { return x / (T(1) + exp(-x)); }                                 \
  /* NaN propagates, as torch's relu (clamp_min(0)). */                                       \
  FUSEBOX_DEVICE T relu(T x) { return (x > T(0) || x != x) ? x : T(0); }                      \
  FUSEBOX_DEVICE T frac(T x) { return x - trunc(x); }                                         \
  /* sign(NaN) = 0, as torch's CPU kernel. */                                                 \
  FUSEBOX_DEVICE T sign(T x) { return static_cast<T>((T(0) < x) - (x < T(0))); }              \
  FUSEBOX_DEVICE bool logical_not(T x) { return !(x != T(0)); }                               \
  FUSEBOX_DEVICE T add(T a, T b) { return a + b; }                                            \
  FUSEBOX_DEVICE T sub(T a, T b) { return a - b; }                                            \
  FUSEBOX_DEVICE T mul(T a, T b) { return a * b; }                                            \
  FUSEBOX_DEVICE T div(T a, T b) { return a / b; }                                            \
  FUSEBOX_DEVICE T truediv(T a, T b) { return a / b; }                                        \
  FUSEBOX_DEVICE T maximum(T a, T b) { return detail::maxPropagatingNaN(a, b); }              \
  FUSEBOX_DEVICE T minimum(T a, T b) { return detail::minPropagatingNaN(a, b); }              \
  FUSEBOX_DEVICE T ceilDiv(T a, T b) { return ceil(a / b); }                                  \
  FUSEBOX_DEVICE T clamp(T x, T lo, T hi) { return minimum(maximum(x, lo), hi); }             \
  /* torch's formulation: exact at weight 0 and 1. */                                         \
  FUSEBOX_DEVICE T lerp(T start, T end, T weight) {                                           \
    return (weight < T(0.5) && weight > T(-0.5)) ? start + weight * (end - start)             \
                                                 : end - (end - start) * (T(1) - weight);     \
  }
FUSEBOX_FLOAT_OPS(float)
FUSEBOX_FLOAT_OPS(double)
#undef FUSEBOX_FLOAT_OPS
// clang-format on

FUSEBOX_DEVICE float fmod(float a, float b) {
  return ::fmodf(a, b);
}
FUSEBOX_DEVICE double fmod(double a, double b) {
  return ::fmod(a, b);
}
FUSEBOX_DEVICE float remainder(float a, float b) {
  return detail::floatRemainder(b, ::fmodf(a, b));
}
FUSEBOX_DEVICE double remainder(double a, double b) {
  return detail::floatRemainder(b, ::fmod(a, b));
}
FUSEBOX_DEVICE float pow(float a, float b) {
  return ::powf(a, b);
}
FUSEBOX_DEVICE double pow(double a, double b) {
  return ::pow(a, b);
}
FUSEBOX_DEVICE float atan2(float a, float b) {
  return ::atan2f(a, b);
}
FUSEBOX_DEVICE double atan2(double a, double b) {
  return ::atan2(a, b);
}

// Integer ops, one set per integer type.
// clang-format off
#define FUSEBOX_INT_OPS(T)                                                                   \
  FUSEBOX_DEVICE T abs(T x) { return x < 0 ? detail::wrapSub<T>(0, x) : x; }                 \
  FUSEBOX_DEVICE T neg(T x) { return detail::wrapSub<T>(0, x); }                             \
  FUSEBOX_DEVICE T relu(T x) { return x > 0 ? x : 0; }                                       \
  FUSEBOX_DEVICE T floor(T x) { return x; }                                                  \
  FUSEBOX_DEVICE T ceil(T x) { return x; }                                                   \
  FUSEBOX_DEVICE T round(T x) { return x; }                                                  \
  FUSEBOX_DEVICE T trunc(T x) { return x; }                                                  \
  FUSEBOX_DEVICE T frac(T) { return 0; }                                                     \
  FUSEBOX_DEVICE T sign(T x) { return static_cast<T>((x > 0) - (x < 0)); }                   \
  FUSEBOX_DEVICE bool logical_not(T x) { return x == 0; }                                    \
  FUSEBOX_DEVICE T bitwise_not(T x) { return ~x; }                                           \
  FUSEBOX_DEVICE bool isfinite(T) { return true; }                                           \
  FUSEBOX_DEVICE bool isinf(T) { return false; }                                             \
  FUSEBOX_DEVICE bool isnan(T) { return false; }                                             \
  FUSEBOX_DEVICE bool isneginf(T) { return false; }                                          \
  FUSEBOX_DEVICE bool isposinf(T) { return false; }                                          \
  FUSEBOX_DEVICE T add(T a, T b) { return detail::wrapAdd(a, b); }                           \
  FUSEBOX_DEVICE T sub(T a, T b) { return detail::wrapSub(a, b); }                           \
  FUSEBOX_DEVICE T mul(T a, T b) { return detail::wrapMul(a, b); }                           \
  FUSEBOX_DEVICE T div(T a, T b) { return detail::truncDiv(a, b); }                          \
  FUSEBOX_DEVICE T fmod(T a, T b) { return detail::truncMod(a, b); }                         \
  FUSEBOX_DEVICE T remainder(T a, T b) { return detail::floorMod(a, b); }                    \
  FUSEBOX_DEVICE T pow(T a, T b) { return detail::intPow(a, b); }                            \
  FUSEBOX_DEVICE T maximum(T a, T b) { return a > b ? a : b; }                               \
  FUSEBOX_DEVICE T minimum(T a, T b) { return a < b ? a : b; }                               \
  FUSEBOX_DEVICE T ceilDiv(T a, T b) { return detail::ceilDivInt(a, b); }                    \
  FUSEBOX_DEVICE T bitwise_and(T a, T b) { return a & b; }                                   \
  FUSEBOX_DEVICE T bitwise_or(T a, T b) { return a | b; }                                    \
  FUSEBOX_DEVICE T bitwise_xor(T a, T b) { return a ^ b; }                                   \
  FUSEBOX_DEVICE T bitwise_left_shift(T a, T b) { return detail::shiftLeft(a, b); }          \
  FUSEBOX_DEVICE T bitwise_right_shift(T a, T b) { return detail::shiftRight(a, b); }        \
  FUSEBOX_DEVICE T clamp(T x, T lo, T hi) { return minimum(maximum(x, lo), hi); }
FUSEBOX_INT_OPS(int32_t)
FUSEBOX_INT_OPS(int64_t)
#undef FUSEBOX_INT_OPS
// clang-format on

// Bools: the ops the evaluator keeps boolean.
// clang-format off
FUSEBOX_DEVICE bool abs(bool x) { return x; }
FUSEBOX_DEVICE bool relu(bool x) { return x; }
FUSEBOX_DEVICE bool logical_not(bool x) { return !x; }
FUSEBOX_DEVICE bool bitwise_not(bool x) { return !x; }
FUSEBOX_DEVICE bool isfinite(bool) { return true; }
FUSEBOX_DEVICE bool isinf(bool) { return false; }
FUSEBOX_DEVICE bool isnan(bool) { return false; }
FUSEBOX_DEVICE bool isneginf(bool) { return false; }
FUSEBOX_DEVICE bool isposinf(bool) { return false; }
FUSEBOX_DEVICE bool maximum(bool a, bool b) { return a || b; }
FUSEBOX_DEVICE bool minimum(bool a, bool b) { return a && b; }
FUSEBOX_DEVICE bool bitwise_and(bool a, bool b) { return a && b; }
FUSEBOX_DEVICE bool bitwise_or(bool a, bool b) { return a || b; }
FUSEBOX_DEVICE bool bitwise_xor(bool a, bool b) { return a != b; }
// clang-format on

// Comparisons, logic and selection: one template for every type.
template <typename T>
FUSEBOX_DEVICE bool eq(T a, T b) {
  return a == b;
}
template <typename T>
FUSEBOX_DEVICE bool ne(T a, T b) {
  return a != b;
}
// a == b for an int64 b and an int32 a that stands for an int64 (an iota
// whose every value fits, kernelgen's narrow iotas): a 32-bit compare of the
// element, and b's own test, the same for every element b is broadcast to.
FUSEBOX_DEVICE bool eqInt32(int32_t a, int64_t b) {
  const int32_t low = static_cast<int32_t>(b);
  return static_cast<int64_t>(low) == b && low == a;
}
FUSEBOX_DEVICE bool neInt32(int32_t a, int64_t b) { return !eqInt32(a, b); }
template <typename T>
FUSEBOX_DEVICE bool lt(T a, T b) {
  return a < b;
}
template <typename T>
FUSEBOX_DEVICE bool le(T a, T b) {
  return a <= b;
}
template <typename T>
FUSEBOX_DEVICE bool gt(T a, T b) {
  return a > b;
}
template <typename T>
FUSEBOX_DEVICE bool ge(T a, T b) {
  return a >= b;
}
// Truthiness as the evaluator's: nonzero, and NaN counts as true.
template <typename T>
FUSEBOX_DEVICE bool logical_and(T a, T b) {
  return a != T(0) && b != T(0);
}
template <typename T>
FUSEBOX_DEVICE bool logical_or(T a, T b) {
  return a != T(0) || b != T(0);
}
template <typename T>
FUSEBOX_DEVICE T where(bool condition, T a, T b) {
  return condition ? a : b;
}
// torch's threshold(x, th, v): x <= th ? v : x (NaN passes through).
template <typename T>
FUSEBOX_DEVICE T threshold(T x, T th, T value) {
  return x <= th ? value : x;
}

}  // namespace op
}  // namespace fusebox
