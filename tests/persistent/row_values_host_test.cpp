// Row values (normalization/pass_chunk.h, provideStageResults) on the host
// backend: what a row's reductions alone determine is computed once a row,
// and a row value read at another row is refused.
#include <fusebox/ir/ops.h>

#include "persistent/host_fixture.h"
#include "persistent/persistent_test_util.h"

namespace {

using namespace fusebox;
using namespace fusebox::test;

// Values of a row computed from its reductions alone (a log of the
// exp-sum, an rstd, a reciprocal of the sum) are computed once a row,
// before the pass that reads them, not once an element in every chunk:
// each op appears once in the kernel, in front of the loops, and every
// output still matches the evaluator.
TEST_F(PersistentFixture, RowValuesAreComputedOnceARow) {
  auto count = [](const std::string& src, const std::string& what) {
    size_t n = 0;
    for (size_t p = src.find(what); p != std::string::npos; p = src.find(what, p + 1)) ++n;
    return n;
  };
  // The mean log-probability of a row (cross-entropy's label smoothing):
  // sum(x - max - log(sum(exp(x - max)))), and the log-sum-exp itself.
  auto smoothing = std::make_unique<Fusion>();
  TensorView* x = castOp(DataType::Float, defineTensor(*smoothing, {-1, -1}, DataType::BFloat16));
  TensorView* shifted = binaryOp(BinaryOpType::Sub, x, broadcast(max(x, {1}), {false, true}));
  TensorView* lse = unaryOp(UnaryOpType::Log, sum(exp(shifted), {1}));
  smoothing->addOutput(
      sum(binaryOp(BinaryOpType::Sub, shifted, broadcast(lse, {false, true})), {1}));
  smoothing->addOutput(lse);
  {
    auto s = builtinScheduler("inner_persistent");
    s->configure({});
    SchedulerRun r = expectSchedulerMatchesEvaluator(
        *s, backend(), *smoothing, {Argument(randomTensor(DataType::BFloat16, {6, 1000}, 3))},
        device());
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    EXPECT_EQ(count(r.source, "fusebox::op::log("), 1u) << r.source;
    // The log comes after the exp-sum's combine and before the last pass.
    EXPECT_LT(r.source.find("fusebox::op::log("), r.source.find("// stage 2")) << r.source;
    EXPECT_GT(r.source.find("fusebox::op::log("), r.source.find("// stage 1")) << r.source;
  }
  // Layernorm's rstd, rsqrt(var + eps) over [rows, 1], and softmax's
  // division by the row's sum, whose divisor is prepared once.
  for (auto [norm, once] : {std::pair{Norm::LayerNormFwd, "fusebox::op::rsqrt("},
                            {Norm::RmsNormFwd, "fusebox::op::rsqrt("},
                            {Norm::SoftmaxFwd, "fusebox::op::approx_divisor("}}) {
    SCOPED_TRACE(normName(norm));
    PythonDefinition def = normDefinition(norm, DataType::BFloat16);
    auto s = builtinScheduler("inner_persistent");
    s->configure({});
    SchedulerRun r = expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion,
                                                     normInputs(def, 6, 1024, 5), device());
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    EXPECT_EQ(count(r.source, once), 1u) << r.source;
    if (norm == Norm::SoftmaxFwd) {
      EXPECT_NE(r.source.find("fusebox::op::div_approx(vc0[k][v], rdiv"), std::string::npos)
          << r.source;
    }
  }
}

// A row value read at another row's element is refused as a reduction
// result is (the analysis finds it first): each thread holds its own row's.
TEST(InnerPersistentRejects, AnElementReadingAnotherRowsValue) {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* l = unaryOp(UnaryOpType::Log, max(x, {1}));
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(l, {true, false})));
  expectReason(runTime("inner_persistent", *f, {tensorInfo(DataType::Float, {5, 5})}),
               "at another kept element");
}

}  // namespace
