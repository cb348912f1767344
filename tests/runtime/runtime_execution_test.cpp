// Running segments: dependency order, intermediates dropped after their last
// reader, required stride orders on outputs, aliased outputs, fallbacks when a
// scheduler fails, and dumps.
#include <fusebox/config.h>

#include <gmock/gmock.h>

#include <cstring>
#include <map>

#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

// T1 = exp(T0); T2 = T1 * 2; T3 = T2 + T0  (three expressions in a chain).
std::unique_ptr<Fusion> chain() {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = mul(t1, f->constantDouble(2.0));
  f->addOutput(add(t2, t0));
  return f;
}

std::vector<Argument> reference(const Fusion& f, const std::vector<Argument>& inputs) {
  return evaluateFusion(f, inputs);
}

TEST(RuntimeExecution, OneGroupPerExpressionRunsInOrderAndDropsIntermediates) {
  // Every run of a plan records which earlier segment outputs are still alive.
  std::vector<std::weak_ptr<Storage>> produced;
  std::vector<int64_t> alive_at_start;
  auto on_run = [&](const Fusion&, const std::vector<Argument>&, std::vector<Argument>& outs) {
    int64_t alive = 0;
    for (const auto& w : produced) alive += !w.expired();
    alive_at_start.push_back(alive);
    for (const auto& o : outs) produced.push_back(std::get<Tensor>(o).storage());
  };
  auto one = std::make_shared<TestScheduler>("one_expr", oneExpression(), on_run);
  Captured captured;
  FusionRuntime rt(chain(), std::nullopt, {inProcess(one)}, Options(), captured.options());
  std::vector<Argument> inputs = {sampleTensor({2, 3})};
  auto out = rt.run(inputs);
  expectSameValues(out[0], reference(rt.fusion(), inputs)[0]);

  ASSERT_EQ(rt.lastSegmentation().groups().size(), 3u);
  // exp's output is read only by the multiply: it is gone before the add runs,
  // so at most one intermediate is alive when each group starts.
  EXPECT_EQ(alive_at_start, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(rt.counters().intermediates_freed, 2);
  ASSERT_EQ(rt.lastRun().segments.size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    EXPECT_EQ(rt.lastRun().segments[g].group, static_cast<int64_t>(g));
    EXPECT_EQ(rt.lastRun().segments[g].scheduler, "one_expr");
  }
  // The returned output is the only segment output still held.
  EXPECT_TRUE(produced[0].expired());
  EXPECT_TRUE(produced[1].expired());
  EXPECT_FALSE(produced[2].expired());
}

TEST(RuntimeExecution, AGroupWhoseInputsAreNotAsPredictedIsProposedAgain) {
  // The plan hands its output back one element into a fresh buffer: aligned
  // to 4 bytes, not the 16 the segmenter predicted for a fresh allocation. A
  // kernel planned for the prediction could load vectors it may not.
  auto shifted = [](const Fusion&, const std::vector<Argument>&, std::vector<Argument>& outs) {
    for (auto& o : outs) {
      const Tensor t = std::get<Tensor>(o).contiguous();
      Tensor buffer = Tensor::empty(t.dtype(), {t.numel() + 1});
      std::memcpy(static_cast<char*>(buffer.data()) + t.elementSize(), t.data(),
                  static_cast<size_t>(t.numel() * t.elementSize()));
      o = buffer.asStrided(t.sizes(), t.strides(), 1);
    }
  };
  auto one = std::make_shared<TestScheduler>("one_expr", oneExpression(), shifted);
  FusionRuntime rt(chain(), std::nullopt, {inProcess(one)}, Options(), hostOptions());
  std::vector<Argument> inputs = {sampleTensor({2, 3})};
  expectSameValues(rt.run(inputs)[0], reference(rt.fusion(), inputs)[0]);
  ASSERT_EQ(rt.lastSegmentation().groups().size(), 3u);
  // The first group reads the fusion's input: its kept proposal serves. The
  // two after it read a shifted intermediate: their schedulers are asked again.
  EXPECT_EQ(rt.counters().proposals_reused, 1);
  EXPECT_EQ(rt.counters().proposals_made, 2);
  EXPECT_EQ(one->plans_made, 3);
}

TEST(RuntimeExecution, EachGroupIsPlannedOnceFromTheProposalTheSegmenterKept) {
  auto one = std::make_shared<TestScheduler>("one_expr", oneExpression());
  Captured captured;
  FusionRuntime rt(chain(), std::nullopt, {inProcess(one)}, Options(), captured.options());
  std::vector<Argument> inputs = {sampleTensor({2, 3})};
  expectSameValues(rt.run(inputs)[0], reference(rt.fusion(), inputs)[0]);
  ASSERT_EQ(rt.lastSegmentation().groups().size(), 3u);
  const int64_t asked_while_segmenting = one->proposals;
  // The intermediates turned out as the segmenter predicted them, so each
  // group's kept proposal served: params and plan made once, nothing asked.
  EXPECT_EQ(rt.counters().proposals_reused, 3);
  EXPECT_EQ(rt.counters().proposals_made, 0);
  EXPECT_EQ(one->params_made, 3);
  EXPECT_EQ(one->plans_made, 3);
  // Other sizes: segmented again (new proposals) and planned once each.
  std::vector<Argument> other = {sampleTensor({4, 5})};
  expectSameValues(rt.run(other)[0], reference(rt.fusion(), other)[0]);
  EXPECT_GT(one->proposals, asked_while_segmenting);
  EXPECT_EQ(rt.counters().proposals_made, 0);
  EXPECT_EQ(one->plans_made, 6);
}

TEST(RuntimeExecution, EveryGroupRunsAfterTheGroupsItReads) {
  // A diamond: T1 = exp(T0), T2 = tanh(T0), T3 = T1 + T2, T4 = T3 * T1.
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 1);
  TensorView* t1 = exp(t0);
  TensorView* t2 = tanh(t0);
  TensorView* t3 = add(t1, t2);
  f->addOutput(mul(t3, t1));
  std::vector<std::string> ran;  // the tensor each plan produced, in run order
  auto on_run = [&](const Fusion& segment, const std::vector<Argument>&, std::vector<Argument>&) {
    ran.push_back(segment.outputs()[0]->toString());
  };
  auto one = std::make_shared<TestScheduler>("one_expr", oneExpression(), on_run);
  FusionRuntime rt(std::move(f), std::nullopt, {inProcess(one)}, Options(), hostOptions());
  std::vector<Argument> inputs = {sampleTensor({5})};
  auto out = rt.run(inputs);
  expectSameValues(out[0], reference(rt.fusion(), inputs)[0]);

  const auto& segmented = rt.lastSegmentation();
  ASSERT_EQ(segmented.groups().size(), 4u);
  std::map<const Val*, size_t> position;  // complete-fusion value -> group that made it
  for (size_t g = 0; g < segmented.groups().size(); ++g)
    for (const Val* v : segmented.groups()[g].outputs) position[v] = g;
  for (size_t g = 0; g < segmented.groups().size(); ++g) {
    for (const Val* v : segmented.groups()[g].inputs) {
      if (position.count(v)) {
        EXPECT_LT(position[v], g) << v->toString();
      }
    }
  }
  EXPECT_EQ(ran.size(), 4u);
}

