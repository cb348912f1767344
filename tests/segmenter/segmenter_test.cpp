// The segmentation of representative fusions, pinned with the test schedulers
// (tests/scheduler_fixtures): what splits where, what stays whole, what a
// scheduler that throws or rejects does to it, and the error when nothing
// accepts an expression. Every segmentation is also run (through the plans the
// schedulers make) and compared with the evaluator on the complete fusion.
#include <fusebox/ir/ops.h>

#include <algorithm>

#include <gmock/gmock.h>

#include "segmenter_test_util.h"
#include "support/row_major_fill.h"
#include "support/scheduler_answers.h"

namespace fusebox {
namespace {

using namespace segmenter_testing;
using namespace fusebox::test;
using ::testing::HasSubstr;

struct Segmented {
  std::unique_ptr<SegmentedFusion> result;
  std::vector<SegmenterLogEntry> log;
  std::unique_ptr<Segmenter> segmenter;
};

Segmented segmentWith(const Fusion& f, const std::vector<Argument>& inputs,
                      const std::vector<std::string>& schedulers, bool forward_inputs = true) {
  Segmented s;
  s.segmenter = std::make_unique<Segmenter>(schedulersNamed(schedulers));
  s.segmenter->setForwardInputs(forward_inputs);
  FusionRuntimeFacts facts = factsFor(f, inputs);
  s.result = s.segmenter->segment(f, facts, &s.log);
  return s;
}

// Runs every group through the plan its scheduler makes and compares with the
// evaluator on the complete fusion.
void expectRunsLikeTheCompleteFusion(const Segmented& s, const Fusion& f,
                                     const std::vector<Argument>& inputs,
                                     const std::function<std::vector<Argument>()>& fresh_inputs) {
  FusionRuntimeFacts facts = factsFor(f, inputs);
  std::vector<std::unique_ptr<SegmentPlan>> plans;
  std::vector<SegmentToRun> run;
  for (const auto& g : s.result->groups()) {
    const SchedulerEntry* entry = nullptr;
    for (const auto& e : s.segmenter->schedulers())
      if (e.plugin.name == g.scheduler) entry = &e;
    ASSERT_NE(entry, nullptr) << g.scheduler;
    RuntimeInfo info = facts.forSegment(*g.fusion, g.inputs);
    plans.push_back(planOf(*entry->scheduler, *g.fusion, info));
    auto* plan = dynamic_cast<const HostPlan*>(plans.back().get());
    ASSERT_NE(plan, nullptr);
    run.push_back({g.fusion.get(), &g.inputs, &g.outputs, plan});
  }
  expectSameOutputs(runSegments(f, run, fresh_inputs()), evaluateFusion(f, fresh_inputs()),
                    "segmented run");
}

void expectRunsLikeTheCompleteFusion(const Segmented& s, const Program& p) {
  expectRunsLikeTheCompleteFusion(s, p.fusion(), p.inputs(), [&] { return p.inputs(); });
}

std::vector<std::string> opsOf(const SegmentGroup& g) {
  std::vector<std::string> ops;
  for (const Expr* e : g.exprs) ops.push_back(e->opName());
  return ops;
}

int64_t countEntries(const std::vector<SegmenterLogEntry>& log, const std::string& scheduler,
                     const std::string& reason_part) {
  int64_t n = 0;
  for (const auto& e : log)
    if (e.scheduler == scheduler && e.reason.find(reason_part) != std::string::npos) ++n;
  return n;
}

Tensor ramp(std::vector<int64_t> sizes) {
  Tensor x = Tensor::empty(DataType::Float, sizes);
  testing::fillRowMajor(x, [&](int64_t i) { return static_cast<double>(i % 7 - 3) * 0.25; });
  return x;
}

TEST(Segmenter, GeluBiasGradSplitsIntoItsPointwisePartAndItsReduction) {
  Program p = loadExample("gelu_bias_grad.py");
  auto s = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "single_reduction"});
  const auto& groups = s.result->groups();
  ASSERT_EQ(groups.size(), 2u) << s.result->toString();
  auto all = p.fusion().tensorExprs();
  // The sum reads T30 (grad_x), the output of the pointwise part: pointwise first.
  EXPECT_EQ(groups[0].scheduler, "pointwise_only");
  EXPECT_EQ(groups[0].exprs, std::vector<Expr*>(all.begin(), all.end() - 1));
  EXPECT_EQ(groups[1].scheduler, "single_reduction");
  EXPECT_EQ(opsOf(groups[1]), std::vector<std::string>{"sum"});
  ASSERT_EQ(s.result->edges().size(), 1u);
  EXPECT_EQ(s.result->edges()[0].from, 0);
  EXPECT_EQ(s.result->edges()[0].to, 1);
  EXPECT_EQ(s.result->edges()[0].value, all.back()->input(0));
  EXPECT_EQ(groups[1].inputs, std::vector<Val*>{all.back()->input(0)});
  // The whole fusion was offered first and refused by both; of the single
  // expressions only the sum was refused (by pointwise_only, tried first); every
  // refused merge was one of the pointwise groups with the sum.
  const int64_t sum_group = static_cast<int64_t>(all.size()) - 1;
  const std::string sum_name = all.back()->output(0)->toString();     // the script's T31
  const std::string first_name = all.front()->output(0)->toString();  // T4's broadcast
  ASSERT_EQ(all.front()->opName(), "broadcast");
  int64_t whole = 0, single = 0, merges = 0;
  for (const auto& e : s.log) {
    if (e.stage == "whole fusion") {
      ++whole;
    } else if (e.stage == "single expression") {
      ++single;
      EXPECT_EQ(e.groups, std::vector<int64_t>{sum_group});
      EXPECT_EQ(e.reason, "compile time: " + sum_name + " = sum is not pointwise");
    } else {
      ++merges;
      ASSERT_EQ(e.groups.size(), 2u);
      EXPECT_EQ(e.groups[1], sum_group);
      EXPECT_EQ(e.group_labels[1], sum_name);
    }
  }
  EXPECT_EQ(whole, 2) << formatSegmenterLog(s.log);
  EXPECT_EQ(single, 1) << formatSegmenterLog(s.log);
  EXPECT_GT(merges, 0) << formatSegmenterLog(s.log);
  EXPECT_EQ(s.log[0].reason, "compile time: " + sum_name + " = sum is not pointwise");
  EXPECT_EQ(s.log[1].reason, "compile time: " + first_name +
                                 " = broadcast is neither the reduction nor a set or cast");
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(Segmenter, APointwiseChainAcceptedWholeStaysOneGroup) {
  Fusion f;
  TensorView* t = defineSymbolicTensor(f, 2);
  TensorView* x = t;
  for (int i = 0; i < 6; ++i) x = i % 2 ? tanh(add(x, t)) : neg(x);
  f.addOutput(x);
  std::vector<Argument> in = {ramp({3, 4})};
  auto s = segmentWith(f, in, {"single_reduction", "pointwise_only"});
  ASSERT_EQ(s.result->groups().size(), 1u);
  EXPECT_EQ(s.result->groups()[0].scheduler, "pointwise_only");
  EXPECT_EQ(s.result->groups()[0].exprs, f.tensorExprs());
  EXPECT_TRUE(s.result->edges().empty());
  // Only single_reduction, tried first, refused the whole fusion.
  ASSERT_EQ(s.log.size(), 1u);
  EXPECT_EQ(s.log[0].scheduler, "single_reduction");
  expectRunsLikeTheCompleteFusion(s, f, in, [&] { return in; });
}

TEST(Segmenter, APointwiseChainWithAReductionInTheMiddleMergesBackIntoThreeGroups) {
  Fusion f;
  TensorView* t = defineSymbolicTensor(f, 2);
  TensorView* a = exp(neg(t));
  TensorView* r = sum(a, {1}, true);
  TensorView* b = tanh(add(mul(r, r), t));
  f.addOutput(b);
  std::vector<Argument> in = {ramp({3, 5})};
  auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"});
  const auto& groups = s.result->groups();
  ASSERT_EQ(groups.size(), 3u) << s.result->toString();
  EXPECT_EQ(opsOf(groups[0]), (std::vector<std::string>{"neg", "exp"}));
  EXPECT_EQ(opsOf(groups[1]), std::vector<std::string>{"sum"});
  // keepdim adds a broadcast after the sum: pointwise, so it joins the rest.
  EXPECT_EQ(opsOf(groups[2]), (std::vector<std::string>{"broadcast", "mul", "add", "tanh"}));
  expectRunsLikeTheCompleteFusion(s, f, in, [&] { return in; });
}

TEST(Segmenter, TheSmallIssue785ExampleGivesTwoIndependentGroups) {
  Program p = loadExample("segmented_issue785.py");
  auto s = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "single_reduction"});
  const auto& groups = s.result->groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(opsOf(groups[0]), std::vector<std::string>{"pow"});
  EXPECT_EQ(groups[0].scheduler, "pointwise_only");
  EXPECT_EQ(opsOf(groups[1]), std::vector<std::string>{"sum"});
  EXPECT_EQ(groups[1].scheduler, "single_reduction");
  EXPECT_TRUE(s.result->edges().empty());
  // Whole fusion: both refuse; single expressions: each refused by the other one
  // where it comes first (pointwise_only refuses the sum).
  EXPECT_EQ(countEntries(s.log, "pointwise_only", "T4_g = sum is not pointwise"), 2);
  EXPECT_EQ(countEntries(s.log, "single_reduction", "pow is neither the reduction"), 1);
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(Segmenter, ADiamondThatNaiveMergingWouldCloseIntoACycleStaysInThreeGroups) {
  // T1 = exp(T0); T2 = sum(T1); T3 = add(T1, T2). {T1, T3} is pointwise, but
  // merging it would leave T2 both after and before the merged group.
  // (Input forwarding would recompute exp in both groups instead: see
  // SegmenterForwarding below.)
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = sum(t1, {1}, true);
  TensorView* t3 = add(t1, t2);
  f.addOutput(t3);
  std::vector<Argument> in = {ramp({4, 3})};
  auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"}, /*forward_inputs=*/false);
  ASSERT_EQ(s.result->groups().size(), 3u) << s.result->toString();
  EXPECT_EQ(countEntries(s.log, "(segmenter)", "would create a cycle"), 1)
      << formatSegmenterLog(s.log);
  for (const auto& e : s.result->edges()) EXPECT_LT(e.from, e.to);
  expectRunsLikeTheCompleteFusion(s, f, in, [&] { return in; });
}

