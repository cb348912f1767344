// Shape inference of elementwise ops: broadcasting, extents, scalars and folding.
#include <climits>

#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsElementwise, SameRankTakesFreshDomainsWithTheFirstOperandsExtents) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* t1 = defineSymbolicTensor(f, 2);
  auto* out = add(t0, t1);
  ASSERT_EQ(out->nDims(), 2);
  EXPECT_THAT(iterTypes(out), ElementsAre(IT::Iteration, IT::Iteration));
  EXPECT_EQ(out->axis(0)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(out->axis(1)->extent(), t0->axis(1)->extent());
  EXPECT_NE(out->axis(0), t0->axis(0));
  EXPECT_EQ(out->dtype(), DataType::Float);
  Expr* e = out->definition();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->op(), OpType::Binary);
  EXPECT_EQ(e->attr<BinaryOpType>(), BinaryOpType::Add);
  EXPECT_THAT(e->inputs(), ElementsAre(t0, t1));
}

TEST(OpsElementwise, LowerRankOperandIsBroadcastOnTheLeft) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* t1 = defineTensor(f, {-1}, DataType::Float);
  auto* out = mul(t0, t1);
  ASSERT_EQ(out->nDims(), 3);
  Expr* e = out->definition();
  EXPECT_EQ(e->input(0), t0);
  auto* b = e->input(1)->as<TensorView>();
  ASSERT_NE(b->definition(), nullptr);
  EXPECT_EQ(b->definition()->op(), OpType::Broadcast);
  EXPECT_EQ(b->definition()->input(0), t1);
  EXPECT_EQ(b->definition()->attr<BroadcastAttr>().is_broadcast_dim,
            (std::vector<bool>{true, true, false}));
  EXPECT_THAT(iterTypes(b), ElementsAre(IT::Broadcast, IT::Broadcast, IT::Iteration));
  EXPECT_EQ(out->axis(0)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(out->axis(2)->extent(), t0->axis(2)->extent());
}

TEST(OpsElementwise, BroadcastDimsStretch) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, 1}, DataType::Float);
  auto* t1 = defineTensor(f, {1, 5, 1}, DataType::Float);
  auto* out = sub(t0, t1);
  EXPECT_THAT(iterTypes(out), ElementsAre(IT::Iteration, IT::Iteration, IT::Broadcast));
  EXPECT_THAT(constSizes(out), ElementsAre(kSym, 5, 1));
  EXPECT_EQ(out->axis(0)->extent(), t0->axis(0)->extent());
}

TEST(OpsElementwise, ConstantExtentIsPreferredOverSymbolic) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* t1 = defineTensor(f, {4}, DataType::Float);
  auto* out = add(t0, t1);
  EXPECT_THAT(constSizes(out), ElementsAre(4));
}

TEST(OpsElementwise, ExpandedExtentsSurvive) {
  Fusion f;
  auto* t0 = defineTensor(f, {1}, DataType::Float);
  auto* e = expand(t0, {f.constantInt(7)});
  auto* plain = defineTensor(f, {1}, DataType::Float);
  auto* both_broadcast = add(plain, e);
  EXPECT_THAT(iterTypes(both_broadcast), ElementsAre(IT::Broadcast));
  ASSERT_TRUE(both_broadcast->axis(0)->hasExpandedExtent());
  EXPECT_EQ(constValue(both_broadcast->axis(0)->expandedExtent()), 7);
  EXPECT_EQ(constValue(both_broadcast->axis(0)->extent()), 1);

  auto* seven = defineTensor(f, {7}, DataType::Float);
  auto* iter = add(e, seven);
  EXPECT_THAT(iterTypes(iter), ElementsAre(IT::Iteration));
  EXPECT_FALSE(iter->axis(0)->hasExpandedExtent());
  EXPECT_THAT(constSizes(iter), ElementsAre(7));

  auto* five = defineTensor(f, {5}, DataType::Float);
  EXPECT_USER_ERROR(add(e, five), HasSubstr("fd.ops.add"), HasSubstr("size 7"),
                    HasSubstr("size 5"));
}