TEST(RuntimeExecution, ScalarsAGroupNeedsAreEvaluatedFromTheFusionInputs) {
  // full()'s group reads no tensor, only T0's extent, which it gets as a
  // scalar input evaluated from the fusion's inputs on every call.
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 1);
  Scalar* s1 = defineScalar(*f, DataType::Double);
  TensorView* t1 = exp(t0);
  TensorView* t2 = full(*f, {t0->axis(0)->extent()}, s1, DataType::Float);
  f->addOutput(add(t1, t2));
  auto one = std::make_shared<TestScheduler>("one_expr", oneExpression());
  FusionRuntime rt(std::move(f), std::nullopt, {inProcess(one)}, Options(), hostOptions());
  for (double fill : {2.0, -0.5}) {
    std::vector<Argument> inputs = {sampleTensor({5}), fill};
    auto out = rt.run(inputs);
    expectSameValues(out[0], reference(rt.fusion(), inputs)[0]);
  }
  EXPECT_EQ(rt.counters().cache_hits, 1);  // the fill value feeds no shape
  ASSERT_EQ(rt.lastSegmentation().groups().size(), 3u);
  bool reads_an_extent = false;
  for (const auto& g : rt.lastSegmentation().groups())
    for (const Val* v : g.inputs) reads_an_extent |= v->isScalar() && !v->isFusionInput();
  EXPECT_TRUE(reads_an_extent);
}