TEST(Segmenter, ASchedulerThatThrowsCountsAsRejectingAndTheLogSaysWhy) {
  Program p = loadExample("gelu_bias_grad.py");
  auto plain = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "single_reduction"});
  auto s =
      segmentWith(p.fusion(), p.inputs(), {"throws_always", "pointwise_only", "single_reduction"});
  ASSERT_EQ(s.result->groups().size(), plain.result->groups().size());
  for (size_t i = 0; i < plain.result->groups().size(); ++i) {
    EXPECT_EQ(s.result->groups()[i].exprs, plain.result->groups()[i].exprs);
    EXPECT_EQ(s.result->groups()[i].scheduler, plain.result->groups()[i].scheduler);
  }
  int64_t threw = countEntries(s.log, "throws_always", "throws_always throws from");
  EXPECT_GT(threw, 0);
  for (const auto& e : s.log)
    if (e.scheduler == "throws_always") {
      EXPECT_THAT(e.reason, HasSubstr("threw: plugin 'throws_always'"));
      EXPECT_THAT(e.reason, HasSubstr("failed in propose"));
      // A throw is no verdict on the structure: asked again next time.
      EXPECT_THAT(e.reason, HasSubstr("run time: threw:"));
    }
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(SchedulerAnswer, IsARefusalOrAProposalNeverBoth) {
  Answer refused = Refusal::ofStructure("no reductions here");
  ASSERT_FALSE(refused.proposed());
  EXPECT_TRUE(refused.refusal().structural());
  EXPECT_EQ(refused.refusal().describe(), "compile time: no reductions here");
  EXPECT_EQ(Refusal::ofInputs("too wide").describe(), "run time: too wide");
  // A null proposal is a refusal saying so, not a proposal.
  Answer nothing = std::unique_ptr<LazyProposal>();
  ASSERT_FALSE(nothing.proposed());
  EXPECT_EQ(nothing.refusal().describe(), "run time: the scheduler proposed nothing");
  Answer proposed = std::make_unique<LazyProposal>(
      [] { return std::unique_ptr<HeuristicParams>(); },
      [](const HeuristicParams&) { return std::unique_ptr<SegmentPlan>(); });
  ASSERT_TRUE(proposed.proposed());
  EXPECT_THROW((void)proposed.refusal(), std::logic_error);
  std::unique_ptr<Proposal> proposal = proposed.takeProposal();
  // Params that are not made are an error, not a null the host trips on.
  EXPECT_THROW((void)proposal->params(), std::logic_error);
}

