// Fusion ownership, traversal, mutation, clone and structural equality.
#include <fusebox/ir/fusion.h>
#include <fusebox/ir/ops.h>
#include <fusebox/ir/verifier.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fusebox {
namespace {

using ::testing::HasSubstr;

// T2 = T0 * 2 + T1; T3 = sum(T2, {1}); outputs T2, T3.
struct SmallFusion {
  Fusion f;
  TensorView *t0, *t1, *t2, *t3;
  SmallFusion() {
    t0 = defineSymbolicTensor(f, 2);
    t1 = defineSymbolicTensor(f, 2);
    t2 = add(mul(t0, f.constantDouble(2.0)), t1);
    t3 = sum(t2, {1});
    f.addOutput(t2);
    f.addOutput(t3);
  }
};

TEST(Fusion, ExprsAreTopologicalAndDeterministic) {
  SmallFusion s;
  auto exprs = s.f.exprs();
  ASSERT_EQ(exprs.size(), 3u);
  EXPECT_EQ(exprs[0]->opName(), "mul");
  EXPECT_EQ(exprs[1]->opName(), "add");
  EXPECT_EQ(exprs[2]->opName(), "sum");
  EXPECT_EQ(s.f.exprs(), exprs);
}

TEST(Fusion, ExprsOnlyIncludeWhatOutputsNeed) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* dead = neg(t0);
  auto* live = exp(t0);
  f.addOutput(live);
  auto exprs = f.exprs();
  ASSERT_EQ(exprs.size(), 1u);
  EXPECT_EQ(exprs[0]->output(0), live);
  EXPECT_EQ(f.removeDeadExprs(), 1);
  EXPECT_EQ(dead->definition(), nullptr);
  EXPECT_TRUE(t0->uses().size() == 1 && t0->uses()[0] == live->definition());
  verifyFusion(f);
}

TEST(Fusion, RemoveDeadExprsKeepsExtentComputations) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  // The reshape's output extent i0 * i1 is computed by a scalar expression
  // that no operand names; it must survive dead-code removal.
  auto* r = reshape(t0, {f.constantInt(-1)});
  f.addOutput(r);
  Scalar* extent = r->axis(0)->extent();
  ASSERT_NE(extent->definition(), nullptr);
  f.removeDeadExprs();
  EXPECT_NE(extent->definition(), nullptr);
  verifyFusion(f);
}

TEST(Fusion, ReplaceAllUsesWithRewiresExprsAndOutputs) {
  SmallFusion s;
  auto* replacement = neg(s.t0);
  s.f.setRequiredStrideOrder(s.t2, {0, 1});
  s.f.replaceAllUsesWith(s.t2, replacement);
  EXPECT_EQ(s.f.outputs()[0], replacement);
  EXPECT_EQ(s.t3->definition()->input(0), replacement);
  EXPECT_TRUE(s.t2->uses().empty());
  ASSERT_NE(s.f.requiredStrideOrder(replacement), nullptr);
  EXPECT_EQ(*s.f.requiredStrideOrder(replacement), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(s.f.requiredStrideOrder(s.t2), nullptr);
  verifyFusion(s.f);
}

TEST(Fusion, CloneIsStructurallyEqualAndIndependent) {
  SmallFusion s;
  s.t0->setStrideOrder({0, 1});
  s.f.setRequiredStrideOrder(s.t2, {0, 1});
  std::unordered_map<const Val*, Val*> map;
  auto copy = s.f.clone(&map);
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(s.f, *copy, &why)) << why;
  EXPECT_EQ(s.f.structuralHash(), copy->structuralHash());
  // Names survive, pointers do not.
  auto* t2c = map.at(s.t2)->as<TensorView>();
  EXPECT_EQ(t2c->name(), s.t2->name());
  EXPECT_NE(t2c, s.t2);
  EXPECT_EQ(t2c->fusion(), copy.get());
  EXPECT_EQ(copy->inputs()[0]->as<TensorView>()->strideOrder(), (std::vector<int64_t>{0, 1}));
  verifyFusion(*copy);
  // Changing the copy leaves the original alone.
  copy->removeOutput(copy->outputs()[1]);
  EXPECT_EQ(s.f.outputs().size(), 2u);
  EXPECT_FALSE(Fusion::structurallyEqual(s.f, *copy));
}

