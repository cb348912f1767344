// consecutive_cast: lossless first casts fold away; rounding ones stay.
#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using namespace pass_testing;

TEST(ConsecutiveCast, WideningRoundTripBecomesACopy) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2, DataType::Float);
  f.addOutput(castOp(DataType::Float, castOp(DataType::Double, t0)));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(*a.before), "cast cast");

  Fusion expected;
  expected.addOutput(set(defineSymbolicTensor(expected, 2, DataType::Float)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {3, 5})});
}

TEST(ConsecutiveCast, HalfToFloatToDoubleBecomesHalfToDouble) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1, DataType::Half);
  f.addOutput(castOp(DataType::Double, castOp(DataType::Float, t0)));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  expected.addOutput(castOp(DataType::Double, defineSymbolicTensor(expected, 1, DataType::Half)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Half, {9})});
}

TEST(ConsecutiveCast, NarrowingThatRoundsIsNeverFolded) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1, DataType::Float);
  f.addOutput(castOp(DataType::Float, castOp(DataType::Half, t0)));
  auto* i0 = defineSymbolicTensor(f, 1, DataType::Int32);
  f.addOutput(castOp(DataType::Double, castOp(DataType::Float, i0)));  // int32 does not fit float
  f.addOutput(castOp(DataType::Float, castOp(DataType::BFloat16, castOp(DataType::Half, t0))));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);

  // The rounding is visible: 1 + 2^-11 is not a half; 2^24 + 1 is not a float.
  Tensor x = Tensor::empty(DataType::Float, {1});
  x.setDouble({0}, 1.0 + 1.0 / 2048.0);
  Tensor n = Tensor::empty(DataType::Int32, {1});
  n.setInt({0}, 16777217);
  auto out = evaluateFusion(f, {x, n});
  EXPECT_EQ(std::get<Tensor>(out[0]).toDoubles()[0], 1.0);
  EXPECT_EQ(std::get<Tensor>(out[1]).toDoubles()[0], 16777216.0);
}

TEST(ConsecutiveCast, Int32ThroughDoubleFoldsExactly) {
  Fusion f;
  auto* i0 = defineSymbolicTensor(f, 1, DataType::Int32);
  f.addOutput(castOp(DataType::Float, castOp(DataType::Double, i0)));
  f.addOutput(castOp(DataType::Int32, castOp(DataType::Int64, i0)));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "cast set");
  Tensor n = Tensor::empty(DataType::Int32, {3});
  n.setInt({0}, 16777217);
  n.setInt({1}, -2147483647 - 1);
  n.setInt({2}, 5);
  expectSameResults(*a.before, f, {n});
}

TEST(ConsecutiveCast, Int64ThroughDoubleRoundsAndStays) {
  // A double has 53 significand bits: 2^53 + 1 rounds to 2^53 (to even), so
  // int64 -> double -> int64 is not a copy and must not fold away.
  Fusion f;
  auto* i0 = defineSymbolicTensor(f, 1, DataType::Int64);
  f.addOutput(castOp(DataType::Int64, castOp(DataType::Double, i0)));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_FALSE(a.changed);
  EXPECT_EQ(opsOf(f), "cast cast");

  constexpr int64_t k2to53 = int64_t{1} << 53;
  Tensor n = Tensor::empty(DataType::Int64, {3});
  n.setInt({0}, k2to53 + 1);
  n.setInt({1}, -(k2to53 + 1));
  n.setInt({2}, k2to53 + 3);  // halfway between 2^53 + 2 and 2^53 + 4: even is + 4
  auto out = evaluateFusion(f, {n});
  const Tensor& got = std::get<Tensor>(out[0]);
  ASSERT_EQ(got.dtype(), DataType::Int64);
  EXPECT_EQ(got.getInt({0}), k2to53);
  EXPECT_EQ(got.getInt({1}), -k2to53);
  EXPECT_EQ(got.getInt({2}), k2to53 + 4);
}