TEST(OpsElementwise, IncompatibleConstantSizesAreAUserError) {
  Fusion f;
  auto* t0 = defineTensor(f, {2, 3}, DataType::Float);
  auto* t1 = defineTensor(f, {2, 4}, DataType::Float);
  EXPECT_USER_ERROR(add(t0, t1), HasSubstr("fd.ops.add: operands have incompatible sizes at dim 1"),
                    HasSubstr("operand 0 (T0_g[2, 3]) has size 3"),
                    HasSubstr("operand 1 (T1_g[2, 4]) has size 4"));
  // The error is raised before anything is built: no stray broadcast.
  auto* t2 = defineTensor(f, {4}, DataType::Float);
  size_t exprs = f.allExprs().size();
  EXPECT_USER_ERROR(mul(t0, t2), HasSubstr("fd.ops.mul"), HasSubstr("size 3"), HasSubstr("size 4"));
  EXPECT_EQ(f.allExprs().size(), exprs);
  EXPECT_USER_ERROR(ternaryOp(TernaryOpType::Clamp, t0, t1, f.constantDouble(1.0)),
                    HasSubstr("fd.ops.clamp"));
}

TEST(OpsElementwise, ReductionAxesAreDropped) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* s = sum(t0, {1});
  ASSERT_EQ(s->logical().size(), 2u);
  auto* n = neg(s);
  EXPECT_EQ(n->logical().size(), 1u);
  EXPECT_THAT(iterTypes(n), ElementsAre(IT::Iteration));
  EXPECT_EQ(n->axis(0)->extent(), t0->axis(0)->extent());
}

TEST(OpsElementwise, ScalarOperandsStayScalars) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* s = defineScalar(f, DataType::Double);
  auto* out = mul(t0, s);
  EXPECT_THAT(out->definition()->inputs(), ElementsAre(t0, s));
  EXPECT_EQ(out->dtype(), DataType::Float);

  auto* i = defineScalar(f, DataType::Int64);
  Val* r = add(i, s);
  ASSERT_TRUE(r->isScalar());
  EXPECT_EQ(r->dtype(), DataType::Double);
  EXPECT_EQ(r->definition()->op(), OpType::Binary);
  EXPECT_THAT(r->definition()->inputs(), ElementsAre(i, s));
  Val* u = unaryOp(UnaryOpType::Exp, i);
  ASSERT_TRUE(u->isScalar());
  EXPECT_EQ(u->dtype(), DataType::Double);  // scalar math computes in double
  Val* c = castOp(DataType::Int32, s);
  ASSERT_TRUE(c->isScalar());
  EXPECT_EQ(c->dtype(), DataType::Int32);
  EXPECT_EQ(c->definition()->op(), OpType::Cast);
}