TEST(Segmenter, ASchedulerThatRejectsEverythingFirstChangesNothing) {
  Program p = loadExample("gelu_bias_grad.py");
  auto s =
      segmentWith(p.fusion(), p.inputs(), {"reject_all", "pointwise_only", "single_reduction"});
  ASSERT_EQ(s.result->groups().size(), 2u);
  EXPECT_EQ(s.result->groups()[0].scheduler, "pointwise_only");
  EXPECT_EQ(s.result->groups()[1].scheduler, "single_reduction");
  EXPECT_GT(countEntries(s.log, "reject_all", "compile time: reject_all rejects every segment"), 0);
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(Segmenter, RunTimeRejectionsSeeTheRealSizes) {
  Program p = loadExample("segmented_issue785.py");  // shrunk to [16, 9, 9] inputs
  auto s =
      segmentWith(p.fusion(), p.inputs(), {"runtime_reject", "pointwise_only", "single_reduction"});
  ASSERT_EQ(s.result->groups().size(), 2u);
  // The whole fusion's outputs are [16, 9, 9] and [9]; each single
  // expression's segment has one of them.
  EXPECT_EQ(s.log[0].reason,
            "run time: rejected at run time with outputs T3_g [16, 9, 9], T4_g [9]")
      << formatSegmenterLog(s.log);
  EXPECT_EQ(countEntries(s.log, "runtime_reject", "with outputs T3_g [16, 9, 9]"), 2);
  EXPECT_EQ(countEntries(s.log, "runtime_reject", "with outputs T4_g [9]"), 1);
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(Segmenter, AnExpressionNoSchedulerAcceptsIsAUserErrorNamingItAndEveryReason) {
  Program p = loadExample("layer_norm.py");
  const Expr* var_mean = nullptr;
  for (const Expr* e : p.fusion().tensorExprs())
    if (e->op() == OpType::VarMean) var_mean = e;
  ASSERT_NE(var_mean, nullptr);
  try {
    segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "throws_always", "single_reduction"});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("no scheduler accepts this expression"));
    EXPECT_THAT(m, HasSubstr(printExpr(var_mean)));
    EXPECT_THAT(m, HasSubstr("pointwise_only: compile time: T3_g = var_mean is not pointwise"));
    EXPECT_THAT(m, HasSubstr("throws_always: run time: threw:"));
    EXPECT_THAT(m, HasSubstr("single_reduction: compile time: T3_g = var_mean is not a plain "
                             "reduction"));
  }
  Fusion f;
  TensorView* t = defineSymbolicTensor(f, 1);
  f.addOutput(neg(t));
  std::vector<Argument> in = {ramp({3})};
  try {
    segmentWith(f, in, {});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no scheduler is configured"));
    EXPECT_THAT(e.what(), HasSubstr("neg("));
  }
}

