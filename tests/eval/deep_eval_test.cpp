// The evaluator on chains of 100,000 dependent expressions (against their
// closed-form results), and scalar expressions that reuse a subexpression.
#include "eval/eval_test_util.h"
#include "support/deep_chains.h"

namespace fusebox {
namespace {

using deep_chains::kDeepChainLength;

class DeepEval : public ::testing::TestWithParam<size_t> {};

TEST_P(DeepEval, MatchesTheClosedForm) {
  const auto& chain = deep_chains::allDeepChains()[GetParam()];
  auto f = chain.make(kDeepChainLength);
  auto outs = evaluateFusion(*f, chain.inputs);
  ASSERT_EQ(outs.size(), 1u);
  const Tensor& out = std::get<Tensor>(outs[0]);
  const deep_chains::Expected expected = chain.expected(kDeepChainLength);
  EXPECT_EQ(out.sizes(), expected.sizes);
  EXPECT_EQ(out.toDoubles(), expected.values);
}

INSTANTIATE_TEST_SUITE_P(Chains, DeepEval,
                         ::testing::Range<size_t>(0, deep_chains::allDeepChains().size()),
                         [](const auto& info) { return deep_chains::chainTestName(info.param); });

// s -> (s + s) - s, repeated: each level reads the one below three times, so
// a walk that does not keep what it computed visits 3^levels nodes.
Val* repeatedlyReused(Val* s, int levels) {
  for (int k = 0; k < levels; ++k) s = sub(add(s, s), s);
  return s;
}

TEST(DeepScalarEval, ReusedSubexpressionsAreComputedOnce) {
  Fusion f;
  Val* leaf = defineScalar(f, DataType::Int64);
  Val* top = repeatedlyReused(leaf, 60);
  ExpressionEvaluator ee;
  EXPECT_EQ(ee.evaluate(top), std::nullopt);  // nothing bound yet
  ee.bind(leaf, int64_t{5});
  EXPECT_EQ(ee.evaluate(top), ScalarValue(int64_t{5}));
}

TEST(DeepScalarEval, AChainOfScalarOpsAsAFusionOutput) {
  Fusion f;
  Val* s = defineScalar(f, DataType::Int64);
  for (int64_t k = 0; k < kDeepChainLength; ++k) s = add(s, f.constantInt(k % 2 == 0 ? 3 : -2));
  f.addOutput(s);
  auto outs = evaluateFusion(f, {ScalarValue(int64_t{1})});
  EXPECT_EQ(std::get<ScalarValue>(outs.at(0)), ScalarValue(int64_t{1 + kDeepChainLength / 2}));
}

}  // namespace
}  // namespace fusebox
