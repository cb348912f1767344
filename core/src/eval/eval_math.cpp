// Elementwise semantics of every unary, binary and ternary op, as PyTorch
// defines them. Integers compute in int64 with two's-complement wrapping (the
// store narrows to int32 afterwards); floats compute in double.
// integerOverflows says when a wrap happened, for the shape arithmetic that
// must not wrap (shape_scalars.h).
#include <fusebox/checked_math.h>
#include <fusebox/error.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "eval/eval_internal.h"

namespace fusebox::eval_detail {
namespace {

using Kind = Number::Kind;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();

// Wrapping int64 arithmetic without signed-overflow UB.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

void requireNonZeroDivisor(int64_t b, const char* op) {
  FUSEBOX_USER_CHECK(b != 0, "integer {} by zero", op);
}

// C semantics: truncation toward zero. INT64_MIN / -1 wraps to INT64_MIN.
int64_t truncDiv(int64_t a, int64_t b) {
  requireNonZeroDivisor(b, "division");
  if (b == -1) return wrapSub(0, a);
  return a / b;
}

// Remainder with the sign of the dividend (C %).
int64_t truncMod(int64_t a, int64_t b) {
  requireNonZeroDivisor(b, "fmod");
  if (b == -1) return 0;
  return a % b;
}

// Remainder with the sign of the divisor (Python %).
int64_t floorMod(int64_t a, int64_t b) {
  requireNonZeroDivisor(b, "remainder");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t ceilDivInt(int64_t a, int64_t b) {
  requireNonZeroDivisor(b, "ceil division");
  if (b == -1) return wrapSub(0, a);
  int64_t q = a / b;
  int64_t r = a % b;
  if (r != 0 && ((r > 0) == (b > 0))) ++q;  // the true quotient is positive and was truncated down
  return q;
}

// Integer power by repeated squaring (wrapping). As torch's integer pow kernel:
// a negative exponent gives 1 for base 1, +-1 for base -1, and 0 otherwise.
int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;
  }
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// max/min that propagate NaN, as torch.maximum / torch.minimum.
double nanMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNan;
  return a > b ? a : b;
}
double nanMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNan;
  return a < b ? a : b;
}

bool isIntLike(const Number& x) {
  return x.kind != Kind::Float;
}

Number floatMath(UnaryOpType op, double x) {
  switch (op) {
    case UnaryOpType::Exp:
      return Number::ofFloat(std::exp(x));
    case UnaryOpType::Exp2:
      return Number::ofFloat(std::exp2(x));
    case UnaryOpType::Expm1:
      return Number::ofFloat(std::expm1(x));
    case UnaryOpType::Log:
      return Number::ofFloat(std::log(x));
    case UnaryOpType::Log2:
      return Number::ofFloat(std::log2(x));
    case UnaryOpType::Log10:
      return Number::ofFloat(std::log10(x));
    case UnaryOpType::Log1p:
      return Number::ofFloat(std::log1p(x));
    case UnaryOpType::Sqrt:
      return Number::ofFloat(std::sqrt(x));
    case UnaryOpType::Rsqrt:
      return Number::ofFloat(1.0 / std::sqrt(x));
    case UnaryOpType::Reciprocal:
      return Number::ofFloat(1.0 / x);
    case UnaryOpType::Sin:
      return Number::ofFloat(std::sin(x));
    case UnaryOpType::Cos:
      return Number::ofFloat(std::cos(x));
    case UnaryOpType::Tan:
      return Number::ofFloat(std::tan(x));
    case UnaryOpType::Asin:
      return Number::ofFloat(std::asin(x));
    case UnaryOpType::Acos:
      return Number::ofFloat(std::acos(x));
    case UnaryOpType::Atan:
      return Number::ofFloat(std::atan(x));
    case UnaryOpType::Sinh:
      return Number::ofFloat(std::sinh(x));
    case UnaryOpType::Cosh:
      return Number::ofFloat(std::cosh(x));
    case UnaryOpType::Tanh:
      return Number::ofFloat(std::tanh(x));
    case UnaryOpType::Asinh:
      return Number::ofFloat(std::asinh(x));
    case UnaryOpType::Acosh:
      return Number::ofFloat(std::acosh(x));
    case UnaryOpType::Atanh:
      return Number::ofFloat(std::atanh(x));
    case UnaryOpType::Sigmoid:
      return Number::ofFloat(1.0 / (1.0 + std::exp(-x)));
    // x / (1 + e^-x) rather than x * sigmoid(x): same value, one rounding fewer.
    case UnaryOpType::Silu:
      return Number::ofFloat(x / (1.0 + std::exp(-x)));
    case UnaryOpType::Erf:
      return Number::ofFloat(std::erf(x));
    case UnaryOpType::Erfc:
      return Number::ofFloat(std::erfc(x));
    case UnaryOpType::Erfinv:
      return Number::ofFloat(erfinv(x));
    case UnaryOpType::Erfcinv:
      return Number::ofFloat(erfcinv(x));
    case UnaryOpType::Lgamma:
      return Number::ofFloat(std::lgamma(x));
    default:
      break;
  }
  throw InternalError(fmt::format("{} is not a floating math op", toString(op)));
}

}  // namespace

