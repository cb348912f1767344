// Evaluator numerics of unary, binary, ternary and cast ops on small tensors,
// checked against values worked out by hand (or a one-line formula in the test).
#include <cmath>
#include <limits>
#include <numbers>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::expectNear;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Runs op(T0) on a 1-D input of `dtype` holding `in`.
std::vector<double> unary(UnaryOpType op, DataType dtype, const std::vector<double>& in,
                          DataType* out_type = nullptr) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, dtype);
  auto* out = unaryOp(op, t0);
  f.addOutput(out);
  if (out_type) *out_type = out->dtype();
  return valuesOf(runOne(f, {makeTensor(dtype, {static_cast<int64_t>(in.size())}, in)}));
}

// Runs op(T0, T1) on 1-D inputs.
std::vector<double> binary(BinaryOpType op, DataType ta, const std::vector<double>& a, DataType tb,
                           const std::vector<double>& b) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, ta);
  auto* t1 = defineTensor(f, {-1}, tb);
  f.addOutput(binaryOp(op, t0, t1));
  const int64_t n = static_cast<int64_t>(a.size());
  return valuesOf(runOne(f, {makeTensor(ta, {n}, a), makeTensor(tb, {n}, b)}));
}

TEST(EvalElementwise, AddTwoByThree) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  auto* t1 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(add(t0, t1));
  Tensor out = runOne(
      f, {makeFloat({2, 3}, {1, 2, 3, 4, 5, 6}), makeFloat({2, 3}, {10, 20, 30, 40, 50, 60})});
  EXPECT_EQ(out.dtype(), DataType::Float);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{11, 22, 33, 44, 55, 66}));
}

TEST(EvalElementwise, BroadcastRowAndColumn) {
  // [2, 1] + [3] -> [2, 3]: rank alignment on the right, size-1 dims stretch.
  Fusion f;
  auto* col = defineTensor(f, {-1, 1}, DataType::Double);
  auto* row = defineTensor(f, {-1}, DataType::Double);
  f.addOutput(mul(col, row));
  Tensor out = runOne(f, {makeTensor(DataType::Double, {2, 1}, {2, 3}),
                          makeTensor(DataType::Double, {3}, {1, 10, 100})});
  EXPECT_EQ(valuesOf(out), (std::vector<double>{2, 20, 200, 3, 30, 300}));
}

