// ExpressionEvaluator: scalar inputs, scalar arithmetic, extents, conflicts.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using ::testing::HasSubstr;

TEST(ExpressionEvaluator, ScalarArithmeticAsFusionOutputs) {
  Fusion f;
  auto* n = defineScalar(f, DataType::Int64);
  auto* x = defineScalar(f, DataType::Double);
  f.addOutput(add(mul(n, f.constantInt(3)), f.constantInt(1)));  // 3n + 1
  f.addOutput(ceilDiv(n, f.constantInt(4)));
  f.addOutput(div(x, n));  // double / int -> double
  f.addOutput(lt(x, n));
  auto outs = evaluateFusion(f, {ScalarValue(int64_t{6}), ScalarValue(1.5)});
  EXPECT_EQ(std::get<ScalarValue>(outs[0]), ScalarValue(int64_t{19}));
  EXPECT_EQ(std::get<ScalarValue>(outs[1]), ScalarValue(int64_t{2}));
  EXPECT_EQ(std::get<ScalarValue>(outs[2]), ScalarValue(0.25));
  EXPECT_EQ(std::get<ScalarValue>(outs[3]), ScalarValue(true));
}

TEST(ExpressionEvaluator, ScalarsDriveTensorShapes) {
  Fusion f;
  auto* n = defineScalar(f, DataType::Int64);
  f.addOutput(full(f, {mul(n, f.constantInt(2))}, f.constantDouble(7), DataType::Float));
  auto outs = evaluateFusion(f, {ScalarValue(int64_t{2})});
  EXPECT_EQ(test::valuesOf(outs[0]), (std::vector<double>{7, 7, 7, 7}));
}

TEST(ExpressionEvaluator, ScalarIntegerDivisionByZero) {
  Fusion f;
  auto* a = defineScalar(f, DataType::Int64);
  auto* b = defineScalar(f, DataType::Int64);
  f.addOutput(div(a, b));
  EXPECT_USER_ERROR(evaluateFusion(f, {ScalarValue(int64_t{1}), ScalarValue(int64_t{0})}),
                    HasSubstr("evaluating scalar"), HasSubstr("integer division by zero"));
}

TEST(ExpressionEvaluator, FloatScalarsHoldFloatValues) {
  Fusion f;
  auto* x = defineScalar(f, DataType::Float);
  f.addOutput(x);
  auto outs = evaluateFusion(f, {ScalarValue(0.1)});
  EXPECT_EQ(std::get<ScalarValue>(outs[0]), ScalarValue(static_cast<double>(0.1f)));
}

TEST(ExpressionEvaluator, BindEvaluateAndConflicts) {
  Fusion f;
  auto* n = f.newScalar(DataType::Int64);
  auto* m = binaryOp(BinaryOpType::Add, n, f.constantInt(2));
  ExpressionEvaluator ee;
  EXPECT_FALSE(ee.evaluate(m).has_value());
  EXPECT_THROW(ee.evaluateOrThrow(m), InternalError);
  ee.bind(n, int64_t{5}, "T0");
  EXPECT_EQ(ee.evaluateInt(m), 7);
  EXPECT_EQ(ee.boundBy(n), "T0");
  EXPECT_NO_THROW(ee.bind(n, int64_t{5}));  // the same value again is fine
  EXPECT_USER_ERROR(ee.bind(n, int64_t{6}), HasSubstr("has value 6, expected 5"),
                    HasSubstr("bound by T0"));
  EXPECT_USER_ERROR(ee.bind(f.constantInt(3), int64_t{4}), HasSubstr("a constant extent"));
  EXPECT_EQ(ee.bindExtent(n, 5, "T1"), "");
  EXPECT_EQ(ee.bindExtent(n, 4, "T1"), "5 (extent " + n->toString() + " bound by T0)");
  EXPECT_EQ(ee.bindExtent(f.constantInt(8), 8, "T1"), "");
  EXPECT_EQ(ee.bindExtent(f.constantInt(8), 9, "T1"), "8 (a constant extent)");
}

// Values found unknown are remembered (a long chain is walked once), and
// forgotten once something is bound, by bind or by bindExtent.
TEST(ExpressionEvaluator, UnknownValuesBecomeKnownOnceTheirLeafIsBound) {
  Fusion f;
  auto* n = f.newScalar(DataType::Int64);
  std::vector<Val*> chain = {n};
  for (int k = 0; k < 100000; ++k)
    chain.push_back(binaryOp(BinaryOpType::Add, chain.back(), f.constantInt(1)));
  ExpressionEvaluator ee;
  EXPECT_FALSE(ee.evaluate(chain.back()).has_value());
  EXPECT_FALSE(ee.evaluate(chain[50000]).has_value());
  EXPECT_EQ(ee.bindExtent(n, 3, "T0"), "");
  EXPECT_EQ(ee.evaluateInt(chain[50000]), 50003);
  EXPECT_EQ(ee.evaluateInt(chain.back()), 100003);

  auto* m = f.newScalar(DataType::Int64);
  auto* sum = binaryOp(BinaryOpType::Add, chain.back(), m);
  EXPECT_FALSE(ee.evaluate(sum).has_value());
  ee.bind(m, int64_t{-3});
  EXPECT_EQ(ee.evaluateInt(sum), 100000);
}

TEST(ExpressionEvaluator, BindTensorBindsExtents) {
  Fusion f;
  auto* t = defineTensor(f, {-1, 4, 1}, DataType::Float);
  ExpressionEvaluator ee;
  ee.bindTensor(t, makeFloat({3, 4, 1}, arange(12)), "x");
  EXPECT_EQ(ee.evaluateInt(t->axis(0)->extent()), 3);
  EXPECT_EQ(ee.boundBy(t->axis(0)->extent()), "x");
  EXPECT_USER_ERROR(ee.bindTensor(t, makeFloat({2, 4, 1}, arange(8)), "y"),
                    HasSubstr("input y: dim 0 has size 2, expected 3"), HasSubstr("bound by x"));
}

}  // namespace
}  // namespace fusebox