double roundHalfToEven(double x) {
  // From 2^52 on every double is an integer; NaN and inf pass through.
  if (!(std::fabs(x) < 4503599627370496.0)) return x;
  double a = std::fabs(x);
  double r = std::floor(a);
  double frac = a - r;  // exact below 2^52
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return std::copysign(r, x);
}

double erfinv(double x) {
  if (std::isnan(x) || x < -1.0 || x > 1.0) return kNan;
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  if (x == -1.0) return -std::numeric_limits<double>::infinity();
  if (x == 0.0) return x;
  const double a = std::fabs(x);
  // Starting point: Winitzki's closed-form approximation (a few 1e-3 relative).
  const double k = 0.147;
  const double ln = std::log((1.0 - a) * (1.0 + a));
  const double t = 2.0 / (std::numbers::pi * k) + ln / 2.0;
  double y = std::sqrt(std::sqrt(t * t - ln / k) - t);
  // Newton steps. Near 0, on erf(y) = a; from 0.5 on, on erfc(y) = 1 - a, which
  // is exact there and keeps its relative precision in the tail where erf(y)
  // would round to 1.
  const bool use_erfc = a >= 0.5;
  const double target = use_erfc ? 1.0 - a : a;
  const double two_over_sqrt_pi = 2.0 / std::sqrt(std::numbers::pi);
  for (int iter = 0; iter < 8; ++iter) {
    const double slope = two_over_sqrt_pi * std::exp(-y * y);  // d erf / dy
    const double step =
        use_erfc ? -(std::erfc(y) - target) / slope : (std::erf(y) - target) / slope;
    y -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(y)) break;
  }
  return std::copysign(y, x);
}

double erfcinv(double x) {
  if (std::isnan(x) || x < 0.0 || x > 2.0) return kNan;
  if (x == 0.0) return std::numeric_limits<double>::infinity();
  if (x == 2.0) return -std::numeric_limits<double>::infinity();
  // erfcinv(x) = -erfcinv(2 - x), and 2 - x is exact for x in [1, 2].
  if (x > 1.0) return -erfcinv(2.0 - x);
  // From erfinv(1 - x), which is exact enough from x = 0.5 on; below it 1 - x
  // drops x's low bits (or rounds to 1), so Newton steps on log(erfc(y)) =
  // log(x) finish the job: log keeps the relative precision of the tail,
  // where erfc(y) falls like exp(-y^2), and its curve is gentle there.
  double y = x >= 1e-300 ? erfinv(1.0 - x) : 26.5;
  if (!std::isfinite(y)) y = std::sqrt(-std::log(x));
  const double log_x = std::log(x);
  const double two_over_sqrt_pi = 2.0 / std::sqrt(std::numbers::pi);
  for (int iter = 0; iter < 50; ++iter) {
    const double c = std::erfc(y);
    if (c <= 0.0) break;
    // d/dy log(erfc(y)) = -slope / erfc(y)
    const double step = (std::log(c) - log_x) / (-two_over_sqrt_pi * std::exp(-y * y) / c);
    y -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(y)) break;
  }
  return y;
}

