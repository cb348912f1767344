// The no_op scheduler plugin: views of inputs and empty outputs run without
// moving data (the outputs share the inputs' storage); anything else is
// refused with the reason, and expr_eval takes it.
#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/scheduler_answers.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;
using namespace fusebox::test;
using Ints = std::vector<int64_t>;

struct NoOpRuntime {
  Captured captured;
  std::unique_ptr<FusionRuntime> runtime;
  explicit NoOpRuntime(std::unique_ptr<Fusion> f, const std::string& dumps = "segmenter_log") {
    Options options;
    options.applyEnvironmentText("test", "dump", dumps);
    runtime = std::make_unique<FusionRuntime>(
        std::move(f), std::nullopt,
        std::vector<SchedulerEntry>{pluginScheduler("no_op"), pluginScheduler("expr_eval")},
        options, captured.options());
  }
  FusionRuntime* operator->() { return runtime.get(); }
};

void expectMatchesEvaluator(FusionRuntime& rt, const std::vector<Argument>& inputs,
                            const std::vector<Argument>& outputs) {
  auto expected = evaluateFusion(rt.fusion(), inputs);
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    expectSameValues(outputs[i], expected[i], "output " + std::to_string(i));
}

TEST(NoOp, PermuteBroadcastExpandAndReshapeAreViewsOfTheInput) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 2);
  TensorView* t1 = permute(t0, {1, 0});
  TensorView* t2 = broadcast(t1, {false, true, false});
  TensorView* t3 = expand(t2, {f->constantInt(-1), f->constantInt(4), f->constantInt(-1)});
  f->addOutput(t3);
  f->addOutput(reshape(t0, {f->constantInt(6)}));
  NoOpRuntime rt(std::move(f));
  Tensor x = sampleTensor({2, 3});
  auto out = rt->run({x});

  ASSERT_EQ(rt->lastRun().segments.size(), 1u);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "no_op");
  const Tensor& expanded = std::get<Tensor>(out[0]);
  const Tensor& flat = std::get<Tensor>(out[1]);
  // Both are views: the input's storage, nothing copied.
  EXPECT_EQ(expanded.storage(), x.storage());
  EXPECT_EQ(flat.storage(), x.storage());
  // permute [2, 3]{3, 1} -> [3, 2]{1, 3}; the new dim 1 is expanded (stride 0).
  EXPECT_EQ(expanded.sizes(), (Ints{3, 4, 2}));
  EXPECT_EQ(expanded.strides(), (Ints{1, 0, 3}));
  EXPECT_EQ(flat.strides(), (Ints{1}));
  expectMatchesEvaluator(*rt.runtime, {x}, out);
}

TEST(NoOp, SetAndSqueezeAreViews) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineTensor(*f, {1, -1}, DataType::Float);
  f->addOutput(squeeze(set(t0), {0}));
  NoOpRuntime rt(std::move(f));
  Tensor x = sampleTensor({1, 5});
  auto out = rt->run({x});
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "no_op");
  EXPECT_EQ(std::get<Tensor>(out[0]).storage(), x.storage());
  EXPECT_EQ(std::get<Tensor>(out[0]).sizes(), (Ints{5}));
  expectMatchesEvaluator(*rt.runtime, {x}, out);
}

TEST(NoOp, AReshapeThatNeedsACopyGoesToExprEvalWithTheReason) {
  auto make = [] {
    auto f = std::make_unique<Fusion>();
    TensorView* t0 = defineSymbolicTensor(*f, 2);
    f->addOutput(reshape(t0, {f->constantInt(6)}));
    return f;
  };
  NoOpRuntime rt(make());
  // Column-major [2, 3]: flattening it in row-major order needs a copy.
  Tensor transposed = sampleTensor({3, 2}).asStrided({2, 3}, {1, 2}, 0);
  auto out = rt->run({transposed});
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_NE(std::get<Tensor>(out[0]).storage(), transposed.storage());
  expectMatchesEvaluator(*rt.runtime, {transposed}, out);
  EXPECT_THAT(rt.captured.dump.str(),
              HasSubstr("an input of sizes [2, 3] and strides [1, 2] cannot be viewed as sizes "
                        "[6] without a copy"));

  // The same fusion on a row-major input is a view: another signature, another plan.
  Tensor x = sampleTensor({2, 3});
  out = rt->run({x});
  EXPECT_FALSE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "no_op");
  EXPECT_EQ(std::get<Tensor>(out[0]).storage(), x.storage());
}

TEST(NoOp, OutputsWithNoElementsAreEmptyTensors) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 2);
  f->addOutput(exp(t0));
  NoOpRuntime rt(std::move(f));
  auto out = rt->run({sampleTensor({0, 3})});
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "no_op");
  EXPECT_EQ(std::get<Tensor>(out[0]).sizes(), (Ints{0, 3}));
  EXPECT_EQ(std::get<Tensor>(out[0]).numel(), 0);

  // With elements, exp computes values: refused, with the reason.
  out = rt->run({sampleTensor({2, 3})});
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_THAT(rt.captured.dump.str(), HasSubstr("exp computes new values"));
  EXPECT_THAT(rt.captured.dump.str(), HasSubstr("it has 6 elements"));
}

TEST(NoOp, ComputedOutputsOfConstantShapeAreRefusedAtCompileTime) {
  Fusion f;
  TensorView* t0 = defineTensor(f, {2, 3}, DataType::Float);
  f.addOutput(add(t0, t0));
  auto entry = pluginScheduler("no_op");
  CompileTimeCache cache;
  RuntimeInfo info(f, someInputs(f), DeviceProperties{});
  Answer answer = entry.scheduler->propose(f, info, cache);
  ASSERT_FALSE(answer.proposed());
  EXPECT_TRUE(answer.refusal().structural());  // remembered per structure by the segmenter
  EXPECT_THAT(answer.refusal().reason(), HasSubstr("add computes new values"));
  EXPECT_THAT(answer.refusal().reason(),
              HasSubstr("its extents [2, 3] are constants, so it is never empty"));
  EXPECT_EQ(cache.size(), 2u);  // the analysis and the decision, kept for the next question
}

TEST(NoOp, ParamsAndPlanDescribeEachOutput) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  f.addOutput(permute(t0, {1, 0}));
  auto entry = pluginScheduler("no_op");
  CompileTimeCache cache;
  RuntimeInfo info(f, {TensorArgInfo{DataType::Float, {2, 3}, {3, 1}, 16}}, DeviceProperties{});
  ASSERT_TRUE(runTimeDecision(*entry.scheduler, f, info).accepted());
  auto params = paramsOf(*entry.scheduler, f, info);
  EXPECT_THAT(params->toString(), HasSubstr("view of input 0"));
  EXPECT_THAT(params->toString(), HasSubstr("sizes [3, 2] strides [1, 3]"));
  auto again = paramsOf(*entry.scheduler, f, info);
  EXPECT_TRUE(params->sameAs(*again));
  EXPECT_EQ(params->hash(), again->hash());
  auto plan = planOf(*entry.scheduler, f, info);
  EXPECT_EQ(plan->describe(), "1 view of inputs and 0 empty tensors; no data moved");
}

}  // namespace
}  // namespace fusebox