TEST(EvalElementwise, UnaryMathInDouble) {
  const std::vector<double> x = {-1.5, -0.25, 0.0, 0.5, 2.0};
  auto check = [&](UnaryOpType op, double (*fn)(double)) {
    SCOPED_TRACE(std::string(toString(op)));
    std::vector<double> want;
    for (double v : x) want.push_back(fn(v));
    expectNear(unary(op, DataType::Double, x), want, 0.0);
  };
  check(UnaryOpType::Abs, [](double v) { return std::fabs(v); });
  check(UnaryOpType::Neg, [](double v) { return -v; });
  check(UnaryOpType::Exp, [](double v) { return std::exp(v); });
  check(UnaryOpType::Exp2, [](double v) { return std::exp2(v); });
  check(UnaryOpType::Expm1, [](double v) { return std::expm1(v); });
  check(UnaryOpType::Sin, [](double v) { return std::sin(v); });
  check(UnaryOpType::Cos, [](double v) { return std::cos(v); });
  check(UnaryOpType::Tan, [](double v) { return std::tan(v); });
  check(UnaryOpType::Atan, [](double v) { return std::atan(v); });
  check(UnaryOpType::Sinh, [](double v) { return std::sinh(v); });
  check(UnaryOpType::Cosh, [](double v) { return std::cosh(v); });
  check(UnaryOpType::Tanh, [](double v) { return std::tanh(v); });
  check(UnaryOpType::Asinh, [](double v) { return std::asinh(v); });
  check(UnaryOpType::Erf, [](double v) { return std::erf(v); });
  check(UnaryOpType::Erfc, [](double v) { return std::erfc(v); });
  check(UnaryOpType::Lgamma, [](double v) { return std::lgamma(v); });
  check(UnaryOpType::Floor, [](double v) { return std::floor(v); });
  check(UnaryOpType::Ceil, [](double v) { return std::ceil(v); });
  check(UnaryOpType::Trunc, [](double v) { return std::trunc(v); });
  // Domain-restricted functions on their domains.
  const std::vector<double> pos = {0.25, 1.0, 4.0};
  expectNear(unary(UnaryOpType::Log, DataType::Double, pos), {std::log(0.25), 0, std::log(4.0)});
  expectNear(unary(UnaryOpType::Log2, DataType::Double, pos), {-2, 0, 2});
  expectNear(unary(UnaryOpType::Log10, DataType::Double, {0.001, 1, 100}), {-3, 0, 2});
  expectNear(unary(UnaryOpType::Log1p, DataType::Double, {0, std::exp(1.0) - 1}), {0, 1});
  expectNear(unary(UnaryOpType::Sqrt, DataType::Double, pos), {0.5, 1, 2});
  expectNear(unary(UnaryOpType::Rsqrt, DataType::Double, pos), {2, 1, 0.5});
  expectNear(unary(UnaryOpType::Reciprocal, DataType::Double, pos), {4, 1, 0.25});
  expectNear(unary(UnaryOpType::Asin, DataType::Double, {-1, 0, 0.5}),
             {-std::numbers::pi / 2, 0, std::numbers::pi / 6});
  expectNear(unary(UnaryOpType::Acos, DataType::Double, {1, 0.5}), {0, std::numbers::pi / 3});
  expectNear(unary(UnaryOpType::Acosh, DataType::Double, {1}), {0});
  expectNear(unary(UnaryOpType::Atanh, DataType::Double, {0, 0.5}), {0, 0.5 * std::log(3.0)});
  expectNear(unary(UnaryOpType::Log, DataType::Double, {0, -1}), {-kInf, kNan});
}

TEST(EvalElementwise, ActivationsByHand) {
  const double e = std::exp(1.0);
  expectNear(unary(UnaryOpType::Sigmoid, DataType::Double, {0, 1, -1}),
             {0.5, e / (1 + e), 1 / (1 + e)});
  expectNear(unary(UnaryOpType::Silu, DataType::Double, {0, 1, -1}),
             {0, e / (1 + e), -1 / (1 + e)});
  expectNear(unary(UnaryOpType::Relu, DataType::Double, {-2, 0, 3, kNan}), {0, 0, 3, kNan});
  EXPECT_EQ(unary(UnaryOpType::Relu, DataType::Int64, {-2, 5}), (std::vector<double>{0, 5}));
}

TEST(EvalElementwise, RoundIsHalfToEven) {
  EXPECT_EQ(unary(UnaryOpType::Round, DataType::Double, {0.5, 1.5, 2.5, -0.5, -1.5, -2.6, 2.4}),
            (std::vector<double>{0, 2, 2, -0.0, -2, -3, 2}));
  EXPECT_TRUE(std::signbit(unary(UnaryOpType::Round, DataType::Double, {-0.5})[0]));
  // Integers pass through floor/ceil/round/trunc unchanged, in their own dtype.
  DataType t;
  EXPECT_EQ(unary(UnaryOpType::Round, DataType::Int32, {-7, 9}, &t), (std::vector<double>{-7, 9}));
  EXPECT_EQ(t, DataType::Int32);
}