TEST(RuntimeExecution, InputsPassedThroughAndScalarOutputsNeedNoGroup) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 2);
  Scalar* s1 = defineScalar(*f, DataType::Int64);
  f->addOutput(t0);
  f->addOutput(mul(s1, t0->axis(1)->extent()));
  FusionRuntime rt(std::move(f), std::nullopt, {pluginScheduler("expr_eval")}, Options(), hostOptions());
  Tensor x = sampleTensor({2, 3});
  auto out = rt.run({x, int64_t{5}});
  EXPECT_TRUE(rt.lastSegmentation().groups().empty());
  EXPECT_EQ(std::get<Tensor>(out[0]).storage(), x.storage());  // returned as is
  EXPECT_EQ(toInt(std::get<ScalarValue>(out[1])), 15);         // 5 * 3
}

// T1 = relu-like max(T0, 0) with a channels-last required output.
std::unique_ptr<Fusion> channelsLastOutput() {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 4);
  TensorView* t1 = maximum(t0, f->constantDouble(0.0));
  f->addOutput(t1);
  f->setRequiredStrideOrder(t1, {3, 0, 2, 1});  // N, H, W, C outermost to innermost
  return f;
}

TEST(RuntimeExecution, AnOutputInAnotherLayoutIsCopiedIntoTheRequiredOne) {
  // The plan hands back row-major tensors whatever the fusion asks for.
  auto row_major = [](const Fusion&, const std::vector<Argument>&, std::vector<Argument>& outs) {
    for (auto& o : outs) o = std::get<Tensor>(o).contiguous(/*force_copy=*/true);
  };
  auto sched = std::make_shared<TestScheduler>("row_major", everything(), row_major);
  FusionRuntime rt(channelsLastOutput(), std::nullopt, {inProcess(sched)}, Options(), hostOptions());
  std::vector<Argument> inputs = {sampleTensor({2, 3, 4, 5})};
  auto out = rt.run(inputs);
  const Tensor& t = std::get<Tensor>(out[0]);
  // Channels last for sizes [2, 3, 4, 5]: C innermost (stride 1), then W (3), H (15), N (60).
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(rt.counters().layout_copies, 1);
  expectSameValues(out[0], reference(rt.fusion(), inputs)[0]);
}

TEST(RuntimeExecution, ExprEvalAlreadyHonorsTheRequiredLayout) {
  Captured captured;
  FusionRuntime rt(channelsLastOutput(), std::nullopt, {pluginScheduler("expr_eval")}, Options(),
                   captured.options());
  auto out = rt.run({sampleTensor({2, 3, 4, 5})});
  EXPECT_EQ(std::get<Tensor>(out[0]).strides(), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(rt.counters().layout_copies, 0);
}

TEST(RuntimeExecution, AnAliasedOutputIsWrittenIntoItsInput) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 1);
  TensorView* t1 = add(t0, f->constantDouble(1.0));
  f->addOutput(t1);
  f->aliasOutputToInput(t1, t0);
  FusionRuntime rt(std::move(f), std::nullopt, {pluginScheduler("expr_eval")}, Options(), hostOptions());
  Tensor x = sampleTensor({4});
  std::vector<double> before = x.toDoubles();
  auto out = rt.run({x});
  EXPECT_EQ(std::get<Tensor>(out[0]).storage(), x.storage());
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(x.getDouble({i}), before[i] + 1.0);
}

