// fusebox::op (the runtime's IR op semantics) against the reference
// evaluator's, on edge values: integer division and remainder signs,
// wrapping, shifts, NaN and infinities, round half to even, casts. The
// evaluator computes scalars through ExpressionEvaluator with the very rules
// it applies to tensors.
#include <fusebox/eval/evaluator.h>
#include <fusebox/half.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/ir/ops.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <fusebox_runtime.cuh>

namespace fusebox::testing {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const std::vector<int64_t> kInts = {
    0,      1, -1, 2, -2, 3, -3, 7, -7, 63, 64, 65, -64, kMin64, kMax64, 2147483647, -2147483648LL,
    1000003};
const std::vector<double> kDoubles = {0.0,    -0.0,     0.5,       -0.5, 1.5,    -1.5,  2.5,
                                      -2.5,   3.0,      -3.0,      7.25, -7.25,  1e300, -1e300,
                                      1e-310, INFINITY, -INFINITY, NAN,  0.9999, -0.3};

ScalarValue evaluate(const std::function<Val*(Fusion&, const std::vector<Val*>&)>& build,
                     const std::vector<ScalarValue>& args, DataType dtype) {
  Fusion f;
  std::vector<Val*> inputs;
  for (size_t i = 0; i < args.size(); ++i) inputs.push_back(f.newScalar(dtype));
  Val* out = build(f, inputs);
  ExpressionEvaluator ee;
  for (size_t i = 0; i < args.size(); ++i) ee.bind(inputs[i], args[i]);
  return ee.evaluateOrThrow(out);
}

// Equal as values, NaN equal to NaN, and the sign of zero counted.
bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

int64_t runtimeBinary(BinaryOpType op, int64_t a, int64_t b) {
  using B = BinaryOpType;
  switch (op) {
    case B::Add:
      return op::add(a, b);
    case B::Sub:
      return op::sub(a, b);
    case B::Mul:
      return op::mul(a, b);
    case B::Div:
      return op::div(a, b);
    case B::Fmod:
      return op::fmod(a, b);
    case B::Remainder:
      return op::remainder(a, b);
    case B::Pow:
      return op::pow(a, b);
    case B::Maximum:
      return op::maximum(a, b);
    case B::Minimum:
      return op::minimum(a, b);
    case B::CeilDiv:
      return op::ceilDiv(a, b);
    case B::Eq:
      return op::eq(a, b);
    case B::Ne:
      return op::ne(a, b);
    case B::Lt:
      return op::lt(a, b);
    case B::Le:
      return op::le(a, b);
    case B::Gt:
      return op::gt(a, b);
    case B::Ge:
      return op::ge(a, b);
    case B::LogicalAnd:
      return op::logical_and(a, b);
    case B::LogicalOr:
      return op::logical_or(a, b);
    case B::BitwiseAnd:
      return op::bitwise_and(a, b);
    case B::BitwiseOr:
      return op::bitwise_or(a, b);
    case B::BitwiseXor:
      return op::bitwise_xor(a, b);
    case B::BitwiseLeftShift:
      return op::bitwise_left_shift(a, b);
    case B::BitwiseRightShift:
      return op::bitwise_right_shift(a, b);
    default:
      ADD_FAILURE() << "no integer form of " << toString(op);
      return 0;
  }
}

// Ops the evaluator has but the kernel runtime has no element code for (the
// kernel schedulers refuse them: kernelgen/op_support.h).
bool hasRuntimeForm(BinaryOpType op) {
  return op != BinaryOpType::Nextafter && op != BinaryOpType::Gcd &&
         op != BinaryOpType::LogicalRightShift;
}
bool hasRuntimeForm(UnaryOpType op) {
  return op != UnaryOpType::Signbit;
}

bool hasIntegerForm(BinaryOpType op) {
  return op != BinaryOpType::TrueDiv && op != BinaryOpType::Atan2 && hasRuntimeForm(op);
}
bool dividesByB(BinaryOpType op) {
  using B = BinaryOpType;
  return op == B::Div || op == B::Fmod || op == B::Remainder || op == B::CeilDiv;
}

TEST(RuntimeMath, IntegerBinaryOpsMatchTheEvaluator) {
  int checked = 0;
  for (BinaryOpType op : allBinaryOpTypes()) {
    if (!hasIntegerForm(op)) continue;
    for (int64_t a : kInts) {
      for (int64_t b : kInts) {
        if (dividesByB(op) && b == 0) continue;  // the evaluator refuses; see below
        const ScalarValue expected = evaluate(
            [&](Fusion&, const std::vector<Val*>& in) { return binaryOp(op, in[0], in[1]); },
            {a, b}, DataType::Int64);
        ASSERT_EQ(runtimeBinary(op, a, b), toInt(expected))
            << toString(op) << "(" << a << ", " << b << ")";
        // int32 computes as int64 and narrows, as the evaluator stores int32.
        if (a == static_cast<int32_t>(a) && b == static_cast<int32_t>(b) &&
            op != BinaryOpType::Eq && op != BinaryOpType::Ne && op != BinaryOpType::Lt &&
            op != BinaryOpType::Le && op != BinaryOpType::Gt && op != BinaryOpType::Ge &&
            op != BinaryOpType::LogicalAnd && op != BinaryOpType::LogicalOr) {
          const auto a32 = static_cast<int32_t>(a), b32 = static_cast<int32_t>(b);
          int32_t got = 0;
          switch (op) {
            case BinaryOpType::Add:
              got = op::add(a32, b32);
              break;
            case BinaryOpType::Sub:
              got = op::sub(a32, b32);
              break;
            case BinaryOpType::Mul:
              got = op::mul(a32, b32);
              break;
            case BinaryOpType::Div:
              got = op::div(a32, b32);
              break;
            case BinaryOpType::Fmod:
              got = op::fmod(a32, b32);
              break;
            case BinaryOpType::Remainder:
              got = op::remainder(a32, b32);
              break;
            case BinaryOpType::Pow:
              got = op::pow(a32, b32);
              break;
            case BinaryOpType::Maximum:
              got = op::maximum(a32, b32);
              break;
            case BinaryOpType::Minimum:
              got = op::minimum(a32, b32);
              break;
            case BinaryOpType::CeilDiv:
              got = op::ceilDiv(a32, b32);
              break;
            case BinaryOpType::BitwiseAnd:
              got = op::bitwise_and(a32, b32);
              break;
            case BinaryOpType::BitwiseOr:
              got = op::bitwise_or(a32, b32);
              break;
            case BinaryOpType::BitwiseXor:
              got = op::bitwise_xor(a32, b32);
              break;
            case BinaryOpType::BitwiseLeftShift:
              got = op::bitwise_left_shift(a32, b32);
              break;
            case BinaryOpType::BitwiseRightShift:
              got = op::bitwise_right_shift(a32, b32);
              break;
            default:
              break;
          }
          // Pow is computed in int64 by the evaluator; narrowing the wrapped int64 power
          // equals the wrapped int32 power (both are the low 32 bits of the true power).
          ASSERT_EQ(got, static_cast<int32_t>(toInt(expected)))
              << "int32 " << toString(op) << "(" << a << ", " << b << ")";
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 5000);
}

TEST(RuntimeMath, IntegerDivisionEdgeCasesByHand) {
  // Truncation toward zero; fmod takes the dividend's sign, remainder the divisor's.
  EXPECT_EQ(op::div(int64_t{-7}, int64_t{2}), -3);
  EXPECT_EQ(op::fmod(int64_t{-7}, int64_t{2}), -1);
  EXPECT_EQ(op::remainder(int64_t{-7}, int64_t{2}), 1);
  EXPECT_EQ(op::remainder(int64_t{7}, int64_t{-2}), -1);
  EXPECT_EQ(op::ceilDiv(int64_t{-7}, int64_t{2}), -3);
  EXPECT_EQ(op::ceilDiv(int64_t{7}, int64_t{2}), 4);
  // MIN / -1 wraps (a hardware division would trap on the host).
  EXPECT_EQ(op::div(kMin64, int64_t{-1}), kMin64);
  EXPECT_EQ(op::div(int32_t{-2147483647 - 1}, int32_t{-1}), -2147483647 - 1);
  // A kernel cannot raise the evaluator's error: division by zero gives 0.
  EXPECT_EQ(op::div(int64_t{5}, int64_t{0}), 0);
  EXPECT_EQ(op::fmod(int64_t{5}, int64_t{0}), 0);
  EXPECT_EQ(op::remainder(int32_t{5}, int32_t{0}), 0);
  EXPECT_EQ(op::ceilDiv(int64_t{5}, int64_t{0}), 0);
  // Shifts out of range: 0, or the sign alone.
  EXPECT_EQ(op::bitwise_left_shift(int64_t{1}, int64_t{64}), 0);
  EXPECT_EQ(op::bitwise_right_shift(int64_t{-8}, int64_t{100}), -1);
  EXPECT_EQ(op::bitwise_left_shift(int32_t{1}, int32_t{40}), 0);
  EXPECT_EQ(op::pow(int64_t{2}, int64_t{-1}), 0);
  EXPECT_EQ(op::pow(int64_t{-1}, int64_t{-3}), -1);
}

double runtimeBinary(BinaryOpType op, double a, double b) {
  using B = BinaryOpType;
  switch (op) {
    case B::Add:
      return op::add(a, b);
    case B::Sub:
      return op::sub(a, b);
    case B::Mul:
      return op::mul(a, b);
    case B::Div:
      return op::div(a, b);
    case B::TrueDiv:
      return op::truediv(a, b);
    case B::Fmod:
      return op::fmod(a, b);
    case B::Remainder:
      return op::remainder(a, b);
    case B::Pow:
      return op::pow(a, b);
    case B::Atan2:
      return op::atan2(a, b);
    case B::Maximum:
      return op::maximum(a, b);
    case B::Minimum:
      return op::minimum(a, b);
    case B::CeilDiv:
      return op::ceilDiv(a, b);
    case B::Eq:
      return op::eq(a, b);
    case B::Ne:
      return op::ne(a, b);
    case B::Lt:
      return op::lt(a, b);
    case B::Le:
      return op::le(a, b);
    case B::Gt:
      return op::gt(a, b);
    case B::Ge:
      return op::ge(a, b);
    case B::LogicalAnd:
      return op::logical_and(a, b);
    case B::LogicalOr:
      return op::logical_or(a, b);
    default:
      return NAN;
  }
}

double asDouble(const ScalarValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

TEST(RuntimeMath, FloatingBinaryOpsMatchTheEvaluatorExactlyInDouble) {
  int checked = 0;
  for (BinaryOpType op : allBinaryOpTypes()) {
    const std::string_view name = toString(op);
    // Integers only (the builder refuses floating ceilDiv too).
    if (name.rfind("bitwise", 0) == 0 || op == BinaryOpType::CeilDiv || !hasRuntimeForm(op))
      continue;
    for (double a : kDoubles) {
      for (double b : kDoubles) {
        const ScalarValue expected = evaluate(
            [&](Fusion&, const std::vector<Val*>& in) { return binaryOp(op, in[0], in[1]); },
            {a, b}, DataType::Double);
        ASSERT_TRUE(sameDouble(runtimeBinary(op, a, b), asDouble(expected)))
            << name << "(" << a << ", " << b << "): runtime " << runtimeBinary(op, a, b)
            << ", evaluator " << asDouble(expected);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 4000);
  // By hand: remainder takes the divisor's sign; maximum propagates NaN.
  EXPECT_EQ(op::remainder(-7.5, 2.0), 0.5);
  EXPECT_EQ(op::remainder(7.5f, -2.0f), -0.5f);
  EXPECT_TRUE(std::isnan(op::maximum(NAN, 1.0f)));
  EXPECT_TRUE(std::isnan(op::minimum(1.0, kNan)));
}

double runtimeUnary(UnaryOpType op, double x) {
  using U = UnaryOpType;
  switch (op) {
    case U::Abs:
      return op::abs(x);
    case U::Neg:
      return op::neg(x);
    case U::Exp:
      return op::exp(x);
    case U::Exp2:
      return op::exp2(x);
    case U::Expm1:
      return op::expm1(x);
    case U::Log:
      return op::log(x);
    case U::Log2:
      return op::log2(x);
    case U::Log10:
      return op::log10(x);
    case U::Log1p:
      return op::log1p(x);
    case U::Sqrt:
      return op::sqrt(x);
    case U::Rsqrt:
      return op::rsqrt(x);
    case U::Reciprocal:
      return op::reciprocal(x);
    case U::Sin:
      return op::sin(x);
    case U::Cos:
      return op::cos(x);
    case U::Tan:
      return op::tan(x);
    case U::Asin:
      return op::asin(x);
    case U::Acos:
      return op::acos(x);
    case U::Atan:
      return op::atan(x);
    case U::Sinh:
      return op::sinh(x);
    case U::Cosh:
      return op::cosh(x);
    case U::Tanh:
      return op::tanh(x);
    case U::Asinh:
      return op::asinh(x);
    case U::Acosh:
      return op::acosh(x);
    case U::Atanh:
      return op::atanh(x);
    case U::Sigmoid:
      return op::sigmoid(x);
    case U::Relu:
      return op::relu(x);
    case U::Silu:
      return op::silu(x);
    case U::Erf:
      return op::erf(x);
    case U::Erfc:
      return op::erfc(x);
    case U::Erfinv:
      return op::erfinv(x);
    case U::Erfcinv:
      return op::erfcinv(x);
    case U::Lgamma:
      return op::lgamma(x);
    case U::Floor:
      return op::floor(x);
    case U::Ceil:
      return op::ceil(x);
    case U::Round:
      return op::round(x);
    case U::Trunc:
      return op::trunc(x);
    case U::Frac:
      return op::frac(x);
    case U::Sign:
      return op::sign(x);
    case U::LogicalNot:
      return op::logical_not(x);
    case U::IsFinite:
      return op::isfinite(x);
    case U::IsInf:
      return op::isinf(x);
    case U::IsNan:
      return op::isnan(x);
    case U::IsNegInf:
      return op::isneginf(x);
    case U::IsPosInf:
      return op::isposinf(x);
    case U::BitwiseNot:
    case U::Signbit:
      break;
  }
  return NAN;
}

TEST(RuntimeMath, FloatingUnaryOpsMatchTheEvaluator) {
  std::vector<double> values = kDoubles;
  for (double v : {0.25, -0.75, 0.999999, -0.999999, 1.0, -1.0, 4.5, 5.5, -4.5, 20.0, -20.0})
    values.push_back(v);
  for (UnaryOpType op : allUnaryOpTypes()) {
    if (op == UnaryOpType::BitwiseNot || !hasRuntimeForm(op)) continue;
    for (double x : values) {
      const ScalarValue expected =
          evaluate([&](Fusion&, const std::vector<Val*>& in) { return unaryOp(op, in[0]); }, {x},
                   DataType::Double);
      // double: the same formulas on the same libm, so the very same value.
      ASSERT_TRUE(sameDouble(runtimeUnary(op, x), asDouble(expected)))
          << toString(op) << "(" << x << "): runtime " << runtimeUnary(op, x) << ", evaluator "
          << asDouble(expected);
    }
  }
  // Round half to even, both signs; sign(NaN) = 0; relu keeps NaN.
  EXPECT_EQ(op::round(2.5f), 2.0f);
  EXPECT_EQ(op::round(3.5f), 4.0f);
  EXPECT_EQ(op::round(-2.5), -2.0);
  EXPECT_EQ(op::round(-0.5f), -0.0f);
  EXPECT_EQ(op::sign(NAN), 0.0);
  EXPECT_TRUE(std::isnan(op::relu(NAN)));
  EXPECT_EQ(op::frac(-2.75f), -0.75f);
  EXPECT_TRUE(op::isneginf(-INFINITY) && !op::isneginf(INFINITY) && !op::isneginf(NAN));
}

TEST(RuntimeMath, FloatOverloadsStayCloseToTheDoubleResult) {
  for (UnaryOpType op : allUnaryOpTypes()) {
    if (op == UnaryOpType::BitwiseNot || !hasRuntimeForm(op)) continue;
    for (double x : {0.3, -0.7, 2.5, -3.25, 0.999, 10.0}) {
      const float xf = static_cast<float>(x);
      const double reference = runtimeUnary(op, static_cast<double>(xf));
      float got = NAN;
      // clang-format off
      switch (op) {
#define CASE(E, f) case UnaryOpType::E: got = static_cast<float>(op::f(xf)); break;
        CASE(Abs, abs) CASE(Neg, neg) CASE(Exp, exp) CASE(Exp2, exp2) CASE(Expm1, expm1)
        CASE(Log, log) CASE(Log2, log2) CASE(Log10, log10) CASE(Log1p, log1p) CASE(Sqrt, sqrt)
        CASE(Rsqrt, rsqrt) CASE(Reciprocal, reciprocal) CASE(Sin, sin) CASE(Cos, cos)
        CASE(Tan, tan) CASE(Asin, asin) CASE(Acos, acos) CASE(Atan, atan) CASE(Sinh, sinh)
        CASE(Cosh, cosh) CASE(Tanh, tanh) CASE(Asinh, asinh) CASE(Acosh, acosh)
        CASE(Atanh, atanh) CASE(Sigmoid, sigmoid) CASE(Relu, relu) CASE(Silu, silu)
        CASE(Erf, erf) CASE(Erfc, erfc) CASE(Erfinv, erfinv) CASE(Erfcinv, erfcinv)
        CASE(Lgamma, lgamma)
        CASE(Floor, floor) CASE(Ceil, ceil) CASE(Round, round) CASE(Trunc, trunc)
        CASE(Frac, frac) CASE(Sign, sign) CASE(LogicalNot, logical_not)
        CASE(IsFinite, isfinite) CASE(IsInf, isinf) CASE(IsNan, isnan)
        CASE(IsNegInf, isneginf) CASE(IsPosInf, isposinf)
#undef CASE
        case UnaryOpType::BitwiseNot: case UnaryOpType::Signbit: break;
      }
      // clang-format on
      if (std::isnan(reference)) {
        EXPECT_TRUE(std::isnan(got)) << toString(op) << "(" << x << ")";
      } else {
        EXPECT_NEAR(got, reference, 4e-7 * std::max(1.0, std::fabs(reference)))
            << toString(op) << "(" << x << ")";
      }
    }
  }
}

TEST(RuntimeMath, TernaryOpsMatchTheEvaluator) {
  for (double a : kDoubles) {
    for (double b : {-1.0, 0.5, kNan}) {
      for (double c : {2.0, -0.25, 1.0, 0.0}) {
        for (TernaryOpType t : allTernaryOpTypes()) {
          if (t == TernaryOpType::Where) continue;
          const ScalarValue expected = evaluate(
              [&](Fusion&, const std::vector<Val*>& in) {
                return ternaryOp(t, in[0], in[1], in[2]);
              },
              {a, b, c}, DataType::Double);
          const double got = t == TernaryOpType::Clamp  ? op::clamp(a, b, c)
                             : t == TernaryOpType::Lerp ? op::lerp(a, b, c)
                                                        : op::threshold(a, b, c);
          ASSERT_TRUE(sameDouble(got, asDouble(expected)))
              << toString(t) << "(" << a << ", " << b << ", " << c << ")";
        }
      }
    }
  }
  EXPECT_EQ(op::where(true, 1.5f, 2.5f), 1.5f);
  EXPECT_EQ(op::clamp(int64_t{9}, int64_t{-2}, int64_t{4}), 4);
}

TEST(RuntimeMath, CastsMatchTheEvaluator) {
  for (double x : kDoubles) {
    for (DataType to : {DataType::Int64, DataType::Int32, DataType::Bool, DataType::Half,
                        DataType::BFloat16, DataType::Float}) {
      const ScalarValue expected =
          evaluate([&](Fusion&, const std::vector<Val*>& in) { return castOp(to, in[0]); }, {x},
                   DataType::Double);
      double got = 0;
      switch (to) {
        case DataType::Int64:
          got = static_cast<double>(cast<int64_t>(x));
          break;
        case DataType::Int32:
          got = cast<int32_t>(x);
          break;
        case DataType::Bool:
          got = cast<bool>(x);
          break;
        case DataType::Half:
          got = cast<float>(cast<Half>(x));
          break;
        case DataType::BFloat16:
          got = cast<float>(cast<BFloat16>(x));
          break;
        default:
          got = cast<float>(x);
          break;
      }
      ASSERT_TRUE(sameDouble(got, asDouble(expected)))
          << "cast " << x << " to " << irName(to) << ": runtime " << got << ", evaluator "
          << asDouble(expected);
    }
  }
  // By hand: out-of-range and NaN give the minimum; int64 -> int32 wraps;
  // 2049 is a tie between half's 2048 and 2050, rounding to even (2048).
  EXPECT_EQ(cast<int32_t>(NAN), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(cast<int64_t>(1e19f), kMin64);
  EXPECT_EQ(cast<int32_t>(-2.9), -2);
  EXPECT_EQ(cast<int32_t>(int64_t{2147483648LL + 5}), -2147483648LL + 5);
  EXPECT_EQ(cast<Half>(int64_t{2049}).bits, floatToHalf(2048.0f));
  EXPECT_EQ(cast<float>(cast<BFloat16>(true)), 1.0f);
}

}  // namespace
}  // namespace fusebox::testing