TEST(Segmenter, ASegmentSetKeepsItsProducerAndConsumerApart) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = segmentSet(t1);
  TensorView* t3 = neg(t2);
  f.addOutput(t3);
  std::vector<Argument> in = {ramp({2, 3})};
  auto s = segmentWith(f, in, {"accept_all_host"});
  ASSERT_EQ(s.result->groups().size(), 2u);
  EXPECT_EQ(opsOf(s.result->groups()[0]), (std::vector<std::string>{"exp", "segment_set"}));
  EXPECT_EQ(opsOf(s.result->groups()[1]), std::vector<std::string>{"neg"});
  EXPECT_EQ(countEntries(s.log, "(segmenter)", "segment_set"), 2);  // whole fusion, the merge
  expectRunsLikeTheCompleteFusion(s, f, in, [&] { return in; });
}

TEST(Segmenter, CompileTimeDecisionsAreCachedPerSegmentStructure) {
  // Eight structurally equal exps, then a sum: the singles stage asks each
  // scheduler about "exp" once.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  for (int i = 0; i < 8; ++i) x = exp(x);
  f.addOutput(sum(x, {0}));
  std::vector<Argument> in = {ramp({2, 3})};
  Segmenter segmenter(schedulersNamed({"single_reduction", "pointwise_only"}));
  FusionRuntimeFacts facts = factsFor(f, in);
  auto result = segmenter.segment(f, facts);
  ASSERT_EQ(result->groups().size(), 2u);
  const auto first = segmenter.counters();
  // single_reduction refused "exp" for its structure once; the other seven
  // were answered from memory.
  EXPECT_GE(first.structural_refusals_reused, 7);
  // Segmenting again learns no new structural refusal: each comes from
  // memory, and only proposals (which depend on the inputs) are asked again.
  FusionRuntimeFacts again = factsFor(f, in);
  auto second = segmenter.segment(f, again);
  EXPECT_EQ(segmenter.counters().structural_refusals_kept, first.structural_refusals_kept);
  EXPECT_GT(segmenter.counters().structural_refusals_reused, first.structural_refusals_reused);
  EXPECT_GT(segmenter.counters().proposals_asked, first.proposals_asked);
  EXPECT_EQ(second->toString(), result->toString());
}

