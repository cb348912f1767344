// The expr_eval scheduler plugin: accepts every segment; its params identify
// the segment; its plan is the reference evaluator.
#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/scheduler_answers.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;
using namespace fusebox::test;

TEST(ExprEval, AcceptsAnythingAndRunsTheEvaluator) {
  Fusion f;
  TensorView* a = defineSymbolicTensor(f, 2);
  TensorView* b = defineSymbolicTensor(f, 2);
  f.addOutput(sum(matmul(a, b), {0}));
  auto entry = pluginScheduler("expr_eval");
  CompileTimeCache cache;
  EXPECT_TRUE(structuralDecision(*entry.scheduler, f).accepted());
  RuntimeInfo info(f,
                   {TensorArgInfo{DataType::Float, {2, 3}, {3, 1}, 16},
                    TensorArgInfo{DataType::Float, {3, 4}, {4, 1}, 16}},
                   DeviceProperties{});
  EXPECT_TRUE(runTimeDecision(*entry.scheduler, f, info).accepted());

  auto params = paramsOf(*entry.scheduler, f, info);
  EXPECT_EQ(params->hash(), f.structuralHash());
  EXPECT_THAT(params->toString(), HasSubstr(fmt::format("{:016x}", f.structuralHash())));
  auto plan = planOf(*entry.scheduler, f, info);
  EXPECT_EQ(plan->describe(), "host evaluation of 2 tensor expressions (reference evaluator)");

  // Small integers, so every product and sum is exact in float.
  Tensor ta = Tensor::empty(DataType::Float, {2, 3});
  Tensor tb = Tensor::empty(DataType::Float, {3, 4});
  const double av[2][3] = {{1, 2, 3}, {4, 5, 6}};
  const double bv[3][4] = {{1, 0, 2, -1}, {0, 1, 1, 2}, {3, -2, 0, 1}};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k) ta.setDouble({i, k}, av[i][k]);
  for (int64_t k = 0; k < 3; ++k)
    for (int64_t j = 0; j < 4; ++j) tb.setDouble({k, j}, bv[k][j]);
  auto* host = dynamic_cast<HostPlan*>(plan.get());
  ASSERT_NE(host, nullptr);
  auto out = host->run({ta, tb});
  ASSERT_EQ(out.size(), 1u);
  const Tensor& got = std::get<Tensor>(out[0]);
  EXPECT_EQ(got.dtype(), DataType::Float);
  ASSERT_EQ(got.sizes(), (std::vector<int64_t>{4}));
  // By hand: a @ b = [[10, -4, 4, 6], [22, -7, 13, 12]]; summed over rows:
  const double want[4] = {32, -11, 17, 18};
  for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(got.getDouble({j}), want[j]) << "column " << j;
}

TEST(ExprEval, ParamsAreTheSameOnlyForTheSameSegment) {
  Fusion f, g;
  f.addOutput(exp(defineSymbolicTensor(f, 1)));
  g.addOutput(tanh(defineSymbolicTensor(g, 1)));
  auto entry = pluginScheduler("expr_eval");
  CompileTimeCache cf, cg;
  RuntimeInfo fi(f, {TensorArgInfo{DataType::Float, {4}, {1}, 16}}, DeviceProperties{});
  RuntimeInfo gi(g, {TensorArgInfo{DataType::Float, {4}, {1}, 16}}, DeviceProperties{});
  auto pf = paramsOf(*entry.scheduler, f, fi);
  auto pf2 = paramsOf(*entry.scheduler, f, fi);
  auto pg = paramsOf(*entry.scheduler, g, gi);
  EXPECT_TRUE(pf->sameAs(*pf2));
  EXPECT_FALSE(pf->sameAs(*pg));
  EXPECT_NE(pf->hash(), pg->hash());
}

}  // namespace
}  // namespace fusebox
