// The element math as kernel IR values: the type each op computes in
// follows the evaluator's rules, every result is rounded through its
// dtype's storage type, and the runtime's memory and Philox primitives
// print as the device runtime spells them.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"

namespace fusebox::kir {
namespace {

TEST(KernelIrElementMath, ResultsAreRoundedThroughTheirStorageType) {
  // Half computes in float and rounds through fusebox::Half; float needs
  // one cast only.
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Add, {var("a"), DataType::Half},
                                {var("b"), DataType::Half}, DataType::Half)),
            "fusebox::Cast<float>::from(fusebox::Cast<fusebox::Half>::from(fusebox::op::add(a, "
            "b)))");
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Mul, {var("a"), DataType::Float},
                                {var("b"), DataType::Float}, DataType::Float)),
            "fusebox::Cast<float>::from(fusebox::op::mul(a, b))");
  EXPECT_EQ(printValue(roundTo(DataType::Int32, var("x"))),
            "fusebox::Cast<int64_t>::from(fusebox::Cast<int32_t>::from(x))");
}

TEST(KernelIrElementMath, VectorElementsWidenBFloat16FromTheirWord) {
  // A bfloat16 lane through widenLane (one instruction on its 32-bit word);
  // every other dtype is the element's own conversion to its compute type.
  EXPECT_EQ(printValue(vectorElement(DataType::BFloat16, var("vl0"), var("v"))),
            "fusebox::widenLane(vl0, v)");
  EXPECT_EQ(printValue(vectorElement(DataType::Half, var("vl0"), var("v"))),
            "fusebox::Cast<float>::from(vl0[v])");
  EXPECT_EQ(printValue(vectorElement(DataType::Int32, subscript(var("pb0"), var("k")), lit(3))),
            "fusebox::Cast<int64_t>::from(pb0[k][3])");
}

TEST(KernelIrElementMath, OperandsMeetInThePromotedComputeType) {
  // An int32 compared with a float: both as float, the result a bool.
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Lt, {var("i"), DataType::Int32},
                                {var("f"), DataType::Float}, DataType::Bool)),
            "fusebox::Cast<bool>::from(fusebox::op::lt(fusebox::Cast<float>::from(i), f))");
  // Integers wrap in int64; a double operand makes the comparison double.
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Ge, {var("f"), DataType::Float},
                                {var("d"), DataType::Double}, DataType::Bool)),
            "fusebox::Cast<bool>::from(fusebox::op::ge(fusebox::Cast<double>::from(f), d))");
  // Bitwise ops on bools stay boolean; on int32 they compute in int64.
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::BitwiseAnd, {var("p"), DataType::Bool},
                                {var("q"), DataType::Bool}, DataType::Bool)),
            "fusebox::Cast<bool>::from(fusebox::op::bitwise_and(p, q))");
  // The narrower dtype's variant of an op on bits.
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Gcd, {var("a"), DataType::Int32},
                                {var("b"), DataType::Int32}, DataType::Int32)),
            "fusebox::Cast<int64_t>::from(fusebox::Cast<int32_t>::from(fusebox::op::gcd_int32(a, "
            "b)))");
  // where: the condition as bool, the branches in the result's type.
  EXPECT_EQ(printValue(ternaryOp(TernaryOpType::Where, {var("c"), DataType::Bool},
                                 {var("a"), DataType::Int32}, {var("b"), DataType::Float},
                                 DataType::Float)),
            "fusebox::Cast<float>::from(fusebox::op::where(c, fusebox::Cast<float>::from(a), b))");
}

TEST(KernelIrElementMath, ApproximateOnlyWhereTheMathIsFloat) {
  EXPECT_EQ(
      printValue(unaryOp(UnaryOpType::Exp, {var("x"), DataType::Float}, DataType::BFloat16, true)),
      "fusebox::Cast<float>::from(fusebox::Cast<fusebox::BFloat16>::from(fusebox::op::exp_"
      "approx(x)))");
  // A double exp stays exact whatever the caller asks.
  EXPECT_EQ(
      printValue(unaryOp(UnaryOpType::Exp, {var("x"), DataType::Double}, DataType::Double, true)),
      "fusebox::Cast<double>::from(fusebox::op::exp(x))");
  EXPECT_EQ(printValue(binaryOp(BinaryOpType::Div, {var("a"), DataType::Float},
                                {var("b"), DataType::Float}, DataType::Half, true)),
            "fusebox::Cast<float>::from(fusebox::Cast<fusebox::Half>::from(fusebox::op::div_"
            "approx(a, b)))");
}

TEST(KernelIrElementMath, LiteralsKeepTheirDtype) {
  EXPECT_EQ(printValue(literal(int64_t{5}, DataType::Int32)), "int64_t(5ll)");
  EXPECT_EQ(printValue(literal(std::numeric_limits<int64_t>::min(), DataType::Int64)),
            "int64_t(-9223372036854775807ll - 1)");
  EXPECT_EQ(printValue(literal(2.0, DataType::Double)), "2.0");
  EXPECT_EQ(printValue(literal(0.5, DataType::BFloat16)),
            "fusebox::Cast<float>::from(fusebox::Cast<fusebox::BFloat16>::from(0.5))");
  EXPECT_EQ(printValue(literal(std::numeric_limits<double>::infinity(), DataType::Double)),
            "fusebox::bitCast<double>(0x7ff0000000000000ull)");
  EXPECT_EQ(printValue(literal(true, DataType::Bool)), "true");
}

TEST(KernelIrElementMath, VectorAccessesAndPhiloxDraws) {
  EXPECT_EQ(printValue(loadVector(8, var("in0") + var("mb"))), "fusebox::loadVec<8>(in0 + mb)");
  Block k;
  storeVector(k, 4, var("out0") + text("(r * 64 + mb)"), var("so0"));
  EXPECT_EQ(printCuda(k, 0), "fusebox::storeVec<4>(out0 + (r * 64 + mb), so0);\n");
  Block top;
  const Value rng = declarePhiloxStream(top, "rng0", text("0ull"), text("5ull"));
  EXPECT_EQ(printCuda(top, 0),
            "fusebox::philox::Stream rng0 = fusebox::philox::Stream(0ull, 5ull);\n");
  EXPECT_EQ(printValue(philoxDraw(rng, lit(2) * var("i"), true)),
            "fusebox::philox::draw(rng0, 2 * i, true)");
}

}  // namespace
}  // namespace fusebox::kir