TEST(EvalElementwise, FracSignAndPredicates) {
  EXPECT_EQ(unary(UnaryOpType::Frac, DataType::Double, {1.25, -1.25, 3.0}),
            (std::vector<double>{0.25, -0.25, 0}));
  // sign(NaN) is 0, as torch's CPU kernel computes (0 < x) - (x < 0).
  EXPECT_EQ(unary(UnaryOpType::Sign, DataType::Double, {-3, 0, 2.5, kNan}),
            (std::vector<double>{-1, 0, 1, 0}));
  EXPECT_EQ(unary(UnaryOpType::Sign, DataType::Int64, {-3, 0, 7}), (std::vector<double>{-1, 0, 1}));
  const std::vector<double> special = {1.0, kInf, -kInf, kNan};
  DataType t;
  EXPECT_EQ(unary(UnaryOpType::IsFinite, DataType::Float, special, &t),
            (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(t, DataType::Bool);
  EXPECT_EQ(unary(UnaryOpType::IsInf, DataType::Float, special), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(unary(UnaryOpType::IsNan, DataType::Float, special), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(unary(UnaryOpType::IsNegInf, DataType::Float, special),
            (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(unary(UnaryOpType::IsPosInf, DataType::Float, special),
            (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(unary(UnaryOpType::IsFinite, DataType::Int32, {5}), (std::vector<double>{1}));
  EXPECT_EQ(unary(UnaryOpType::LogicalNot, DataType::Float, {0, 2.5, kNan}),
            (std::vector<double>{1, 0, 0}));
}

TEST(EvalElementwise, Erfinv) {
  // Reference values of the inverse error function (tabulated constants).
  expectNear(unary(UnaryOpType::Erfinv, DataType::Double, {0, 0.5, -0.9, 0.999}),
             {0, 0.4769362762044699, -1.1630871536766743, 2.326753765513525}, 1e-14);
  expectNear(unary(UnaryOpType::Erfinv, DataType::Double, {1, -1, 1.5}), {kInf, -kInf, kNan});
  // erf(erfinv(x)) == x over the whole range, tails included.
  std::vector<double> xs;
  for (double x = -0.999999; x < 1.0; x += 0.0625) xs.push_back(x);
  xs.push_back(1e-10);
  xs.push_back(1 - 1e-12);
  auto ys = unary(UnaryOpType::Erfinv, DataType::Double, xs);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(std::erf(ys[i]), xs[i], 1e-15) << xs[i];
  EXPECT_NEAR(ys[xs.size() - 2], 1e-10 * std::sqrt(std::numbers::pi) / 2, 1e-25);
}

TEST(EvalElementwise, Erfcinv) {
  // erfcinv(x) = erfinv(1 - x) where 1 - x is exact, and the tabulated values.
  expectNear(unary(UnaryOpType::Erfcinv, DataType::Double, {1, 0.5, 1.5, 0.001}),
             {0, 0.4769362762044699, -0.4769362762044699, 2.326753765513525}, 1e-14);
  expectNear(unary(UnaryOpType::Erfcinv, DataType::Double, {0, 2, -0.5, 2.5}),
             {kInf, -kInf, kNan, kNan});
  // erfc(erfcinv(x)) == x over the whole range and deep into the tail where
  // 1 - x would round to 1, to what y's own rounding allows: erfc's relative
  // slope is 2y there, so a few ulp of y move erfc(y) by ~2y^2 ulp.
  std::vector<double> xs = {1e-300, 1e-200, 1e-100, 1e-30, 1e-17, 1e-10, 1e-5, 0.01};
  for (double x = 0.03125; x < 2.0; x += 0.0625) xs.push_back(x);
  auto ys = unary(UnaryOpType::Erfcinv, DataType::Double, xs);
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(std::erfc(ys[i]) / xs[i], 1.0, 1e-15 * (4 + 8 * ys[i] * ys[i])) << xs[i];
}

TEST(EvalElementwise, IntegerOpsPromoteMathToFloat) {
  DataType t;
  auto v = unary(UnaryOpType::Sqrt, DataType::Int64, {4, 9}, &t);
  EXPECT_EQ(t, DataType::Float);
  EXPECT_EQ(v, (std::vector<double>{2, 3}));
  EXPECT_EQ(unary(UnaryOpType::Abs, DataType::Int32, {-5, 3}), (std::vector<double>{5, 3}));
  EXPECT_EQ(unary(UnaryOpType::Neg, DataType::Int64, {-5, 3}), (std::vector<double>{5, -3}));
  EXPECT_EQ(unary(UnaryOpType::BitwiseNot, DataType::Int64, {5, -1}), (std::vector<double>{-6, 0}));
  EXPECT_EQ(unary(UnaryOpType::BitwiseNot, DataType::Bool, {1, 0}), (std::vector<double>{0, 1}));
}

TEST(EvalElementwise, IntegerDivisionFamily) {
  const DataType I = DataType::Int64;
  const std::vector<double> a = {7, -7, 7, -7}, b = {2, 2, -2, -2};
  EXPECT_EQ(binary(BinaryOpType::Div, I, a, I, b), (std::vector<double>{3, -3, -3, 3}));
  EXPECT_EQ(binary(BinaryOpType::Fmod, I, a, I, b), (std::vector<double>{1, -1, 1, -1}));
  EXPECT_EQ(binary(BinaryOpType::Remainder, I, a, I, b), (std::vector<double>{1, 1, -1, -1}));
  EXPECT_EQ(binary(BinaryOpType::CeilDiv, I, a, I, b), (std::vector<double>{4, -3, -3, 4}));
  EXPECT_EQ(binary(BinaryOpType::TrueDiv, I, a, I, b), (std::vector<double>{3.5, -3.5, -3.5, 3.5}));
  EXPECT_EQ(binary(BinaryOpType::CeilDiv, I, {8}, I, {2}), (std::vector<double>{4}));
  // INT64_MIN / -1 wraps instead of trapping.
  const double min64 = -9223372036854775808.0;
  EXPECT_EQ(binary(BinaryOpType::Div, I, {min64}, I, {-1}), (std::vector<double>{min64}));
}

TEST(EvalElementwise, FloatDivisionFamily) {
  const DataType D = DataType::Double;
  const std::vector<double> a = {7.5, -7.5, 7.5, -7.5}, b = {2, 2, -2, -2};
  EXPECT_EQ(binary(BinaryOpType::Div, D, a, D, b), (std::vector<double>{3.75, -3.75, -3.75, 3.75}));
  EXPECT_EQ(binary(BinaryOpType::Fmod, D, a, D, b), (std::vector<double>{1.5, -1.5, 1.5, -1.5}));
  EXPECT_EQ(binary(BinaryOpType::Remainder, D, a, D, b),
            (std::vector<double>{1.5, 0.5, -0.5, -1.5}));
  expectNear(binary(BinaryOpType::Div, D, {1, 0}, D, {0, 0}), {kInf, kNan});
}

TEST(EvalElementwise, IntegerDivisionByZeroIsAUserError) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Int32);
  auto* t1 = defineTensor(f, {-1}, DataType::Int32);
  auto* out = binaryOp(BinaryOpType::Div, t0, t1);
  f.addOutput(out);
  auto inputs = std::vector<Argument>{makeTensor(DataType::Int32, {2}, {4, 5}),
                                      makeTensor(DataType::Int32, {2}, {1, 0})};
  EXPECT_USER_ERROR(runOne(f, inputs), HasSubstr("integer division by zero"),
                    HasSubstr(out->toString() + " = div("));
  for (auto op : {BinaryOpType::Fmod, BinaryOpType::Remainder, BinaryOpType::CeilDiv}) {
    Fusion g;
    auto* a = defineTensor(g, {-1}, DataType::Int32);
    auto* b = defineTensor(g, {-1}, DataType::Int32);
    g.addOutput(binaryOp(op, a, b));
    EXPECT_USER_ERROR(runOne(g, inputs), HasSubstr("by zero"));
  }
}

TEST(EvalElementwise, PowAndAtan2) {
  const DataType I = DataType::Int64, D = DataType::Double;
  EXPECT_EQ(binary(BinaryOpType::Pow, I, {3, 2, -1, 1, -2, 5}, I, {4, -1, -3, -2, 3, 0}),
            (std::vector<double>{81, 0, -1, 1, -8, 1}));
  expectNear(binary(BinaryOpType::Pow, D, {2, 4, -8}, D, {0.5, -0.5, 1.0 / 3}),
             {std::sqrt(2.0), 0.5, kNan});
  expectNear(binary(BinaryOpType::Atan2, D, {1, 1, -1}, D, {1, -1, 0}),
             {std::numbers::pi / 4, 3 * std::numbers::pi / 4, -std::numbers::pi / 2});
}

TEST(EvalElementwise, MaximumMinimumPropagateNan) {
  const DataType D = DataType::Double;
  expectNear(binary(BinaryOpType::Maximum, D, {1, 5, kNan, 2}, D, {3, 2, 1, kNan}),
             {3, 5, kNan, kNan});
  expectNear(binary(BinaryOpType::Minimum, D, {1, 5, kNan, 2}, D, {3, 2, 1, kNan}),
             {1, 2, kNan, kNan});
}

TEST(EvalElementwise, ShiftsAndBitwise) {
  const DataType I = DataType::Int64;
  EXPECT_EQ(binary(BinaryOpType::BitwiseLeftShift, I, {1, 3, 1, 5}, I, {3, 2, 64, -1}),
            (std::vector<double>{8, 12, 0, 0}));
  EXPECT_EQ(binary(BinaryOpType::BitwiseRightShift, I, {-16, 16, -1, 7}, I, {2, 2, 70, 64}),
            (std::vector<double>{-4, 4, -1, 0}));
  // int32: 1 << 31 is INT32_MIN after the wrap.
  EXPECT_EQ(binary(BinaryOpType::BitwiseLeftShift, DataType::Int32, {1}, DataType::Int32, {31}),
            (std::vector<double>{-2147483648.0}));
  EXPECT_EQ(binary(BinaryOpType::BitwiseAnd, I, {6, 12}, I, {3, 10}), (std::vector<double>{2, 8}));
  EXPECT_EQ(binary(BinaryOpType::BitwiseOr, I, {6, 12}, I, {3, 10}), (std::vector<double>{7, 14}));
  EXPECT_EQ(binary(BinaryOpType::BitwiseXor, I, {6, 12}, I, {3, 10}), (std::vector<double>{5, 6}));
  const DataType B = DataType::Bool;
  EXPECT_EQ(binary(BinaryOpType::BitwiseXor, B, {1, 1, 0}, B, {1, 0, 0}),
            (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(binary(BinaryOpType::LogicalAnd, B, {1, 1, 0}, B, {1, 0, 0}),
            (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(binary(BinaryOpType::LogicalOr, B, {1, 1, 0}, B, {1, 0, 0}),
            (std::vector<double>{1, 1, 0}));
}

TEST(EvalElementwise, ComparisonsGiveBool) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* t1 = defineTensor(f, {-1}, DataType::Int64);
  std::vector<BinaryOpType> ops = {BinaryOpType::Eq, BinaryOpType::Ne, BinaryOpType::Lt,
                                   BinaryOpType::Le, BinaryOpType::Gt, BinaryOpType::Ge};
  for (auto op : ops) f.addOutput(binaryOp(op, t0, t1));
  auto outs =
      test::run(f, {makeFloat({3}, {1.5, 2, kNan}), makeTensor(DataType::Int64, {3}, {2, 2, 0})});
  for (const auto& o : outs) EXPECT_EQ(test::tensorOf(o).dtype(), DataType::Bool);
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{0, 1, 0}));  // eq
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{1, 0, 1}));  // ne (NaN != anything)
  EXPECT_EQ(valuesOf(outs[2]), (std::vector<double>{1, 0, 0}));  // lt
  EXPECT_EQ(valuesOf(outs[3]), (std::vector<double>{1, 1, 0}));  // le
  EXPECT_EQ(valuesOf(outs[4]), (std::vector<double>{0, 0, 0}));  // gt
  EXPECT_EQ(valuesOf(outs[5]), (std::vector<double>{0, 1, 0}));  // ge
}

TEST(EvalElementwise, IntegerArithmeticWrapsInTheOutputType) {
  const DataType I32 = DataType::Int32;
  EXPECT_EQ(binary(BinaryOpType::Add, I32, {2147483647}, I32, {1}),
            (std::vector<double>{-2147483648.0}));
  EXPECT_EQ(binary(BinaryOpType::Mul, I32, {65536}, I32, {65536}), (std::vector<double>{0}));
  EXPECT_EQ(binary(BinaryOpType::Sub, I32, {5}, I32, {7}), (std::vector<double>{-2}));
}

TEST(EvalElementwise, TernaryOps) {
  Fusion f;
  auto* cond = defineTensor(f, {-1}, DataType::Bool);
  auto* x = defineTensor(f, {-1}, DataType::Double);
  auto* y = defineTensor(f, {-1}, DataType::Double);
  auto* w = defineTensor(f, {-1}, DataType::Double);
  f.addOutput(where(cond, x, y));
  f.addOutput(ternaryOp(TernaryOpType::Clamp, x, f.constantDouble(-1.0), f.constantDouble(2.0)));
  f.addOutput(ternaryOp(TernaryOpType::Lerp, x, y, w));
  f.addOutput(ternaryOp(TernaryOpType::Threshold, x, f.constantDouble(0.5), f.constantDouble(-9)));
  auto outs = test::run(f, {makeTensor(DataType::Bool, {4}, {1, 0, 1, 0}),
                            makeTensor(DataType::Double, {4}, {-3, 0.5, 1.5, kNan}),
                            makeTensor(DataType::Double, {4}, {10, 20, 30, 40}),
                            makeTensor(DataType::Double, {4}, {0, 0.25, 1, 0.75})});
  expectNear(valuesOf(outs[0]), {-3, 20, 1.5, 40});
  expectNear(valuesOf(outs[1]), {-1, 0.5, 1.5, kNan});
  // lerp(a, b, w) = a + w (b - a): -3 + 0 = -3; 0.5 + 0.25 * 19.5; 30; NaN.
  expectNear(valuesOf(outs[2]), {-3, 0.5 + 0.25 * 19.5, 30, kNan});
  // threshold keeps x where x > 0.5, else -9; NaN passes through as in torch.
  expectNear(valuesOf(outs[3]), {-9, -9, 1.5, kNan});
}

TEST(EvalElementwise, IntegerClampAndWhereWithScalars) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(ternaryOp(TernaryOpType::Clamp, x, f.constantInt(0), f.constantInt(3)));
  f.addOutput(where(gt(x, f.constantInt(1)), x, f.constantInt(100)));
  auto outs = test::run(f, {makeTensor(DataType::Int64, {4}, {-5, 1, 2, 9})});
  EXPECT_EQ(test::tensorOf(outs[0]).dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{100, 100, 2, 9}));
}

TEST(EvalElementwise, HalfAndBfloat16RoundTheResult) {
  // Half spacing in [2048, 4096) is 2: 2049 ties to even 2048, 2051 ties to 2052.
  EXPECT_EQ(binary(BinaryOpType::Add, DataType::Half, {2048, 2048, 1}, DataType::Half, {1, 3, 0.5}),
            (std::vector<double>{2048, 2052, 1.5}));
  // bfloat16 spacing in [256, 512) is 2.
  EXPECT_EQ(binary(BinaryOpType::Add, DataType::BFloat16, {256, 256}, DataType::BFloat16, {1, 3}),
            (std::vector<double>{256, 260}));
  // The product is exact in double and rounded once: 0.1f * 3 rounds to float.
  const double tenth = static_cast<float>(0.1);
  EXPECT_EQ(binary(BinaryOpType::Mul, DataType::Float, {tenth}, DataType::Float, {3}),
            (std::vector<double>{test::asFloat(tenth * 3)}));
}

TEST(EvalElementwise, ScalarOperandsPromote) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Int32);
  auto* s = defineScalar(f, DataType::Double);
  auto* out = mul(t0, s);
  f.addOutput(out);
  f.addOutput(add(t0, f.constantInt(1)));
  EXPECT_EQ(out->dtype(), DataType::Float);  // int tensor * double scalar -> float
  auto outs = test::run(f, {makeTensor(DataType::Int32, {3}, {1, 2, -3}), ScalarValue(2.5)});
  EXPECT_EQ(test::tensorOf(outs[0]).dtype(), DataType::Float);
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{2.5, 5, -7.5}));
  EXPECT_EQ(test::tensorOf(outs[1]).dtype(), DataType::Int32);
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{2, 3, -2}));
}

