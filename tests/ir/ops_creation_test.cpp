// full, iota, uniform, normal.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsCreation, Full) {
  Fusion f;
  auto* two = f.constantInt(2);
  auto* n = defineScalar(f, DataType::Int64);
  auto* one = f.one();
  auto* fill = f.constantDouble(0.5);
  auto* t = full(f, {two, n, one}, fill, DataType::Half);
  EXPECT_EQ(t->dtype(), DataType::Half);
  EXPECT_THAT(iterTypes(t), ElementsAre(IT::Iteration, IT::Iteration, IT::Broadcast));
  EXPECT_EQ(t->axis(0)->extent(), two);
  EXPECT_EQ(t->axis(1)->extent(), n);  // the extent is the shape scalar itself
  Expr* e = t->definition();
  EXPECT_EQ(e->op(), OpType::Full);
  EXPECT_THAT(e->inputs(), ElementsAre(fill, two, n, one));
  EXPECT_EQ(full(f, {}, fill, DataType::Float)->nDims(), 0);
}

TEST(OpsCreation, BadFull) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  EXPECT_USER_ERROR(full(f, {f.constantInt(-2)}, f.one(), DataType::Float),
                    HasSubstr("fd.ops.full: shape entry 0 is -2; expected a size >= 0"));
  EXPECT_USER_ERROR(full(f, {f.constantDouble(2)}, f.one(), DataType::Float),
                    HasSubstr("fd.ops.full: shape entry 0 must be an integer scalar, got Double"));
  EXPECT_USER_ERROR(full(f, {f.one()}, t0, DataType::Float),
                    HasSubstr("fd.ops.full: fill_value must be a scalar, got tensor T0_g"));
  EXPECT_USER_ERROR(full(f, {f.one()}, nullptr, DataType::Float),
                    HasSubstr("fill_value is missing"));
  Fusion other;
  EXPECT_USER_ERROR(full(other, {f.one()}, f.one(), DataType::Float),
                    HasSubstr("operands belong to another fusion"));
}

TEST(OpsCreation, Iota) {
  Fusion f;
  auto* len = f.constantInt(5);
  auto* start = f.zero();
  auto* step = f.one();
  auto* t = iota(f, len, start, step, DataType::Int64);
  EXPECT_EQ(t->nDims(), 1);
  EXPECT_EQ(t->axis(0)->extent(), len);
  EXPECT_TRUE(t->axis(0)->isIteration());
  EXPECT_EQ(t->dtype(), DataType::Int64);
  EXPECT_THAT(t->definition()->inputs(), ElementsAre(len, start, step));
  EXPECT_EQ(t->definition()->op(), OpType::Iota);
  auto* n = defineScalar(f, DataType::Int64);
  auto* tf = iota(f, n, f.constantDouble(0.5), f.constantDouble(0.25), DataType::Float);
  EXPECT_EQ(tf->axis(0)->extent(), n);
  EXPECT_EQ(tf->dtype(), DataType::Float);
}

TEST(OpsCreation, BadIota) {
  Fusion f;
  EXPECT_USER_ERROR(iota(f, f.constantInt(3), f.zero(), f.one(), DataType::Bool),
                    HasSubstr("fd.ops.iota: dtype must be an integer or floating-point type, got "
                              "Bool"));
  EXPECT_USER_ERROR(iota(f, f.constantInt(-1), f.zero(), f.one(), DataType::Int64),
                    HasSubstr("fd.ops.iota: length must be >= 0, got -1"));
  EXPECT_USER_ERROR(iota(f, f.constantDouble(3), f.zero(), f.one(), DataType::Int64),
                    HasSubstr("length must be an integer scalar, got Double"));
  EXPECT_USER_ERROR(iota(f, f.constantInt(3), nullptr, f.one(), DataType::Int64),
                    HasSubstr("start is missing"));
}

TEST(OpsCreation, UniformAndNormal) {
  Fusion f;
  auto* three = f.constantInt(3);
  auto* n = defineScalar(f, DataType::Int64);
  auto* lo = f.constantDouble(0.0);
  auto* hi = f.constantDouble(1.0);
  auto* u = uniform(f, {three, n}, lo, hi, DataType::BFloat16);
  EXPECT_EQ(u->dtype(), DataType::BFloat16);
  EXPECT_EQ(u->axis(1)->extent(), n);
  Expr* e = u->definition();
  EXPECT_EQ(e->op(), OpType::Rand);
  EXPECT_EQ(e->attr<RandAttr>(), (RandAttr{RandomDistribution::Uniform, false}));
  EXPECT_THAT(e->inputs(), ElementsAre(three, n, lo, hi));

  auto* seed = defineScalar(f, DataType::Int64);
  auto* offset = defineScalar(f, DataType::Int64);
  auto* g = normal(f, {three}, lo, hi, DataType::Float, seed, offset);
  EXPECT_EQ(g->definition()->attr<RandAttr>(), (RandAttr{RandomDistribution::Normal, true}));
  EXPECT_THAT(g->definition()->inputs(), ElementsAre(three, lo, hi, seed, offset));
}

TEST(OpsCreation, BadRand) {
  Fusion f;
  auto* lo = f.constantDouble(0.0);
  auto* seed = defineScalar(f, DataType::Int64);
  EXPECT_USER_ERROR(uniform(f, {f.one()}, lo, lo, DataType::Int64),
                    HasSubstr("fd.ops.uniform: dtype must be a floating-point type, got Int"));
  EXPECT_USER_ERROR(normal(f, {f.one()}, lo, lo, DataType::Float, seed),
                    HasSubstr("fd.ops.normal: rng_seed and rng_offset must be given together"));
  EXPECT_USER_ERROR(normal(f, {f.one()}, lo, nullptr, DataType::Float),
                    HasSubstr("fd.ops.normal: std is missing"));
  EXPECT_USER_ERROR(uniform(f, {f.one()}, lo, lo, DataType::Float, lo, lo),
                    HasSubstr("rng_seed must be an integer scalar, got Double"));
}

}  // namespace
}  // namespace fusebox
