// Evaluator numerics of the scans (cumsum, cumprod, cummax, cummin), triu and
// the elementwise ops signbit, nextafter, gcd and the shifts, on hand-checked
// values: integer wrapping, NaN, signed zeros, empty dims, every dtype family.
#include <fusebox/eval/tolerance.h>

#include <cmath>
#include <limits>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

using V = std::vector<double>;
using Sizes = std::vector<int64_t>;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

Tensor scanOf(ReductionOpType op, const Tensor& in, int64_t dim) {
  Fusion f;
  std::vector<int64_t> shape(in.dim(), -1);
  auto* x = defineTensor(f, shape, in.dtype());
  f.addOutput(scan(op, x, dim));
  return runOne(f, {in});
}

TEST(EvalScan, CumsumAlongEitherDim) {
  // [[1, 2, 3], [4, 5, 6]]
  Tensor x = makeFloat({2, 3}, arange(6, 1));
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Sum, x, 1)), (V{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Sum, x, 0)), (V{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Sum, x, -2)), (V{1, 2, 3, 5, 7, 9}));
}

TEST(EvalScan, IntegersAndBoolsAccumulateInInt64) {
  Tensor b = makeTensor(DataType::Bool, {4}, {1, 0, 1, 1});
  Tensor out = scanOf(ReductionOpType::Sum, b, 0);
  EXPECT_EQ(out.dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(out), (V{1, 1, 2, 3}));
  // int32 inputs widen, so 2^31 - 1 + 1 does not wrap.
  Tensor i32 = makeTensor(DataType::Int32, {2}, {2147483647, 1});
  Tensor wide = scanOf(ReductionOpType::Sum, i32, 0);
  EXPECT_EQ(wide.dtype(), DataType::Int64);
  EXPECT_EQ(wide.getInt({1}), 2147483648);
  // int64 wraps, as torch's does.
  Tensor i64 = Tensor::empty(DataType::Int64, {2});
  i64.setInt({0}, std::numeric_limits<int64_t>::max());
  i64.setInt({1}, 1);
  EXPECT_EQ(scanOf(ReductionOpType::Sum, i64, 0).getInt({1}), std::numeric_limits<int64_t>::min());
  Tensor p = makeTensor(DataType::Int32, {4}, {1, -2, 3, 4});
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Prod, p, 0)), (V{1, -2, -6, -24}));
}

TEST(EvalScan, CumprodOfFloats) {
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Prod, makeFloat({4}, {1, 2, 0.5, -4}), 0)),
            (V{1, 2, 1, -4}));
}

TEST(EvalScan, HalfRoundsEachPrefixOnce) {
  // 2048 + 1 is a tie in half (2048 or 2050): even gives 2048; the running
  // sum keeps the 1, so the third element is 2050.
  Tensor h = makeTensor(DataType::Half, {3}, {2048, 1, 1});
  Tensor out = scanOf(ReductionOpType::Sum, h, 0);
  EXPECT_EQ(out.dtype(), DataType::Half);
  EXPECT_EQ(valuesOf(out), (V{2048, 2048, 2050}));
}

TEST(EvalScan, CummaxAndCumminKeepNaN) {
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Max, makeFloat({5}, {1, 3, 2, 5, 4}), 0)),
            (V{1, 3, 3, 5, 5}));
  EXPECT_EQ(valuesOf(scanOf(ReductionOpType::Min, makeFloat({4}, {3, 1, 2, -1}), 0)),
            (V{3, 1, 1, -1}));
  test::expectNear(valuesOf(scanOf(ReductionOpType::Max, makeFloat({4}, {1, kNan, 3, 0}), 0)),
                   {1, kNan, kNan, kNan});
  test::expectNear(valuesOf(scanOf(ReductionOpType::Min, makeFloat({3}, {kNan, -5, 1}), 0)),
                   {kNan, kNan, kNan});
  Tensor i = makeTensor(DataType::Int64, {2, 3}, {5, 1, 7, -2, -9, 0});
  Tensor out = scanOf(ReductionOpType::Min, i, 1);
  EXPECT_EQ(out.dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(out), (V{5, 1, 1, -2, -9, -9}));
  Tensor b = makeTensor(DataType::Bool, {3}, {0, 1, 0});
  Tensor bmax = scanOf(ReductionOpType::Max, b, 0);
  EXPECT_EQ(bmax.dtype(), DataType::Bool);
  EXPECT_EQ(valuesOf(bmax), (V{0, 1, 1}));
}