// Whether every value of `from` is exactly a value of `to`, from the formats'
// widths: int32 needs 31 magnitude bits, int64 63; half keeps 11 significand
// bits with 5 exponent bits, bfloat16 8 with 8, float 24 with 8, double 53 with 11.
bool representableByHand(DataType from, DataType to) {
  using D = DataType;
  if (from == to || from == D::Bool) return true;
  switch (from) {
    case D::Int32:
      return to == D::Int64 || to == D::Double;
    case D::Int64:
      return false;  // 2^53 + 1 is no double, 2^24 + 1 no float
    case D::Half:
      return to == D::Float || to == D::Double;  // bfloat16: 11 bits > 8
    case D::BFloat16:
      return to == D::Float || to == D::Double;  // half: exponents up to 2^127 > 65504
    case D::Float:
      return to == D::Double;
    default:
      return false;  // double fits only in itself
  }
}

TEST(ConsecutiveCast, FoldsARoundTripExactlyWhenTheMiddleTypeHoldsEveryValue) {
  // For every pair of distinct dtypes t0 -> t1 -> t0: folded into a copy when
  // t1 holds every t0 value, left as two casts otherwise.
  for (DataType from : kAllDataTypes) {
    for (DataType mid : kAllDataTypes) {
      if (from == mid) continue;  // a cast to the same type is dropped on its own
      SCOPED_TRACE(std::string(dtypeName(from)) + " -> " + std::string(dtypeName(mid)) + " -> " +
                   std::string(dtypeName(from)));
      Fusion f;
      auto* t0 = defineSymbolicTensor(f, 1, from);
      f.addOutput(castOp(from, castOp(mid, t0)));
      Applied a = applyPass("consecutive_cast", f);
      const bool lossless = representableByHand(from, mid);
      EXPECT_EQ(a.changed, lossless);
      EXPECT_EQ(opsOf(f), lossless ? "set" : "cast cast");
    }
  }
}

TEST(ConsecutiveCast, UpDownCastAroundAnIntermediateUse) {
  // bf16 -> float -> bf16 feeding an op: the op reads the input directly.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2, DataType::BFloat16);
  auto* up = castOp(DataType::Float, t0);
  f.addOutput(neg(castOp(DataType::BFloat16, up)));
  f.addOutput(mul(up, f.constantDouble(2.0)));  // the up-cast has another use: it stays
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* e0 = defineSymbolicTensor(expected, 2, DataType::BFloat16);
  expected.addOutput(neg(e0));
  expected.addOutput(mul(castOp(DataType::Float, e0), expected.constantDouble(2.0)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::BFloat16, {4, 3})});
}

TEST(ConsecutiveCast, LongChainsCollapseStepByStep) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1, DataType::Half);
  auto* chain =
      castOp(DataType::Float,
             castOp(DataType::Double, castOp(DataType::Float, castOp(DataType::Half, t0))));
  f.addOutput(chain);
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);
  Fusion expected;
  expected.addOutput(castOp(DataType::Float, defineSymbolicTensor(expected, 1, DataType::Half)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Half, {6})});
}

TEST(ConsecutiveCast, BoolFitsEverywhere) {
  Fusion f;
  auto* b = defineSymbolicTensor(f, 1, DataType::Bool);
  f.addOutput(castOp(DataType::Bool, castOp(DataType::Half, b)));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "set");
  expectSameResults(*a.before, f, {sampleTensor(DataType::Bool, {5})});
}

TEST(ConsecutiveCast, FoldedOutputKeepsItsAllocationOrder) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, {3, 0, 2, 1});
  auto* out = castOp(DataType::Float, castOp(DataType::Double, t0));
  f.addOutput(out);
  out->setStrideOrder({3, 0, 2, 1});  // channels-last
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_TRUE(a.changed);
  auto* now = f.outputs()[0]->as<TensorView>();
  EXPECT_NE(now, out);
  EXPECT_EQ(now->strideOrder(), (std::vector<int64_t>{3, 0, 2, 1}));
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {2, 3, 4, 5}, {3, 0, 2, 1})});
}

TEST(ConsecutiveCast, LeavesSingleCastsAlone) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1, DataType::Float);
  f.addOutput(castOp(DataType::Half, neg(castOp(DataType::Double, t0))));
  Applied a = applyPass("consecutive_cast", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

}  // namespace
}  // namespace fusebox