TEST(Segmenter, AFusionWithoutTensorExpressionsHasNoGroups) {
  Fusion f;
  TensorView* t = defineSymbolicTensor(f, 1);
  f.addOutput(t);
  std::vector<Argument> in = {ramp({3})};
  auto s = segmentWith(f, in, {"pointwise_only"});
  EXPECT_TRUE(s.result->groups().empty());
  EXPECT_THAT(s.result->toString(), HasSubstr("Segmented fusion: 0 groups"));
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

using namespace segmenter_testing;

// x (bf16) -> cast to float -> read by a row sum and by the pointwise part
// after it: the normalization shape whose split input forwarding is for.
struct CastReadTwice {
  Fusion f;
  Expr* cast = nullptr;
  TensorView* as_float = nullptr;
  CastReadTwice() {
    TensorView* x = defineSymbolicTensor(f, 2, DataType::BFloat16);
    as_float = castOp(DataType::Float, x);
    cast = as_float->definition();
    TensorView* total = sum(as_float, {1}, true);
    f.addOutput(castOp(DataType::BFloat16, sub(as_float, total)));
  }
  std::vector<Argument> inputs() const {
    Tensor x = Tensor::empty(DataType::BFloat16, {4, 6});
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 6; ++j) x.setDouble({i, j}, static_cast<double>((i * 6 + j) % 5) - 2);
    return {x};
  }
};

bool readsValue(const SegmentGroup& g, const Val* v) {
  return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end();
}