TEST(EvalElementwise, CastConvertsLikeTorch) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(castOp(DataType::Int32, t0));
  f.addOutput(castOp(DataType::Bool, t0));
  f.addOutput(castOp(DataType::Half, t0));
  f.addOutput(castOp(DataType::BFloat16, t0));
  auto outs = test::run(f, {makeFloat({4}, {-2.7, 0, 0.3, 2049})});
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{-2, 0, 0, 2049}));  // truncation
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{1, 0, 1, 1}));
  // Nearest half of -2.7 is -2.69921875 (-1382 * 2^-9), of 0.3 is 0.300048828125
  // (1229 * 2^-12); 2049 ties to 2048.
  EXPECT_EQ(valuesOf(outs[2]), (std::vector<double>{-2.69921875, 0, 0.300048828125, 2048}));
  // Nearest bfloat16 of -2.7f is -2.703125 (-173 * 2^-6); 0.3f -> 0.30078125 (154 * 2^-9).
  EXPECT_EQ(valuesOf(outs[3]), (std::vector<double>{-2.703125, 0, 0.30078125, 2048}));
}

TEST(EvalElementwise, IterationDimsMustMatch) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* t1 = defineTensor(f, {-1}, DataType::Float);
  auto* out = add(t0, t1);
  f.addOutput(out);
  EXPECT_USER_ERROR(
      runOne(f, {makeFloat({4}, arange(4)), makeFloat({5}, arange(5))}),
      HasSubstr(out->toString() + " = add(" + t0->toString() + ", " + t1->toString() + ")"),
      HasSubstr("operand sizes differ: dim 0 of T0_g (size 4, from input #0 (T0_g)) but dim 0 "
                "of T1_g (size 5, from input #1 (T1_g))"));
  // A size-1 tensor for a dim that is not a broadcast does not stretch either
  // (the shape check before evaluation says so).
  EXPECT_USER_ERROR(runOne(f, {makeFloat({4}, arange(4)), makeFloat({1}, {1})}),
                    HasSubstr("operand sizes differ: dim 0 of T0_g (size 4, from input #0 "
                              "(T0_g)) but dim 0 of T1_g (size 1, from input #1 (T1_g))"));
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