TEST(OpsElementwise, IntegerConstantsFold) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto folded = [](Val* v) { return v->definition() == nullptr ? constValue(v) : std::nullopt; };
  EXPECT_EQ(folded(mul(k(2), k(3))), 6);
  EXPECT_EQ(folded(add(k(7), k(-2))), 5);
  EXPECT_EQ(folded(sub(k(2), k(9))), -7);
  EXPECT_EQ(folded(div(k(7), k(-2))), -3);  // C truncation
  EXPECT_EQ(folded(ceilDiv(k(7), k(2))), 4);
  EXPECT_EQ(folded(maximum(k(3), k(5))), 5);
  EXPECT_EQ(folded(minimum(k(3), k(5))), 3);
  EXPECT_EQ(folded(binaryOp(BinaryOpType::Remainder, k(-7), k(3))), 2);  // Python's sign rule
  EXPECT_EQ(folded(binaryOp(BinaryOpType::Fmod, k(-7), k(3))), -1);      // C's sign rule
  EXPECT_EQ(folded(unaryOp(UnaryOpType::Neg, k(5))), -5);
  Val* less = lt(k(2), k(3));
  EXPECT_EQ(less->dtype(), DataType::Bool);
  ASSERT_TRUE(less->as<Scalar>()->isConst());
  EXPECT_TRUE(std::get<bool>(*less->as<Scalar>()->value()));

  // Not folded: division by zero, overflow, floating point.
  EXPECT_NE(div(k(1), k(0))->definition(), nullptr);
  EXPECT_NE(mul(k(INT64_MAX), k(2))->definition(), nullptr);
  EXPECT_NE(add(f.constantDouble(1.5), f.constantDouble(2.0))->definition(), nullptr);
  // Int32 arithmetic folds in range and stays Int32.
  Val* i32 = add(f.constant(int64_t{2}, DataType::Int32), f.constant(int64_t{3}, DataType::Int32));
  EXPECT_EQ(i32->dtype(), DataType::Int32);
  EXPECT_EQ(folded(i32), 5);
}

TEST(OpsElementwise, CastKeepsTheShape) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1}, DataType::Float);
  auto* c = castOp(DataType::Half, t0);
  EXPECT_EQ(c->dtype(), DataType::Half);
  EXPECT_THAT(iterTypes(c), ElementsAre(IT::Iteration, IT::Broadcast));
  EXPECT_EQ(c->axis(0)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(c->definition()->op(), OpType::Cast);
}

TEST(OpsElementwise, WhereBroadcastsAllThreeOperands) {
  Fusion f;
  auto* cond = defineTensor(f, {-1, 1}, DataType::Bool);
  auto* a = defineTensor(f, {-1}, DataType::Float);
  auto* b = f.constantDouble(0.0);
  auto* out = where(cond, a, b);
  ASSERT_EQ(out->nDims(), 2);
  EXPECT_EQ(out->dtype(), DataType::Float);  // a double scalar does not widen a float tensor
  EXPECT_EQ(out->axis(0)->extent(), cond->axis(0)->extent());
  EXPECT_EQ(out->axis(1)->extent(), a->axis(0)->extent());
  Expr* e = out->definition();
  EXPECT_EQ(e->op(), OpType::Ternary);
  EXPECT_EQ(e->attr<TernaryOpType>(), TernaryOpType::Where);
  EXPECT_EQ(e->input(0), cond);
  EXPECT_EQ(e->input(1)->definition()->op(), OpType::Broadcast);
  EXPECT_EQ(e->input(2), b);

  // Two scalar branches: their promoted type.
  EXPECT_EQ(where(cond, f.constantInt(1), f.constantDouble(2.0))->dtype(), DataType::Double);
  EXPECT_EQ(where(cond, f.constantInt(1), f.constantInt(2))->dtype(), DataType::Int64);
}

TEST(OpsElementwise, BadElementwiseArguments) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* fcond = defineSymbolicTensor(f, 2);
  EXPECT_USER_ERROR(where(fcond, t0, t0),
                    HasSubstr("fd.ops.where: the condition must be Bool, got Float"));
  EXPECT_USER_ERROR(where(f.constantBool(true), f.constantDouble(1), f.constantDouble(2)),
                    HasSubstr("fd.ops.where"), HasSubstr("every operand is a scalar"));
  EXPECT_USER_ERROR(add(t0, static_cast<Val*>(nullptr)),
                    HasSubstr("fd.ops.add: second operand is missing"));
  EXPECT_USER_ERROR(unaryOp(UnaryOpType::Exp, static_cast<Val*>(nullptr)),
                    HasSubstr("fd.ops.exp: operand is missing"));
  Fusion other;
  auto* t1 = defineSymbolicTensor(other, 2);
  EXPECT_USER_ERROR(add(t0, t1), HasSubstr("fd.ops.add: operands belong to different fusions"));
}

}  // namespace
}  // namespace fusebox