TEST(EvalScan, EmptyDims) {
  EXPECT_EQ(scanOf(ReductionOpType::Sum, makeFloat({2, 0}, {}), 1).sizes(), (Sizes{2, 0}));
  EXPECT_EQ(scanOf(ReductionOpType::Max, makeFloat({0, 3}, {}), 1).sizes(), (Sizes{0, 3}));
}

TEST(EvalScan, CumsumIsBoundedLikeASumOfItsPrefix) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(scan(ReductionOpType::Sum, x, 0));
  f.addOutput(scan(ReductionOpType::Max, x, 0));
  std::vector<Argument> in = {makeFloat({3}, {1, -2, 4})};
  auto tolerances = outputTolerances(f, in);
  ASSERT_EQ(tolerances[0].mode, OutputTolerance::Mode::Bounded);
  EXPECT_EQ(tolerances[0].reduction_size, 3);
  // E_j = (j + 2) u sum_{i <= j} |x_i| + 2 u |y_j|, u = 2^-24 (float32).
  const double u = 0x1p-24;
  const V bounds = valuesOf(tolerances[0].bound);
  ASSERT_EQ(bounds.size(), 3u);
  EXPECT_DOUBLE_EQ(bounds[0], 2 * u * 1 + 2 * u * 1);
  EXPECT_DOUBLE_EQ(bounds[1], 3 * u * 3 + 2 * u * 1);
  EXPECT_DOUBLE_EQ(bounds[2], 4 * u * 7 + 2 * u * 3);
  // An extremum of exact values is exact.
  EXPECT_EQ(tolerances[1].mode, OutputTolerance::Mode::Bounded);
  EXPECT_FALSE(tolerances[1].bound.defined());
}

TEST(EvalScan, TriuZeroesBelowTheDiagonal) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1, -1}, DataType::Int32);
  f.addOutput(triu(x, f.zero()));
  f.addOutput(triu(x, f.constantInt(-1)));
  f.addOutput(triu(x, f.constantInt(2)));
  // Two 3x3 matrices: 1..9 and 10..18.
  auto outs = evaluateFusion(f, {makeTensor(DataType::Int32, {2, 3, 3}, arange(18, 1))});
  EXPECT_EQ(test::tensorOf(outs[0]).dtype(), DataType::Int32);
  EXPECT_EQ(valuesOf(outs[0]), (V{1, 2, 3, 0, 5, 6, 0, 0, 9, 10, 11, 12, 0, 14, 15, 0, 0, 18}));
  EXPECT_EQ(valuesOf(outs[1]), (V{1, 2, 3, 4, 5, 6, 0, 8, 9, 10, 11, 12, 13, 14, 15, 0, 17, 18}));
  EXPECT_EQ(valuesOf(outs[2]), (V{0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0}));

  // A wide matrix with a symbolic diagonal; bools keep their dtype.
  Fusion g;
  auto* b = defineTensor(g, {-1, -1}, DataType::Bool);
  auto* k = defineScalar(g, DataType::Int64);
  g.addOutput(triu(b, k));
  auto out =
      evaluateFusion(g, {makeTensor(DataType::Bool, {2, 4}, V(8, 1.0)), ScalarValue(int64_t{1})});
  EXPECT_EQ(test::tensorOf(out[0]).dtype(), DataType::Bool);
  EXPECT_EQ(valuesOf(out[0]), (V{0, 1, 1, 1, 0, 0, 1, 1}));
}