TEST(RuntimeExecution, HeuristicsThatThrowFallBackToTheNextScheduler) {
  auto flaky = std::make_shared<TestScheduler>("flaky", everything());
  flaky->throw_in_heuristics = true;
  Captured captured;
  Options options;
  options.applyEnvironmentText("test", "dump", "segmenter_log,scheduler_params");
  FusionRuntime rt(chain(), std::nullopt, {inProcess(flaky), pluginScheduler("expr_eval")}, options,
                   captured.options());
  std::vector<Argument> inputs = {sampleTensor({2, 3})};
  auto out = rt.run(inputs);
  expectSameValues(out[0], reference(rt.fusion(), inputs)[0]);
  ASSERT_EQ(rt.lastRun().segments.size(), 1u);
  EXPECT_EQ(rt.lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_EQ(rt.counters().fallbacks, 1);
  EXPECT_THAT(captured.diagnostics.str(), HasSubstr("falls back to scheduler 'expr_eval'"));
  EXPECT_THAT(captured.diagnostics.str(), HasSubstr("heuristics exploded"));
  // The log dump says which scheduler failed, in what, and why.
  EXPECT_THAT(captured.dump.str(), HasSubstr("flaky"));
  EXPECT_THAT(captured.dump.str(), HasSubstr("Proposal::params()"));
  EXPECT_THAT(captured.dump.str(), HasSubstr("=== scheduler params: group 0 (expr_eval) ==="));

  // The fallback is cached too: the next run schedules nothing.
  rt.run(inputs);
  EXPECT_TRUE(rt.lastRun().cache_hit);
  EXPECT_EQ(rt.counters().fallbacks, 1);
  EXPECT_EQ(rt.lastRun().segments[0].scheduler, "expr_eval");
}

TEST(RuntimeExecution, ScheduleThatThrowsFallsBackToo) {
  auto flaky = std::make_shared<TestScheduler>("flaky", everything());
  flaky->throw_in_schedule = true;
  Captured captured;
  FusionRuntime rt(chain(), std::nullopt, {inProcess(flaky), pluginScheduler("expr_eval")},
                   Options(), captured.options());
  auto out = rt.run({sampleTensor({2, 3})});
  EXPECT_EQ(rt.lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_THAT(captured.diagnostics.str(), HasSubstr("schedule exploded"));
}

TEST(RuntimeExecution, WithNoSchedulerLeftTheErrorSaysWhatEachOneDid) {
  auto flaky = std::make_shared<TestScheduler>("flaky", everything());
  flaky->throw_in_heuristics = true;
  Captured captured;
  FusionRuntime rt(chain(), std::nullopt, {inProcess(flaky)}, Options(), captured.options());
  try {
    rt.run({sampleTensor({2, 3})});
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("could not be scheduled"));
    EXPECT_THAT(e.what(), HasSubstr("'flaky'"));
    EXPECT_THAT(e.what(), HasSubstr("heuristics exploded"));
  }
  EXPECT_EQ(rt.cacheSize(), 0u);
}

TEST(RuntimeExecution, NoSchedulersAtAllIsAUserError) {
  try {
    FusionRuntime rt(chain(), std::nullopt, {}, Options(), hostOptions());
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no scheduler is enabled"));
  }
}

TEST(RuntimeExecution, BadInputsAreNamed) {
  RuntimeOptions o = hostOptions();
  o.input_names = {"x"};
  FusionRuntime rt(chain(), std::nullopt, {pluginScheduler("expr_eval")}, Options(), o);
  try {
    rt.run({sampleTensor({2, 3, 4})});
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("x"));
    EXPECT_THAT(e.what(), HasSubstr("3"));
  }
  try {
    rt.run({});
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("1"));
  }
}

TEST(RuntimeExecution, DumpsAreWrittenOncePerSignature) {
  Captured captured;
  Options options;
  options.applyEnvironmentText("test", "dump",
                               "fusion_ir,segmented_fusion,segmenter_log,scheduler_params,"
                               "kernel_source");
  FusionRuntime rt(chain(), loadConfigFile(defaultConfigFile()), builtinPlugins(), options,
                   captured.options());
  rt.run({sampleTensor({2, 3})});
  std::string first = captured.dump.str();
  EXPECT_THAT(first, HasSubstr("=== fusion IR after passes (inputs float[2, 3]{3, 1}@16) ==="));
  EXPECT_THAT(first, HasSubstr("=== segmented fusion (1 group) ==="));
  EXPECT_THAT(first, HasSubstr("=== segmenter log ==="));
  // no_op refused the whole fusion: exp computes values.
  EXPECT_THAT(first, HasSubstr("no_op"));
  // exp, mul and add have no reduction: the pointwise scheduler takes them.
  EXPECT_THAT(first, HasSubstr("=== scheduler params: group 0 (pointwise) ==="));
  EXPECT_THAT(first, HasSubstr("plan: kernel fusebox_pointwise_"));
  EXPECT_THAT(first, HasSubstr("=== kernel source: group 0 (fusebox_pointwise_"));
  EXPECT_THAT(first, HasSubstr("extern \"C\" __global__ void fusebox_pointwise_"));
  rt.run({sampleTensor({2, 3})});
  EXPECT_EQ(captured.dump.str(), first);  // a hit dumps nothing
}

}  // namespace
}  // namespace fusebox