Number applyUnary(UnaryOpType op, const Number& x) {
  const bool int_like = isIntLike(x);
  switch (op) {
    case UnaryOpType::Abs:
      if (x.kind == Kind::Bool) return x;
      if (int_like) return Number::ofInt(x.i < 0 ? wrapSub(0, x.i) : x.i);
      return Number::ofFloat(std::fabs(x.d));
    case UnaryOpType::Neg:
      if (int_like) return Number::ofInt(wrapSub(0, x.i));
      return Number::ofFloat(-x.d);
    case UnaryOpType::Relu:
      if (x.kind == Kind::Bool) return x;
      if (int_like) return Number::ofInt(x.i > 0 ? x.i : 0);
      // NaN propagates (torch's relu is clamp_min(0)).
      return Number::ofFloat(std::isnan(x.d) || x.d > 0.0 ? x.d : 0.0);
    case UnaryOpType::Floor:
    case UnaryOpType::Ceil:
    case UnaryOpType::Round:
    case UnaryOpType::Trunc:
      if (int_like) return x;  // already integral, as torch returns them unchanged
      if (op == UnaryOpType::Floor) return Number::ofFloat(std::floor(x.d));
      if (op == UnaryOpType::Ceil) return Number::ofFloat(std::ceil(x.d));
      if (op == UnaryOpType::Trunc) return Number::ofFloat(std::trunc(x.d));
      return Number::ofFloat(roundHalfToEven(x.d));
    case UnaryOpType::Frac:
      if (int_like) return Number::ofInt(0);
      return Number::ofFloat(x.d - std::trunc(x.d));
    case UnaryOpType::Sign:
      // (0 < x) - (x < 0), as torch's CPU kernel: sign(NaN) = 0.
      if (int_like) return Number::ofInt((x.i > 0) - (x.i < 0));
      return Number::ofFloat(static_cast<double>((0.0 < x.d) - (x.d < 0.0)));
    case UnaryOpType::LogicalNot:
      return Number::ofBool(!x.asBool());
    case UnaryOpType::BitwiseNot:
      FUSEBOX_USER_CHECK(int_like, "bitwise_not needs a bool or integer operand, got {}", x.d);
      if (x.kind == Kind::Bool) return Number::ofBool(x.i == 0);
      return Number::ofInt(~x.i);
    case UnaryOpType::IsFinite:
      return Number::ofBool(int_like || std::isfinite(x.d));
    case UnaryOpType::IsInf:
      return Number::ofBool(!int_like && std::isinf(x.d));
    case UnaryOpType::IsNan:
      return Number::ofBool(!int_like && std::isnan(x.d));
    case UnaryOpType::IsNegInf:
      return Number::ofBool(!int_like && std::isinf(x.d) && x.d < 0);
    case UnaryOpType::IsPosInf:
      return Number::ofBool(!int_like && std::isinf(x.d) && x.d > 0);
    case UnaryOpType::Signbit:
      // The sign bit itself: true for -0.0 and for NaNs that carry it.
      return Number::ofBool(int_like ? x.i < 0 : std::signbit(x.d));
    default:
      return floatMath(op, x.asDouble());
  }
}

