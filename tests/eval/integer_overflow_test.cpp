// Integer overflow at run time: shape arithmetic (extents, shape operands) is
// checked and an overflow names the op; scalar arithmetic that gives no shape
// wraps, as tensor element math does (docs/evaluator.md).
#include <fusebox/checked_math.h>

#include <limits>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMath, ReportsOverflowInsteadOfWrapping) {
  EXPECT_EQ(checked::add(kMax, 1), std::nullopt);
  EXPECT_EQ(checked::sub(kMin, 1), std::nullopt);
  EXPECT_EQ(checked::mul(int64_t{3037000500}, int64_t{3037000500}), std::nullopt);
  EXPECT_EQ(checked::neg(kMin), std::nullopt);
  EXPECT_EQ(checked::pow(10, 18), int64_t{1000000000000000000});
  EXPECT_EQ(checked::pow(10, 19), std::nullopt);
  EXPECT_EQ(checked::pow(-2, 63), kMin);
  EXPECT_EQ(checked::pow(-1, kMax), -1);
  // A size of 0 makes the element count 0, however large the others.
  EXPECT_EQ(checked::product({kMax, kMax, 0}), 0);
  EXPECT_EQ(checked::product({kMax, 2}), std::nullopt);
  EXPECT_EQ(checked::product({}), 1);
  EXPECT_USER_ERROR(checked::orThrow(std::nullopt, "stride"), HasSubstr("stride overflows int64"));
}

TEST(IntegerOverflow, ShapeOperandOverflowNamesTheOp) {
  Fusion f;
  auto* a = defineScalar(f, DataType::Int64);
  auto* b = defineScalar(f, DataType::Int64);
  f.addOutput(full(f, {mul(a, b)}, f.constantDouble(1), DataType::Float));
  // 3037000500^2 wraps to a small negative number; it must not be used as a size.
  EXPECT_USER_ERROR(
      evaluateFusion(f, {ScalarValue(int64_t{3037000500}), ScalarValue(int64_t{3037000500})}),
      HasSubstr("full: output size ( i0 * i1 ) overflows int64"),
      HasSubstr("mul(3037000500, 3037000500)"));
}

TEST(IntegerOverflow, ScalarValueArithmeticWraps) {
  // A scalar that gives no shape follows tensor element math: int64 wraps.
  Fusion f;
  auto* a = defineScalar(f, DataType::Int64);
  f.addOutput(add(a, f.constantInt(1)));
  auto outs = evaluateFusion(f, {ScalarValue(kMax)});
  EXPECT_EQ(std::get<ScalarValue>(outs[0]), ScalarValue(kMin));
}

TEST(IntegerOverflow, PadOfSymbolicTensorByHugeWidths) {
  // 8 + 2 * -(2^63 - 1) wrapped to 10 before: a float[10] of zeros.
  Fusion f;
  auto* x = defineSymbolicTensor(f, 1);
  f.addOutput(pad(x, {f.constantInt(-kMax), f.constantInt(-kMax)}));
  EXPECT_USER_ERROR(test::runOne(f, {test::makeFloat({8}, test::arange(8))}), HasSubstr("pad"),
                    HasSubstr("overflows int64"));
}

TEST(IntegerOverflow, ReshapeToSizesWhoseProductOverflows) {
  Fusion f;
  auto* x = defineSymbolicTensor(f, 1);
  auto* rows = defineScalar(f, DataType::Int64);
  auto* cols = defineScalar(f, DataType::Int64);
  f.addOutput(reshape(x, {rows, cols}));
  const ScalarValue huge = int64_t{99999999999};
  EXPECT_USER_ERROR(test::run(f, {test::makeFloat({8}, test::arange(8)), huge, huge}),
                    HasSubstr("reshape"), HasSubstr("the number of elements overflows int64"));
}

TEST(IntegerOverflow, SliceWithStepNearTwoToThe63) {
  // ceil((8 - 1) / step) = 1 element, not a negative stride or size.
  Fusion f;
  auto* x = defineSymbolicTensor(f, 1);
  f.addOutput(slice(x, {f.one()}, {f.constantInt(8)}, {f.constantInt(kMax)}));
  Tensor out = test::runOne(f, {test::makeFloat({8}, test::arange(8))});
  EXPECT_EQ(test::valuesOf(out), (std::vector<double>{1}));
}

TEST(IntegerOverflow, SliceFromInt64MinStartsAtZero) {
  // A start of -2^63 counts from the end and clamps to 0, without negating it.
  Fusion f;
  auto* x = defineSymbolicTensor(f, 1);
  f.addOutput(slice(x, {f.constantInt(kMin)}, {f.constantInt(3)}));
  Tensor out = test::runOne(f, {test::makeFloat({8}, test::arange(8))});
  EXPECT_EQ(test::valuesOf(out), (std::vector<double>{0, 1, 2}));
}

}  // namespace
}  // namespace fusebox
