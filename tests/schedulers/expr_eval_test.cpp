// The expr_eval scheduler plugin: accepts every segment; its params identify
// the segment; its plan is the reference evaluator.
#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

TEST(ExprEval, AcceptsAnythingAndRunsTheEvaluator) {
  Fusion f;
  TensorView* a = defineSymbolicTensor(f, 2);
  TensorView* b = defineSymbolicTensor(f, 2);
  f.addOutput(sum(matmul(a, b), {0}));
  auto entry = pluginScheduler("expr_eval");
  CompileTimeCache cache;
  EXPECT_TRUE(entry.scheduler->canScheduleCompileTime(f, cache).accepted());
  RuntimeInfo info(f,
                   {TensorArgInfo{DataType::Float, {2, 3}, {3, 1}, 16},
                    TensorArgInfo{DataType::Float, {3, 4}, {4, 1}, 16}},
                   DeviceProperties{});
  EXPECT_TRUE(entry.scheduler->canScheduleRunTime(f, info, cache).accepted());

  auto params = entry.scheduler->computeHeuristics(f, info, cache);
  EXPECT_EQ(params->hash(), f.structuralHash());
  EXPECT_THAT(params->toString(), HasSubstr(fmt::format("{:016x}", f.structuralHash())));
  auto plan = entry.scheduler->schedule(f, *params, info);
  EXPECT_EQ(plan->describe(), "host evaluation of 2 tensor expressions (reference evaluator)");

  std::vector<Argument> inputs = {sampleTensor({2, 3}, 1), sampleTensor({3, 4}, 2)};
  auto* host = dynamic_cast<HostPlan*>(plan.get());
  ASSERT_NE(host, nullptr);
  auto out = host->run(inputs);
  expectSameValues(out[0], evaluateFusion(f, inputs)[0]);
}

TEST(ExprEval, ParamsAreTheSameOnlyForTheSameSegment) {
  Fusion f, g;
  f.addOutput(exp(defineSymbolicTensor(f, 1)));
  g.addOutput(tanh(defineSymbolicTensor(g, 1)));
  auto entry = pluginScheduler("expr_eval");
  CompileTimeCache cf, cg;
  RuntimeInfo fi(f, {TensorArgInfo{DataType::Float, {4}, {1}, 16}}, DeviceProperties{});
  RuntimeInfo gi(g, {TensorArgInfo{DataType::Float, {4}, {1}, 16}}, DeviceProperties{});
  auto pf = entry.scheduler->computeHeuristics(f, fi, cf);
  auto pf2 = entry.scheduler->computeHeuristics(f, fi, cf);
  auto pg = entry.scheduler->computeHeuristics(g, gi, cg);
  EXPECT_TRUE(pf->sameAs(*pf2));
  EXPECT_FALSE(pf->sameAs(*pg));
  EXPECT_NE(pf->hash(), pg->hash());
}

}  // namespace
}  // namespace fusebox