Number applyBinary(BinaryOpType op, const Number& a, const Number& b) {
  const bool fl = a.isFloat() || b.isFloat();
  switch (op) {
    case BinaryOpType::Add:
      return fl ? Number::ofFloat(a.asDouble() + b.asDouble()) : Number::ofInt(wrapAdd(a.i, b.i));
    case BinaryOpType::Sub:
      return fl ? Number::ofFloat(a.asDouble() - b.asDouble()) : Number::ofInt(wrapSub(a.i, b.i));
    case BinaryOpType::Mul:
      return fl ? Number::ofFloat(a.asDouble() * b.asDouble()) : Number::ofInt(wrapMul(a.i, b.i));
    case BinaryOpType::Div:
      return fl ? Number::ofFloat(a.asDouble() / b.asDouble()) : Number::ofInt(truncDiv(a.i, b.i));
    case BinaryOpType::TrueDiv:
      return Number::ofFloat(a.asDouble() / b.asDouble());
    case BinaryOpType::Fmod:
      return fl ? Number::ofFloat(std::fmod(a.asDouble(), b.asDouble()))
                : Number::ofInt(truncMod(a.i, b.i));
    case BinaryOpType::Remainder: {
      if (!fl) return Number::ofInt(floorMod(a.i, b.i));
      const double y = b.asDouble();
      double m = std::fmod(a.asDouble(), y);
      if (m != 0.0 && ((y < 0.0) != (m < 0.0))) m += y;
      return Number::ofFloat(m);
    }
    case BinaryOpType::Pow:
      return fl ? Number::ofFloat(std::pow(a.asDouble(), b.asDouble()))
                : Number::ofInt(intPow(a.i, b.i));
    case BinaryOpType::Atan2:
      return Number::ofFloat(std::atan2(a.asDouble(), b.asDouble()));
    case BinaryOpType::Maximum:
      if (fl) return Number::ofFloat(nanMax(a.asDouble(), b.asDouble()));
      return (a.kind == Kind::Bool && b.kind == Kind::Bool) ? Number::ofBool(a.i || b.i)
                                                            : Number::ofInt(std::max(a.i, b.i));
    case BinaryOpType::Minimum:
      if (fl) return Number::ofFloat(nanMin(a.asDouble(), b.asDouble()));
      return (a.kind == Kind::Bool && b.kind == Kind::Bool) ? Number::ofBool(a.i && b.i)
                                                            : Number::ofInt(std::min(a.i, b.i));
    case BinaryOpType::CeilDiv:
      return fl ? Number::ofFloat(std::ceil(a.asDouble() / b.asDouble()))
                : Number::ofInt(ceilDivInt(a.i, b.i));
    case BinaryOpType::Eq:
      return Number::ofBool(fl ? a.asDouble() == b.asDouble() : a.i == b.i);
    case BinaryOpType::Ne:
      return Number::ofBool(fl ? a.asDouble() != b.asDouble() : a.i != b.i);
    case BinaryOpType::Lt:
      return Number::ofBool(fl ? a.asDouble() < b.asDouble() : a.i < b.i);
    case BinaryOpType::Le:
      return Number::ofBool(fl ? a.asDouble() <= b.asDouble() : a.i <= b.i);
    case BinaryOpType::Gt:
      return Number::ofBool(fl ? a.asDouble() > b.asDouble() : a.i > b.i);
    case BinaryOpType::Ge:
      return Number::ofBool(fl ? a.asDouble() >= b.asDouble() : a.i >= b.i);
    case BinaryOpType::LogicalAnd:
      return Number::ofBool(a.asBool() && b.asBool());
    case BinaryOpType::LogicalOr:
      return Number::ofBool(a.asBool() || b.asBool());
    default:
      break;
  }
  return applyBitwise(op, a, b);
}

