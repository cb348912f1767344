// matmul and linear: torch's shape rules and dtypes.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsMatmul, TwoDimensional) {
  Fusion f;
  auto* a = defineTensor(f, {-1, 4}, DataType::Float);
  auto* b = defineTensor(f, {4, -1}, DataType::Float);
  auto* c = matmul(a, b);
  ASSERT_EQ(c->nDims(), 2);
  EXPECT_EQ(c->axis(0)->extent(), a->axis(0)->extent());
  EXPECT_EQ(c->axis(1)->extent(), b->axis(1)->extent());
  EXPECT_EQ(c->definition()->op(), OpType::Matmul);
  EXPECT_THAT(c->definition()->inputs(), ElementsAre(a, b));
}

TEST(OpsMatmul, OneDimensionalOperands) {
  Fusion f;
  auto* v = defineTensor(f, {3}, DataType::Float);
  auto* w = defineTensor(f, {3}, DataType::Float);
  EXPECT_EQ(matmul(v, w)->nDims(), 0);  // dot product
  auto* batched = defineTensor(f, {5, 3, 7}, DataType::Float);
  EXPECT_THAT(constSizes(matmul(v, batched)), ElementsAre(5, 7));
  auto* lhs = defineTensor(f, {5, 2, 3}, DataType::Float);
  EXPECT_THAT(constSizes(matmul(lhs, w)), ElementsAre(5, 2));
}

TEST(OpsMatmul, BatchDimsBroadcast) {
  Fusion f;
  auto* a = defineTensor(f, {5, 1, 2, 3}, DataType::Half);
  auto* b = defineTensor(f, {4, 3, 6}, DataType::Half);
  auto* c = matmul(a, b);
  EXPECT_THAT(constSizes(c), ElementsAre(5, 4, 2, 6));
  EXPECT_THAT(iterTypes(c),
              ElementsAre(IT::Iteration, IT::Iteration, IT::Iteration, IT::Iteration));
  EXPECT_EQ(c->dtype(), DataType::Half);
  auto* d = defineTensor(f, {4, 3, 6}, DataType::Float);
  EXPECT_EQ(matmul(a, d)->dtype(), DataType::Float);
}

TEST(OpsMatmul, BadMatmul) {
  Fusion f;
  auto* a = defineTensor(f, {2, 3}, DataType::Float);
  auto* b = defineTensor(f, {4, 5}, DataType::Float);
  EXPECT_USER_ERROR(matmul(a, b), HasSubstr("fd.ops.matmul: contraction sizes differ"),
                    HasSubstr("a (T0_g[2, 3]) has K = 3"), HasSubstr("b (T1_g[4, 5]) has K = 4"));
  auto* i = defineTensor(f, {3, 2}, DataType::Int64);
  EXPECT_USER_ERROR(matmul(a, i),
                    HasSubstr("fd.ops.matmul: expects floating-point operands, got Int T2_g"));
  auto* s = defineTensor(f, {}, DataType::Float);
  EXPECT_USER_ERROR(matmul(s, a), HasSubstr("both operands need rank >= 1"));
  auto* x = defineTensor(f, {2, 2, 3}, DataType::Float);
  auto* y = defineTensor(f, {3, 3, 4}, DataType::Float);
  EXPECT_USER_ERROR(matmul(x, y), HasSubstr("incompatible sizes at dim 0"), HasSubstr("size 2"),
                    HasSubstr("size 3"));
}

TEST(OpsMatmul, Linear) {
  Fusion f;
  auto* a = defineTensor(f, {8, -1, 16}, DataType::BFloat16);
  auto* w = defineTensor(f, {32, 16}, DataType::BFloat16);
  auto* bias = defineTensor(f, {32}, DataType::BFloat16);
  auto* out = linear(a, w, bias);
  EXPECT_THAT(constSizes(out), ElementsAre(8, kSym, 32));
  EXPECT_EQ(out->axis(1)->extent(), a->axis(1)->extent());
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(out->definition()->op(), OpType::Linear);
  EXPECT_THAT(out->definition()->inputs(), ElementsAre(a, w, bias));
  EXPECT_THAT(linear(a, w)->definition()->inputs(), ElementsAre(a, w));

  auto* w1 = defineTensor(f, {16}, DataType::BFloat16);
  auto* b0 = defineTensor(f, {}, DataType::BFloat16);
  EXPECT_THAT(constSizes(linear(a, w1, b0)), ElementsAre(8, kSym));
}

TEST(OpsMatmul, BadLinear) {
  Fusion f;
  auto* a = defineTensor(f, {8, 16}, DataType::Float);
  auto* w = defineTensor(f, {32, 15}, DataType::Float);
  EXPECT_USER_ERROR(linear(a, w), HasSubstr("fd.ops.linear: contraction sizes differ"),
                    HasSubstr("K = 16"), HasSubstr("K = 15"));
  auto* w2 = defineTensor(f, {32, 16}, DataType::Float);
  auto* bad_bias = defineTensor(f, {31}, DataType::Float);
  EXPECT_USER_ERROR(linear(a, w2, bad_bias), HasSubstr("fd.ops.linear"), HasSubstr("size 32"),
                    HasSubstr("size 31"));
  auto* w3 = defineTensor(f, {2, 32, 16}, DataType::Float);
  EXPECT_USER_ERROR(linear(a, w3), HasSubstr("must have rank 1 or 2"));
  auto* w1 = defineTensor(f, {16}, DataType::Float);
  auto* b1 = defineTensor(f, {1}, DataType::Float);
  EXPECT_USER_ERROR(linear(a, w1, b1), HasSubstr("with a 1-D weight"),
                    HasSubstr("must have rank 0"));
  auto* b2 = defineTensor(f, {2, 32}, DataType::Float);
  EXPECT_USER_ERROR(linear(a, w2, b2), HasSubstr("bias (T"), HasSubstr("must have rank 0 or 1"));
  EXPECT_USER_ERROR(linear(a, nullptr), HasSubstr("fd.ops.linear: weight is missing"));
}

}  // namespace
}  // namespace fusebox
