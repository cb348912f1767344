// define_tensor, define_scalar and normalizeDim.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsInputs, DefineTensorShapeEntries) {
  Fusion f;
  auto* t = defineTensor(f, {-1, 1, 5, 0}, DataType::Half);
  EXPECT_EQ(t->dtype(), DataType::Half);
  EXPECT_TRUE(t->isFusionInput());
  EXPECT_THAT(iterTypes(t),
              ElementsAre(IT::Iteration, IT::Broadcast, IT::Iteration, IT::Iteration));
  EXPECT_THAT(constSizes(t), ElementsAre(kSym, 1, 5, 0));
  // A symbolic extent is a free scalar: no definition, not a constant.
  EXPECT_EQ(t->axis(0)->extent()->definition(), nullptr);
  EXPECT_FALSE(t->axis(0)->extent()->isConst());
  EXPECT_EQ(t->axis(0)->extent()->dtype(), DataType::Int64);
  EXPECT_THAT(t->contiguity(), ElementsAre(true, std::nullopt, true, true));
  EXPECT_FALSE(t->hasAllocation());
}

TEST(OpsInputs, SymbolicExtentsAreDistinct) {
  Fusion f;
  auto* t = defineSymbolicTensor(f, 3);
  EXPECT_EQ(t->dtype(), DataType::Float);
  EXPECT_EQ(t->nDims(), 3);
  EXPECT_NE(t->axis(0)->extent(), t->axis(1)->extent());
  EXPECT_NE(t->axis(1)->extent(), t->axis(2)->extent());
  EXPECT_THAT(constSizes(t), ElementsAre(kSym, kSym, kSym));
}

TEST(OpsInputs, ContiguityFollowsTheStrideOrder) {
  // stride_order [0, 2, 1]: dim 1 is outermost, then dim 2, then dim 0. As in
  // nvFuser, contiguity lists the dims in that (allocation) order.
  Fusion f;
  auto* t = defineTensor(f, {-1, -1, -1}, DataType::Float, {true, false, true}, {0, 2, 1});
  EXPECT_THAT(t->allocation(), ElementsAre(t->axis(1), t->axis(2), t->axis(0)));
  EXPECT_THAT(t->contiguity(), ElementsAre(true, false, true));
  EXPECT_THAT(t->strideOrder(), ElementsAre(0, 2, 1));
}

TEST(OpsInputs, BroadcastContiguityIsNoneInAllocationOrder) {
  Fusion f;
  // stride_order [0, 1]: allocation order [dim 1 (broadcast), dim 0].
  auto* t = defineTensor(f, {-1, 1}, DataType::Float, {std::nullopt, false}, {0, 1});
  EXPECT_THAT(t->allocation(), ElementsAre(t->axis(1), t->axis(0)));
  EXPECT_THAT(t->contiguity(), ElementsAre(std::nullopt, false));
  EXPECT_USER_ERROR(defineTensor(f, {-1, 1}, DataType::Float, {false, std::nullopt}, {0, 1}),
                    HasSubstr("contiguity entry 0 is False; expected None for a broadcast"));
}

TEST(OpsInputs, DefineScalar) {
  Fusion f;
  auto* s = defineScalar(f, DataType::Double);
  EXPECT_EQ(s->dtype(), DataType::Double);
  EXPECT_FALSE(s->isConst());
  EXPECT_THAT(f.inputs(), ElementsAre(s));
}

TEST(OpsInputs, BadDefineTensorArguments) {
  Fusion f;
  EXPECT_USER_ERROR(defineTensor(f, {4, -2}, DataType::Float),
                    HasSubstr("fd.define_tensor: shape entry 1 is -2"), HasSubstr("[4, -2]"));
  EXPECT_USER_ERROR(defineTensor(f, {-1, -1}, DataType::Float, {true}),
                    HasSubstr("contiguity needs one entry per dim (2), got 1"));
  EXPECT_USER_ERROR(defineTensor(f, {-1, 1}, DataType::Float, {true, true}),
                    HasSubstr("contiguity entry 1 is True; expected None for a broadcast"));
  EXPECT_USER_ERROR(defineTensor(f, {-1, 1}, DataType::Float, {std::nullopt, std::nullopt}),
                    HasSubstr("contiguity entry 0 is None; expected True or False"));
  EXPECT_USER_ERROR(defineTensor(f, {-1, -1}, DataType::Float, {}, {0, 0}),
                    HasSubstr("stride_order must be a permutation of 0..1"), HasSubstr("[0, 0]"));
  EXPECT_USER_ERROR(defineTensor(f, {-1, -1}, DataType::Float, {}, {0}),
                    HasSubstr("stride_order must be a permutation"), HasSubstr("got [0]"));
  EXPECT_USER_ERROR(defineSymbolicTensor(f, -1), HasSubstr("rank must be >= 0, got -1"));
  EXPECT_TRUE(f.inputs().empty());  // nothing half-defined was registered
}

TEST(OpsInputs, NormalizeDim) {
  EXPECT_EQ(normalizeDim(-1, 3, "op"), 2);
  EXPECT_EQ(normalizeDim(-3, 3, "op"), 0);
  EXPECT_EQ(normalizeDim(2, 3, "op"), 2);
  EXPECT_USER_ERROR(normalizeDim(3, 3, "fd.ops.x"),
                    HasSubstr("fd.ops.x: dim 3 is out of range for a tensor of rank 3 "
                              "(expected -3..2)"));
  EXPECT_USER_ERROR(normalizeDim(-4, 3, "fd.ops.x"), HasSubstr("dim -4 is out of range"));
  EXPECT_USER_ERROR(normalizeDim(0, 0, "fd.ops.x"), HasSubstr("rank 0"));
}

}  // namespace
}  // namespace fusebox