// Bitwise ops and shifts: integers and bools only.
Number applyBitwise(BinaryOpType op, const Number& a, const Number& b) {
  FUSEBOX_USER_CHECK(!a.isFloat() && !b.isFloat(),
                     "{} needs bool or integer operands, got a floating value", toString(op));
  const bool both_bool = a.kind == Kind::Bool && b.kind == Kind::Bool;
  auto result = [&](int64_t v) { return both_bool ? Number::ofBool(v != 0) : Number::ofInt(v); };
  switch (op) {
    case BinaryOpType::BitwiseAnd:
      return result(a.i & b.i);
    case BinaryOpType::BitwiseOr:
      return result(a.i | b.i);
    case BinaryOpType::BitwiseXor:
      return result(a.i ^ b.i);
    case BinaryOpType::BitwiseLeftShift:
      // Shifting by a negative amount or by the width or more gives 0 (torch's rule).
      if (b.i < 0 || b.i >= 64) return Number::ofInt(0);
      return Number::ofInt(static_cast<int64_t>(static_cast<uint64_t>(a.i) << b.i));
    case BinaryOpType::BitwiseRightShift:
      // Arithmetic shift; out-of-range amounts leave only the sign.
      if (b.i < 0 || b.i >= 64) return Number::ofInt(a.i < 0 ? -1 : 0);
      return Number::ofInt(a.i >> b.i);
    case BinaryOpType::Nextafter:
    case BinaryOpType::Gcd:
    case BinaryOpType::LogicalRightShift:
      throw InternalError(fmt::format(
          "{} depends on its dtype: call applyBinary with the dtype it computes in", toString(op)));
    default:
      break;
  }
  throw InternalError(fmt::format("unknown binary op {}", static_cast<int>(op)));
}

namespace {

// The neighbour of a toward b on the grid of a 16-bit float type (both ends
// rounded to it first, as torch converts its operands): one step of the
// sign-magnitude bit pattern, as std::nextafter does for float and double.
double nextAfter16(DataType t, double a, double b) {
  const bool half = t == DataType::Half;
  const uint16_t ab = half ? doubleToHalf(a) : doubleToBfloat16(a);
  const uint16_t bb = half ? doubleToHalf(b) : doubleToBfloat16(b);
  auto value = [&](uint16_t bits) {
    return static_cast<double>(half ? halfToFloat(bits) : bfloat16ToFloat(bits));
  };
  const double x = value(ab), y = value(bb);
  if (std::isnan(x) || std::isnan(y)) return kNan;
  if (x == y) return y;
  if (x == 0) return value(static_cast<uint16_t>(y < 0 ? 0x8001 : 0x0001));
  const bool away_from_zero = (x < y) == (x > 0);
  return value(static_cast<uint16_t>(away_from_zero ? ab + 1 : ab - 1));
}

double nextAfterIn(DataType t, double a, double b) {
  switch (t) {
    case DataType::Double:
      return std::nextafter(a, b);
    case DataType::Float:
      return std::nextafter(static_cast<float>(a), static_cast<float>(b));
    case DataType::Half:
    case DataType::BFloat16:
      return nextAfter16(t, a, b);
    default:
      throw InternalError(fmt::format("nextafter in {}", pythonName(t)));
  }
}

// torch's gcd kernel (Euclid on |a| and |b| in the operands' width): the
// absolute value of the most negative integer wraps, so gcd(INT64_MIN, 6) is
// -2 there, and so here.
template <class T>
int64_t torchGcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  auto wrap_abs = [](T v) { return v < 0 ? static_cast<T>(U{0} - static_cast<U>(v)) : v; };
  a = wrap_abs(a);
  b = wrap_abs(b);
  while (a != 0) {
    const T c = a;
    a = a == -1 ? 0 : static_cast<T>(b % a);  // b % -1 is 0 (and INT_MIN % -1 is UB)
    b = c;
  }
  return b;
}

}  // namespace