TEST(SegmenterForwarding, ACastOfAnInputReadTwiceIsRecomputedByEachGroupInsteadOfPassedOn) {
  CastReadTwice c;
  const auto in = c.inputs();
  auto s = segmentWith(c.f, in, {"pointwise_only", "single_reduction"});
  const auto& groups = s.result->groups();
  ASSERT_EQ(groups.size(), 2u) << s.result->toString();
  EXPECT_EQ(groups[0].scheduler, "single_reduction");
  EXPECT_EQ(groups[1].scheduler, "pointwise_only");
  for (const auto& g : groups) {
    // Each group reads the bf16 input and casts it itself.
    EXPECT_EQ(g.forwarded, std::vector<Expr*>{c.cast}) << s.result->toString();
    EXPECT_TRUE(readsValue(g, c.f.inputs()[0])) << g.id;
    EXPECT_FALSE(readsValue(g, c.as_float)) << g.id;
    EXPECT_TRUE(std::find(g.exprs.begin(), g.exprs.end(), c.cast) == g.exprs.end());
    // The group's own fusion holds the cast, first.
    ASSERT_FALSE(g.fusion->tensorExprs().empty());
    EXPECT_EQ(g.fusion->tensorExprs()[0]->op(), OpType::Cast);
  }
  EXPECT_EQ(s.result->groupOf(c.cast), -1);
  ASSERT_EQ(s.result->edges().size(), 1u);
  EXPECT_NE(s.result->edges()[0].value, c.as_float);
  EXPECT_THAT(s.result->toString(), HasSubstr("(+1 forwarded)"));
  EXPECT_THAT(s.result->toString(), HasSubstr("recomputed from the fusion inputs (forwarded)"));
  expectRunsLikeTheCompleteFusion(s, c.f, in, [&] { return c.inputs(); });
}

TEST(SegmenterForwarding, OffTheCastRunsInOneGroupThatPassesTheFloatCopyOn) {
  CastReadTwice c;
  const auto in = c.inputs();
  auto s = segmentWith(c.f, in, {"pointwise_only", "single_reduction"}, /*forward_inputs=*/false);
  bool float_copy_crosses = false;
  for (const auto& e : s.result->edges()) float_copy_crosses |= e.value == c.as_float;
  EXPECT_TRUE(float_copy_crosses) << s.result->toString();
  EXPECT_GE(s.result->groupOf(c.cast), 0);
  for (const auto& g : s.result->groups()) EXPECT_TRUE(g.forwarded.empty());
  expectRunsLikeTheCompleteFusion(s, c.f, in, [&] { return c.inputs(); });
}

// The test reduction scheduler takes a sum with casts but not with an exp
// before it: forwarding the exp would push the sum off its scheduler, so the
// exp stays a group of its own and the diamond keeps its three groups.
TEST(SegmenterForwarding, AChainAReadersSchedulerWouldNotTakeIsNotForwarded) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = sum(t1, {1}, true);
  f.addOutput(add(t1, t2));
  std::vector<Argument> in = {ramp({4, 3})};
  auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"});
  ASSERT_EQ(s.result->groups().size(), 3u) << s.result->toString();
  for (const auto& g : s.result->groups()) EXPECT_TRUE(g.forwarded.empty());
  EXPECT_EQ(countEntries(s.log, "(segmenter)", "would create a cycle"), 1);
  expectRunsLikeTheCompleteFusion(s, f, in, [&] { return in; });
}

