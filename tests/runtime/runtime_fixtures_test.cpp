// The runtime with the test-only scheduler plugins (tests/scheduler_fixtures):
// schedulers that throw or reject everything do not break a run, and a fusion
// split between a pointwise and a reduction scheduler runs segment by segment
// to the evaluator's result.
#include <fusebox/config.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

struct FixtureRuntime {
  Captured captured;
  PluginRegistry registry;
  std::unique_ptr<FusionRuntime> runtime;
  FixtureRuntime(std::unique_ptr<Fusion> fusion, const std::string& order) {
    Config config = parseConfig("[plugins]\npaths = [\"@builtin\", \"" +
                                    std::string(FUSEBOX_TEST_SCHEDULERS_DIR) +
                                    "\"]\n[schedulers]\norder = " + order + "\n",
                                "fixtures.toml");
    registry.discover(config.plugin_paths);
    Options options;
    options.applyEnvironmentText("test", "dump", "segmenter_log");
    runtime = std::make_unique<FusionRuntime>(std::move(fusion), config, registry, options,
                                              captured.options());
  }
  FusionRuntime* operator->() { return runtime.get(); }
};

// nvFuser issue 785: GELU backward with the bias gradient, a sum over the
// batch dims of the pointwise result.
std::unique_ptr<Fusion> geluBiasGrad() {
  auto f = std::make_unique<Fusion>();
  TensorView* grad = defineSymbolicTensor(*f, 3);
  TensorView* x = defineSymbolicTensor(*f, 3);
  TensorView* t = tanh(mul(x, f->constantDouble(0.79788456)));
  TensorView* dx = mul(grad, add(t, f->constantDouble(1.0)));
  f->addOutput(dx);
  f->addOutput(sum(dx, {0, 1}));
  return f;
}

TEST(RuntimeFixtures, ThrowingAndRejectingSchedulersLeaveTheRunToExprEval) {
  FixtureRuntime rt(geluBiasGrad(), "[\"throws_always\", \"reject_all\", \"expr_eval\"]");
  std::vector<Argument> inputs = {sampleTensor({2, 3, 4}, 1), sampleTensor({2, 3, 4}, 2)};
  auto out = rt->run(inputs);
  auto expected = evaluateFusion(rt->fusion(), inputs);
  expectSameValues(out[0], expected[0]);
  expectSameValues(out[1], expected[1]);
  ASSERT_EQ(rt->lastRun().segments.size(), 1u);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "expr_eval");
  std::string log = rt.captured.dump.str();
  EXPECT_THAT(log, HasSubstr("throws_always throws from propose"));
  EXPECT_THAT(log, HasSubstr("reject_all rejects every segment"));
}

TEST(RuntimeFixtures, ARunTimeRejectionIsLoggedToo) {
  FixtureRuntime rt(geluBiasGrad(), "[\"runtime_reject\", \"expr_eval\"]");
  rt->run({sampleTensor({2, 3, 4}), sampleTensor({2, 3, 4})});
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_THAT(rt.captured.dump.str(), HasSubstr("rejected at run time with outputs"));
}

TEST(RuntimeFixtures, PointwiseAndReductionSegmentsRunInOrderToTheEvaluatorsResult) {
  FixtureRuntime rt(geluBiasGrad(), "[\"pointwise_only\", \"single_reduction\"]");
  std::vector<Argument> inputs = {sampleTensor({2, 3, 4}, 1), sampleTensor({2, 3, 4}, 2)};
  auto out = rt->run(inputs);
  auto expected = evaluateFusion(rt->fusion(), inputs);
  expectSameValues(out[0], expected[0]);
  expectSameValues(out[1], expected[1]);
  ASSERT_EQ(rt->lastRun().segments.size(), 2u);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "pointwise_only");
  EXPECT_EQ(rt->lastRun().segments[1].scheduler, "single_reduction");
  // dx is both an output and the reduction's input: it is kept, nothing is freed.
  EXPECT_EQ(rt->counters().intermediates_freed, 0);

  rt->run(inputs);
  EXPECT_TRUE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->counters().segmentations, 1);
}

}  // namespace
}  // namespace fusebox