Number applyBinary(BinaryOpType op, const Number& a, const Number& b, DataType dtype) {
  switch (op) {
    case BinaryOpType::Nextafter:
      FUSEBOX_USER_CHECK(isFloatingType(dtype), "nextafter needs floating operands, got {}",
                         pythonName(dtype));
      return Number::ofFloat(nextAfterIn(dtype, a.asDouble(), b.asDouble()));
    case BinaryOpType::Gcd:
      FUSEBOX_USER_CHECK(!a.isFloat() && !b.isFloat(), "gcd needs integer operands");
      if (dtype == DataType::Int32)
        return Number::ofInt(torchGcd(static_cast<int32_t>(a.i), static_cast<int32_t>(b.i)));
      return Number::ofInt(torchGcd(a.i, b.i));
    case BinaryOpType::LogicalRightShift: {
      FUSEBOX_USER_CHECK(!a.isFloat() && !b.isFloat(),
                         "logical_right_shift needs integer operands");
      // The bits of the operand's width, zero-filled; amounts outside [0, width) give 0.
      const int64_t width = dtype == DataType::Int32 ? 32 : 64;
      if (b.i < 0 || b.i >= width) return Number::ofInt(0);
      const uint64_t bits = width == 32 ? static_cast<uint32_t>(a.i) : static_cast<uint64_t>(a.i);
      return Number::ofInt(static_cast<int64_t>(bits >> b.i));
    }
    default:
      return applyBinary(op, a, b);
  }
}

bool integerOverflows(UnaryOpType op, const Number& x) {
  if (x.kind != Kind::Int) return false;
  return (op == UnaryOpType::Neg || op == UnaryOpType::Abs) && x.i == kMinInt;
}

bool integerOverflows(BinaryOpType op, const Number& a, const Number& b) {
  if (a.isFloat() || b.isFloat()) return false;
  switch (op) {
    case BinaryOpType::Add:
      return !checked::add(a.i, b.i);
    case BinaryOpType::Sub:
      return !checked::sub(a.i, b.i);
    case BinaryOpType::Mul:
      return !checked::mul(a.i, b.i);
    case BinaryOpType::Div:
    case BinaryOpType::CeilDiv:
      return a.i == kMinInt && b.i == -1;
    case BinaryOpType::Pow:
      return b.i >= 0 && !checked::pow(a.i, b.i);
    case BinaryOpType::BitwiseLeftShift:
      return b.i >= 0 && b.i < 64 &&
             (static_cast<int64_t>(static_cast<uint64_t>(a.i) << b.i) >> b.i) != a.i;
    case BinaryOpType::Gcd:
      return a.i == kMinInt || b.i == kMinInt;  // |INT64_MIN| does not fit
    default:
      return false;
  }
}

Number applyTernary(TernaryOpType op, const Number& a, const Number& b, const Number& c) {
  switch (op) {
    case TernaryOpType::Where:
      return a.asBool() ? b : c;
    case TernaryOpType::Clamp: {
      // min(max(x, lo), hi) with NaN propagating, as torch.clamp.
      if (a.isFloat() || b.isFloat() || c.isFloat())
        return Number::ofFloat(nanMin(nanMax(a.asDouble(), b.asDouble()), c.asDouble()));
      return Number::ofInt(std::min(std::max(a.i, b.i), c.i));
    }
    case TernaryOpType::Lerp: {
      // torch's formulation: exact at weight 0 and 1.
      const double start = a.asDouble(), end = b.asDouble(), w = c.asDouble();
      return Number::ofFloat(std::fabs(w) < 0.5 ? start + w * (end - start)
                                                : end - (end - start) * (1.0 - w));
    }
    case TernaryOpType::Threshold: {
      // torch's threshold(x, th, v): x <= th ? v : x (so NaN passes through).
      const bool at_or_below =
          (a.isFloat() || b.isFloat()) ? a.asDouble() <= b.asDouble() : a.i <= b.i;
      return at_or_below ? c : a;
    }
  }
  throw InternalError(fmt::format("unknown ternary op {}", static_cast<int>(op)));
}

}  // namespace fusebox::eval_detail