// ---- elementwise ops --------------------------------------------------------------------

Tensor binaryOf(BinaryOpType op, const Tensor& a, const Tensor& b) {
  Fusion f;
  auto* x = defineTensor(f, std::vector<int64_t>(a.dim(), -1), a.dtype());
  auto* y = defineTensor(f, std::vector<int64_t>(b.dim(), -1), b.dtype());
  f.addOutput(binaryOp(op, x, y));
  return runOne(f, {a, b});
}

TEST(EvalNewElementwise, SignbitReadsTheSignBit) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Float);
  auto* i = defineTensor(f, {-1}, DataType::Int32);
  f.addOutput(unaryOp(UnaryOpType::Signbit, x));
  f.addOutput(unaryOp(UnaryOpType::Signbit, i));
  const double inf = std::numeric_limits<double>::infinity();
  auto outs = evaluateFusion(f, {makeFloat({6}, {-0.0, 0.0, -1.5, kNan, -kNan, inf}),
                                 makeTensor(DataType::Int32, {3}, {-3, 0, 2})});
  EXPECT_EQ(test::tensorOf(outs[0]).dtype(), DataType::Bool);
  EXPECT_EQ(valuesOf(outs[0]), (V{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(valuesOf(outs[1]), (V{1, 0, 0}));
}

TEST(EvalNewElementwise, NextafterStepsOnTheResultDtypesGrid) {
  const Tensor ones = makeFloat({3}, {1, 1, 0});
  const Tensor to = makeFloat({3}, {2, 0, -1});
  EXPECT_EQ(valuesOf(binaryOf(BinaryOpType::Nextafter, ones, to)),
            (V{1 + 0x1p-23, 1 - 0x1p-24, -0x1p-149}));
  const Tensor d1 = makeTensor(DataType::Double, {2}, {1, 5});
  const Tensor d2 = makeTensor(DataType::Double, {2}, {2, 5});
  EXPECT_EQ(valuesOf(binaryOf(BinaryOpType::Nextafter, d1, d2)), (V{1 + 0x1p-52, 5}));
  const Tensor h1 = makeTensor(DataType::Half, {3}, {1, 1, 0});
  const Tensor h2 = makeTensor(DataType::Half, {3}, {2, 0, -1});
  EXPECT_EQ(valuesOf(binaryOf(BinaryOpType::Nextafter, h1, h2)),
            (V{1 + 0x1p-10, 1 - 0x1p-11, -0x1p-24}));
  const Tensor b1 = makeTensor(DataType::BFloat16, {2}, {1, 65280});  // 65280: bf16's 0x477f
  const Tensor b2 = makeTensor(DataType::BFloat16, {2}, {2, 1e30});
  EXPECT_EQ(valuesOf(binaryOf(BinaryOpType::Nextafter, b1, b2)), (V{1 + 0x1p-7, 65536}));
  test::expectNear(valuesOf(binaryOf(BinaryOpType::Nextafter, makeFloat({1}, {kNan}),
                                     ones.asStrided({1}, {1}, 0))),
                   {kNan});

  // A Python float operand of a half op is rounded to half first, as torch does:
  // 1.0001 is 1 in half, so the result is 1.
  Fusion f;
  auto* h = defineTensor(f, {-1}, DataType::Half);
  f.addOutput(binaryOp(BinaryOpType::Nextafter, h, f.constantDouble(1.0001)));
  EXPECT_EQ(valuesOf(runOne(f, {makeTensor(DataType::Half, {1}, {1})})), (V{1}));
}

TEST(EvalNewElementwise, GcdAsTorch) {
  Tensor a = makeTensor(DataType::Int64, {5}, {12, -18, 0, 7, 0});
  Tensor b = makeTensor(DataType::Int64, {5}, {18, 12, 0, 0, -4});
  EXPECT_EQ(valuesOf(binaryOf(BinaryOpType::Gcd, a, b)), (V{6, 6, 0, 7, 4}));
  // |INT_MIN| wraps in torch's kernel, in the operands' width.
  Tensor m64 = Tensor::empty(DataType::Int64, {1});
  m64.setInt({0}, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(binaryOf(BinaryOpType::Gcd, m64, makeTensor(DataType::Int64, {1}, {6})).getInt({0}),
            -2);
  Tensor m32 = makeTensor(DataType::Int32, {1}, {-2147483648.0});
  Tensor g32 = binaryOf(BinaryOpType::Gcd, m32, makeTensor(DataType::Int32, {1}, {6}));
  EXPECT_EQ(g32.dtype(), DataType::Int32);
  EXPECT_EQ(g32.getInt({0}), -2);
}

TEST(EvalNewElementwise, ShiftsFollowTorchOnCuda) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Int32);
  auto* y = defineTensor(f, {-1}, DataType::Int64);
  auto* s = defineTensor(f, {-1}, DataType::Int32);
  f.addOutput(binaryOp(BinaryOpType::LogicalRightShift, x, f.constantInt(3)));
  f.addOutput(binaryOp(BinaryOpType::LogicalRightShift, y, f.constantInt(3)));
  f.addOutput(binaryOp(BinaryOpType::BitwiseRightShift, x, f.constantInt(3)));
  f.addOutput(binaryOp(BinaryOpType::LogicalRightShift, x, s));
  f.addOutput(binaryOp(BinaryOpType::BitwiseRightShift, x, s));
  f.addOutput(binaryOp(BinaryOpType::BitwiseLeftShift, x, s));
  auto outs = evaluateFusion(
      f, {makeTensor(DataType::Int32, {4}, {-1, -2147483648.0, 1073741824, -64463884}),
          makeTensor(DataType::Int64, {2}, {-1, -65968277}),
          makeTensor(DataType::Int32, {4}, {32, -1, 1, 31})});
  // Logical shifts see the operand's own width (values as JAX's shift_right_logical gives).
  EXPECT_EQ(valuesOf(outs[0]), (V{536870911, 268435456, 134217728, 528812926}));
  EXPECT_EQ(test::tensorOf(outs[1]).getInt({0}), 2305843009213693951);
  EXPECT_EQ(test::tensorOf(outs[1]).getInt({1}), 2305843009205447917);
  // Arithmetic shifts keep the sign.
  EXPECT_EQ(valuesOf(outs[2]), (V{-1, -268435456, 134217728, -8057986}));
  // Amounts below 0 or from the width on: 0 for left and logical shifts, the
  // sign for arithmetic right shifts (torch's CUDA kernels).
  EXPECT_EQ(valuesOf(outs[3]), (V{0, 0, 536870912, 1}));
  EXPECT_EQ(valuesOf(outs[4]), (V{-1, -1, 536870912, -1}));
  EXPECT_EQ(valuesOf(outs[5]), (V{0, 0, -2147483648.0, 0}));
}

TEST(EvalNewElementwise, ScalarArithmeticUsesTheScalarsDtype) {
  Fusion f;
  auto* a = defineScalar(f, DataType::Int64);
  Val* sign = unaryOp(UnaryOpType::Signbit, a);
  Val* shifted = binaryOp(BinaryOpType::LogicalRightShift, a, f.constantInt(60));
  Val* g = binaryOp(BinaryOpType::Gcd, a, f.constantInt(10));
  f.addOutput(sign);
  f.addOutput(shifted);
  f.addOutput(g);
  auto outs = evaluateFusion(f, {ScalarValue(int64_t{-4})});
  EXPECT_EQ(std::get<bool>(std::get<ScalarValue>(outs[0])), true);
  EXPECT_EQ(std::get<int64_t>(std::get<ScalarValue>(outs[1])), 15);  // 0xFFF...C >> 60
  EXPECT_EQ(std::get<int64_t>(std::get<ScalarValue>(outs[2])), 2);
}

}  // namespace
}  // namespace fusebox
