// The verifier finds broken invariants and accepts valid fusions.
#include <fusebox/ir/ops.h>
#include <fusebox/ir/verifier.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(Verifier, AcceptsAValidFusion) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* t1 = sum(t0, {1}, /*keepdim=*/true);
  auto* t2 = div(t0, t1);
  f.addOutput(t2);
  f.setRequiredStrideOrder(t2, {0, 2, 1});
  EXPECT_THAT(findFusionProblems(f), IsEmpty());
  EXPECT_NO_THROW(verifyFusion(f));
}

TEST(Verifier, FindsAnOperandNothingComputes) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  // A tensor that is neither an input nor produced by anything.
  auto* orphan = f.newTensor({f.newIterDomain(f.newScalar(DataType::Int64), IterType::Iteration)},
                             DataType::Float);
  f.addOutput(add(t0, orphan));
  auto problems = findFusionProblems(f);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("neither an input nor computed"));
  EXPECT_THAT(problems[0], HasSubstr(orphan->toString()));
  EXPECT_THROW(verifyFusion(f), InternalError);
}

TEST(Verifier, FindsABroadcastWithANonUnitExtent) {
  Fusion f;
  auto* bad = f.newIterDomain(f.constantInt(4), IterType::Broadcast);
  auto* t0 = f.newTensor({bad}, DataType::Float);
  f.addInput(t0);
  f.addOutput(neg(t0));
  auto problems = findFusionProblems(f);
  ASSERT_FALSE(problems.empty());
  EXPECT_THAT(problems[0], HasSubstr("must have extent 1"));
}

TEST(Verifier, FindsAWrongOperandCount) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* out = f.newTensor({f.newIterDomain(t0->axis(0)->extent(), IterType::Iteration)},
                          DataType::Float);
  f.newExpr(OpType::Binary, {t0}, {out}, BinaryOpType::Add);
  f.addOutput(out);
  auto problems = findFusionProblems(f);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("has 1 operands, expected 2..2"));
}

TEST(Verifier, FindsAComparisonThatDoesNotProduceBool) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* out = f.newTensor({f.newIterDomain(t0->axis(0)->extent(), IterType::Iteration)},
                          DataType::Float);
  f.newExpr(OpType::Binary, {t0, t0}, {out}, BinaryOpType::Lt);
  f.addOutput(out);
  auto problems = findFusionProblems(f);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("must produce bool"));
}

}  // namespace
}  // namespace fusebox