// What is not forwarded: a chain with a single reader (it merges with it),
// an input something else also reads, and a chain whose value is an output.
TEST(SegmenterForwarding, OnlyChainsFromAnInputWhoseValueSeveralExpressionsReadAreForwarded) {
  auto forwardedCount = [](const Fusion& f, const std::vector<Argument>& in) {
    auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"});
    size_t n = 0;
    for (const auto& g : s.result->groups()) n += g.forwarded.size();
    return n;
  };
  const std::vector<Argument> in = {ramp({4, 3})};
  {
    SCOPED_TRACE("one reader");
    Fusion f;
    TensorView* t = defineSymbolicTensor(f, 2);
    TensorView* r = sum(exp(t), {1}, true);
    f.addOutput(tanh(r));
    EXPECT_EQ(forwardedCount(f, in), 0u);
  }
  {
    SCOPED_TRACE("the input also read elsewhere");
    Fusion f;
    TensorView* t = defineSymbolicTensor(f, 2);
    TensorView* e = exp(t);
    f.addOutput(add(add(e, sum(e, {1}, true)), t));
    EXPECT_EQ(forwardedCount(f, in), 0u);
  }
  {
    SCOPED_TRACE("the chain's value is an output");
    Fusion f;
    TensorView* t = defineSymbolicTensor(f, 2);
    TensorView* e = exp(t);
    f.addOutput(e);
    f.addOutput(add(e, sum(e, {1}, true)));
    EXPECT_EQ(forwardedCount(f, in), 0u);
  }
  {
    SCOPED_TRACE("a two-link chain");
    Fusion f;
    TensorView* t = defineSymbolicTensor(f, 2, DataType::BFloat16);
    TensorView* e = castOp(DataType::Double, castOp(DataType::Float, t));
    f.addOutput(add(e, sum(e, {1}, true)));
    // Both links, in both groups.
    EXPECT_EQ(forwardedCount(f, CastReadTwice().inputs()), 4u);
  }
}

// A fallback (as expr_eval) only gets what no other scheduler accepts: the
// GELU-backward fusion keeps its pointwise part on pointwise_only and sends
// only the sum to the fallback, instead of the fallback taking the whole fusion.
TEST(SegmenterFallback, AFallbackGetsOnlyWhatNoOtherSchedulerAccepts) {
  Program p = loadExample("gelu_bias_grad.py");
  auto s = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "fallback_host"});
  const auto& groups = s.result->groups();
  ASSERT_EQ(groups.size(), 2u) << s.result->toString();
  EXPECT_EQ(groups[0].scheduler, "pointwise_only");
  EXPECT_EQ(groups[1].scheduler, "fallback_host");
  EXPECT_EQ(opsOf(groups[1]), std::vector<std::string>{"sum"});
  // The fallback was never offered the whole fusion nor a merge with pointwise work.
  for (const auto& e : s.log) {
    if (e.stage == "whole fusion") {
      EXPECT_NE(e.scheduler, "fallback_host");
    }
  }
  expectRunsLikeTheCompleteFusion(s, p);
}

// A non-fallback that accepts everything still takes the whole fusion: the
// tier, not the order, is what keeps expr_eval from swallowing it.
TEST(SegmenterFallback, ANonFallbackThatAcceptsEverythingTakesTheWholeFusion) {
  Program p = loadExample("gelu_bias_grad.py");
  auto s = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "accept_all_host"});
  ASSERT_EQ(s.result->groups().size(), 1u) << s.result->toString();
  EXPECT_EQ(s.result->groups()[0].scheduler, "accept_all_host");
}

// With nothing but fallbacks able to take the work, the fusion ends as one
// fallback group, as if the fallback had been offered it whole.
TEST(SegmenterFallback, OnlyFallbackWorkEndsAsOneGroup) {
  Program p = loadExample("segmented_issue785.py");  // two independent parts
  auto s = segmentWith(p.fusion(), p.inputs(), {"reject_all", "fallback_host"});
  ASSERT_EQ(s.result->groups().size(), 1u) << s.result->toString();
  EXPECT_EQ(s.result->groups()[0].scheduler, "fallback_host");
  int64_t fallback_whole = 0;
  for (const auto& e : s.log) fallback_whole += e.stage == "whole fusion (fallback)";
  EXPECT_EQ(fallback_whole, 0) << "the fallback accepted: no refusal is logged";
  expectRunsLikeTheCompleteFusion(s, p);
}

TEST(SegmenterFallback, TheSegmenterKnowsWhichSchedulersAreFallbacks) {
  Segmenter segmenter(schedulersNamed({"pointwise_only", "fallback_host"}));
  EXPECT_FALSE(segmenter.isFallback(segmenter.schedulers()[0]));
  EXPECT_TRUE(segmenter.isFallback(segmenter.schedulers()[1]));
}

}  // namespace
}  // namespace fusebox