TEST(Fusion, StructuralEqualityIgnoresNamesButSeesEveryDifference) {
  auto build = [](bool extra_first, BinaryOpType op, DataType dtype, bool reorder) {
    auto f = std::make_unique<Fusion>();
    if (extra_first) f->newScalar(DataType::Int64);  // shifts every scalar name
    auto* a = defineSymbolicTensor(*f, 2, dtype);
    auto* b = defineSymbolicTensor(*f, 2, dtype);
    if (reorder) a->setStrideOrder({0, 1});
    f->addOutput(binaryOp(op, a, b));
    return f;
  };
  auto base = build(false, BinaryOpType::Add, DataType::Float, false);
  EXPECT_TRUE(Fusion::structurallyEqual(*base, *build(true, BinaryOpType::Add, DataType::Float, false)));
  std::string why;
  EXPECT_FALSE(Fusion::structurallyEqual(*base, *build(false, BinaryOpType::Sub, DataType::Float, false), &why));
  EXPECT_THAT(why, HasSubstr("sub"));
  EXPECT_FALSE(Fusion::structurallyEqual(*base, *build(false, BinaryOpType::Add, DataType::Half, false)));
  EXPECT_FALSE(Fusion::structurallyEqual(*base, *build(false, BinaryOpType::Add, DataType::Float, true)));
  EXPECT_NE(base->structuralHash(),
            build(false, BinaryOpType::Sub, DataType::Float, false)->structuralHash());
}

TEST(Fusion, StructuralEqualitySeesSharedVersusDistinctExtents) {
  // add(T0, T0) and add(T0, T1) differ even though every line looks alike.
  Fusion a, b;
  auto* a0 = defineSymbolicTensor(a, 1);
  a.addOutput(add(a0, a0));
  auto* b0 = defineSymbolicTensor(b, 1);
  auto* b1 = defineSymbolicTensor(b, 1);
  b.addOutput(add(b0, b1));
  EXPECT_FALSE(Fusion::structurallyEqual(a, b));
}

TEST(Fusion, RequiredStrideOrderMustNameAnOutputAndBeAPermutation) {
  SmallFusion s;
  EXPECT_THROW(s.f.setRequiredStrideOrder(s.t0, {1, 0}), UserError);
  EXPECT_THROW(s.f.setRequiredStrideOrder(s.t2, {1, 1}), UserError);
  EXPECT_THROW(s.f.setRequiredStrideOrder(s.t2, {0}), UserError);
  s.f.setRequiredStrideOrder(s.t2, {0, 1});
  // Required stride order is separate from the allocation domain (a hint).
  EXPECT_FALSE(s.t2->hasAllocation());
}

TEST(Fusion, StrideOrderRoundTripsThroughAllocationDomain) {
  Fusion f;
  auto* t = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, {3, 0, 2, 1});  // NHWC
  auto alloc = t->allocation();
  ASSERT_EQ(alloc.size(), 4u);
  EXPECT_EQ(alloc[0], t->axis(0));  // N outermost
  EXPECT_EQ(alloc[1], t->axis(2));  // H
  EXPECT_EQ(alloc[2], t->axis(3));  // W
  EXPECT_EQ(alloc[3], t->axis(1));  // C innermost
  EXPECT_EQ(t->strideOrder(), (std::vector<int64_t>{3, 0, 2, 1}));
  EXPECT_EQ(strideOrderToAllocationPermutation({3, 0, 2, 1}), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(allocationPermutationToStrideOrder({0, 2, 3, 1}), (std::vector<int64_t>{3, 0, 2, 1}));
  t->setStrideOrder({3, 2, 1, 0});
  EXPECT_FALSE(t->hasAllocation());
}

TEST(Fusion, ContiguityMustMatchBroadcastAxes) {
  Fusion f;
  auto* t = defineTensor(f, {-1, 1}, DataType::Float);
  EXPECT_EQ(t->contiguity().size(), 2u);
  EXPECT_EQ(t->contiguity()[1], std::nullopt);
  EXPECT_THROW(t->setContiguity({true, true}), UserError);
  EXPECT_THROW(t->setContiguity({true}), UserError);
  t->setContiguity({false, std::nullopt});
  EXPECT_EQ(t->contiguity()[0], std::optional<bool>(false));
}

}  // namespace
}  // namespace fusebox
