// Chains of 100,000 dependent expressions through every IR walk: hashing and
// structural equality, the verifier, the printer, clone and dead-code
// removal. Each walk used to recurse once per expression and overflowed the
// stack at about 14,000.
#include <fusebox/ir/fusion.h>
#include <fusebox/ir/printer.h>
#include <fusebox/ir/verifier.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/deep_chains.h"

namespace fusebox {
namespace {

using deep_chains::kDeepChainLength;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class DeepFusion : public ::testing::TestWithParam<size_t> {
 protected:
  const deep_chains::DeepChain& chain() const { return deep_chains::allDeepChains()[GetParam()]; }
};

TEST_P(DeepFusion, HashAndStructuralEquality) {
  auto f = chain().make(kDeepChainLength);
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*f, *f->clone(), &why)) << why;
  // A few expressions fewer is another structure.
  EXPECT_NE(f->structuralHash(), chain().make(kDeepChainLength - 3)->structuralHash());
}

TEST_P(DeepFusion, VerifierAcceptsIt) {
  auto f = chain().make(kDeepChainLength);
  EXPECT_THAT(findFusionProblems(*f), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Chains, DeepFusion,
                         ::testing::Range<size_t>(0, deep_chains::allDeepChains().size()),
                         [](const auto& info) { return deep_chains::chainTestName(info.param); });

TEST(DeepFusionWalks, VerifierFindsAProblemAtTheFarEndOfAChain) {
  auto f = deep_chains::negChain(kDeepChainLength);
  Fusion& fusion = *f;
  // A copy of the chain's end whose broadcast axis claims extent 2.
  auto* end = fusion.outputs().front()->as<TensorView>();
  auto* bad = fusion.newTensor({fusion.newIterDomain(fusion.constantInt(2), IterType::Broadcast),
                                fusion.newIterDomain(fusion.constantInt(3), IterType::Iteration)},
                               DataType::Float);
  fusion.newExpr(OpType::Set, {end}, {bad});
  fusion.addOutput(bad);
  EXPECT_THAT(findFusionProblems(fusion), ::testing::ElementsAre(HasSubstr("broadcast domain bS")));
}

TEST(DeepFusionWalks, PrinterWritesEveryTensorExpression) {
  auto f = deep_chains::negChain(kDeepChainLength);
  const std::string text = printFusion(*f);
  EXPECT_EQ(count(text, "= neg("), static_cast<size_t>(kDeepChainLength));
  EXPECT_THAT(text, HasSubstr(fmt::format("T{}_g", kDeepChainLength)));

  auto permutes = deep_chains::permuteChain(kDeepChainLength);
  EXPECT_EQ(count(printFusion(*permutes, {.transforms = true}), "permute("),
            static_cast<size_t>(kDeepChainLength));
}

TEST(DeepFusionWalks, RemovingALongDeadChain) {
  auto f = deep_chains::negChain(kDeepChainLength);
  // Only the first negation stays an output: everything after it is dead.
  Val* first = f->exprs().front()->output(0);
  f->removeOutput(f->outputs().front());
  f->addOutput(first);
  EXPECT_EQ(f->removeDeadExprs(), kDeepChainLength - 1);
  EXPECT_EQ(f->allExprs().size(), 1u);
  EXPECT_THAT(findFusionProblems(*f), IsEmpty());
}

}  // namespace
}  // namespace fusebox