// Every dtype to every dtype: small integers are exact in all of them, and
// only bool changes them (non-zero -> true).
TEST(EvalElementwiseDtypes, CastBetweenEveryPair) {
  const std::vector<double> values = {0, 1, -2, 3};
  for (DataType from : kAllDataTypes) {
    for (DataType to : kAllDataTypes) {
      SCOPED_TRACE(std::string(dtypeName(from)) + " -> " + std::string(dtypeName(to)));
      Fusion f;
      auto* t0 = defineTensor(f, {-1}, from);
      f.addOutput(castOp(to, t0));
      Tensor out = test::runOne(f, {test::makeTensor(from, {4}, values)});
      EXPECT_EQ(out.dtype(), to);
      std::vector<double> want;
      for (double v : values) {
        const double stored = from == DataType::Bool ? (v != 0) : v;
        want.push_back(to == DataType::Bool ? (stored != 0) : stored);
      }
      EXPECT_EQ(test::valuesOf(out), want);
    }
  }
}

TEST(EvalElementwiseDtypes, AddInEveryDtype) {
  for (DataType t : kAllDataTypes) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Fusion f;
    auto* t0 = defineTensor(f, {-1}, t);
    auto* out = add(t0, t0);
    f.addOutput(out);
    const std::vector<double> in =
        t == DataType::Bool ? std::vector<double>{0, 1} : std::vector<double>{-1.5, 2.25};
    Tensor r = test::runOne(f, {test::makeTensor(t, {2}, in)});
    EXPECT_EQ(r.dtype(), out->dtype());
    std::vector<double> want;
    if (t == DataType::Bool)
      want = {0, 1};  // true + true is true
    else if (isIntegralType(t))
      want = {-2, 4};  // the inputs were stored as -1 and 2
    else
      want = {-3, 4.5};  // exact in every floating type
    EXPECT_EQ(test::valuesOf(r), want);
  }
}

}  // namespace
}  // namespace fusebox
