// extractSegment: every segment is a valid fusion, and running the segments
// of any split in dependency order gives what the complete fusion gives, on
// every example and corpus file. Plus the boundary rules one by one, on
// fusions built by hand.
#include <fusebox/ir/ops.h>
#include <fusebox/ir/verifier.h>

#include <random>

#include "segmenter_test_util.h"
#include "support/row_major_fill.h"

namespace fusebox {
namespace {

using namespace segmenter_testing;

struct Split {
  std::vector<ExtractedSegment> segments;
};

// Extracts every group (each a list of tensor exprs in topological order) and
// checks it is a valid fusion.
Split extractAll(const Fusion& f, const std::vector<std::vector<Expr*>>& groups) {
  Split s;
  for (const auto& g : groups) {
    s.segments.push_back(extractSegment(f, g));
    auto problems = findFusionProblems(*s.segments.back().fusion);
    EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems) << "\n"
                                  << printFusion(*s.segments.back().fusion);
  }
  return s;
}

std::vector<SegmentToRun> toRun(const Split& s) {
  std::vector<SegmentToRun> out;
  for (const auto& seg : s.segments) out.push_back({seg.fusion.get(), &seg.inputs, &seg.outputs});
  return out;
}

void expectSplitMatches(const Program& p, const std::vector<std::vector<Expr*>>& groups,
                        const std::string& what) {
  Split s = extractAll(p.fusion(), groups);
  auto want = evaluateFusion(p.fusion(), p.inputs());
  auto got = runSegments(p.fusion(), toRun(s), p.inputs());
  expectSameOutputs(got, want, p.name + " " + what);
}

class ExtractEveryDefinition : public ::testing::TestWithParam<fs::path> {};

TEST_P(ExtractEveryDefinition, OneExpressionPerSegmentMatchesTheCompleteFusion) {
  Program p = loadProgram(GetParam());
  std::vector<std::vector<Expr*>> groups;
  for (Expr* e : p.fusion().tensorExprs()) groups.push_back({e});
  ASSERT_FALSE(groups.empty());
  expectSplitMatches(p, groups, "one expression per segment");
}

TEST_P(ExtractEveryDefinition, RandomContiguousGroupingsMatchTheCompleteFusion) {
  Program p = loadProgram(GetParam());
  auto exprs = p.fusion().tensorExprs();
  std::mt19937 rng(7);
  // Fusions whose constant extents keep their inputs large get fewer trials.
  int64_t elements = 0;
  for (const auto& a : p.inputs())
    if (const auto* t = std::get_if<Tensor>(&a)) elements += t->numel();
  const int trials = elements > (1 << 20) ? 2 : 6;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<std::vector<Expr*>> groups;
    std::uniform_int_distribution<size_t> length(1, 1 + exprs.size() / 2);
    for (size_t i = 0; i < exprs.size();) {
      size_t n = std::min(length(rng), exprs.size() - i);
      groups.emplace_back(exprs.begin() + i, exprs.begin() + i + n);
      i += n;
    }
    expectSplitMatches(p, groups, "grouping " + std::to_string(trial));
  }
}

TEST_P(ExtractEveryDefinition, TheWholeFusionAsOneSegmentMatches) {
  Program p = loadProgram(GetParam());
  expectSplitMatches(p, {p.fusion().tensorExprs()}, "whole");
}

INSTANTIATE_TEST_SUITE_P(Definitions, ExtractEveryDefinition,
                         ::testing::ValuesIn(definitionFiles()), [](const auto& info) {
                           std::string n = info.param.parent_path().filename().string() + "_" +
                                           info.param.stem().string();
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// ---- the boundary rules ---------------------------------------------------------------------

Tensor ramp(DataType t, std::vector<int64_t> sizes, double scale = 0.25) {
  Tensor x = Tensor::empty(t, sizes);
  testing::fillRowMajor(x, [&](int64_t i) { return static_cast<double>(i % 11 - 5) * scale; });
  return x;
}

TEST(ExtractSegment, ReductionOutputBecomesAnInputWithoutItsReductionAxisAndKeepsItsName) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = sum(t0, {1});
  TensorView* t2 = mul(t1, t1);
  f.addOutput(t2);
  Expr* mul_expr = t2->definition();
  std::unordered_map<const Val*, Val*> map;
  auto seg = extractSegment(f, {mul_expr}, &map);
  ASSERT_EQ(seg.inputs, std::vector<Val*>{t1});
  ASSERT_EQ(seg.outputs, std::vector<Val*>{t2});
  auto* in = seg.fusion->inputs()[0]->as<TensorView>();
  EXPECT_EQ(in->logical().size(), 1u);  // the reduction axis is gone
  EXPECT_FALSE(in->hasReduction());
  EXPECT_EQ(in->toString(), t1->toString());
  EXPECT_EQ(map.at(t2)->toString(), t2->toString());
  // The kept extent is a free symbolic extent of the new input.
  EXPECT_EQ(in->axis(0)->extent()->definition(), nullptr);
  EXPECT_FALSE(in->axis(0)->extent()->isConst());
  EXPECT_TRUE(findFusionProblems(*seg.fusion).empty());

  auto first = extractSegment(f, {t1->definition()});
  Tensor x = ramp(DataType::Float, {3, 4});
  expectSameOutputs(runSegments(f,
                                {{first.fusion.get(), &first.inputs, &first.outputs},
                                 {seg.fusion.get(), &seg.inputs, &seg.outputs}},
                                {x}),
                    evaluateFusion(f, {x}), "sum then mul");
}

TEST(ExtractSegment, ExtentOfATensorTheSegmentDoesNotReadBecomesAScalarInput) {
  // T3 = expand(T1[i, 1], [-1, T0.size(0)]): the segment of the expand reads T1
  // only, so T0's extent must come in as a scalar.
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  TensorView* t1 = defineTensor(f, {-1, 1}, DataType::Float);
  TensorView* t2 = expand(t1, {f.constantInt(-1), t0->axis(0)->extent()});
  TensorView* t3 = add(t2, t0);
  f.addOutput(t3);
  auto seg = extractSegment(f, {t2->definition()});
  ASSERT_EQ(seg.inputs.size(), 2u);
  EXPECT_EQ(seg.inputs[0], t1);
  EXPECT_EQ(seg.inputs[1], t0->axis(0)->extent());
  EXPECT_TRUE(seg.fusion->inputs()[1]->isScalar());
  EXPECT_TRUE(findFusionProblems(*seg.fusion).empty());

  auto others = f.tensorExprs();
  others.erase(std::find(others.begin(), others.end(), t2->definition()));
  auto rest = extractSegment(f, others);
  Tensor a = ramp(DataType::Float, {5});
  Tensor b = ramp(DataType::Float, {3, 1}, 1.0);
  expectSameOutputs(runSegments(f,
                                {{seg.fusion.get(), &seg.inputs, &seg.outputs},
                                 {rest.fusion.get(), &rest.inputs, &rest.outputs}},
                                {a, b}),
                    evaluateFusion(f, {a, b}), "expand then add");
}

TEST(ExtractSegment, DerivedExtentsOfABoundaryTensorBecomeFreeExtentsOfTheInput) {
  // T1 = reshape(T0, [i0 * i1]): across the boundary its extent is just a size.
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  Val* numel = mul(t0->axis(0)->extent(), t0->axis(1)->extent());
  TensorView* t1 = reshape(t0, {numel});
  TensorView* t2 = exp(t1);
  f.addOutput(t2);
  ASSERT_NE(t1->axis(0)->extent()->definition(), nullptr);
  auto seg = extractSegment(f, {t2->definition()});
  ASSERT_EQ(seg.inputs, std::vector<Val*>{t1});
  auto* in = seg.fusion->inputs()[0]->as<TensorView>();
  EXPECT_EQ(in->axis(0)->extent()->definition(), nullptr);
  // The output's extent is the input's, not i0 * i1 (nothing here knows i0, i1).
  auto* out = seg.fusion->outputs()[0]->as<TensorView>();
  EXPECT_EQ(out->axis(0)->extent(), in->axis(0)->extent());

  // The reshape's own segment computes i0 * i1 from its input's extents.
  auto first = extractSegment(f, {t1->definition()});
  ASSERT_EQ(first.inputs, std::vector<Val*>{t0});
  auto* reshaped = first.fusion->outputs()[0]->as<TensorView>();
  EXPECT_EQ(reshaped->axis(0)->extent()->inlineString(), "( i0 * i1 )");
  Tensor x = ramp(DataType::Float, {2, 3});
  expectSameOutputs(runSegments(f,
                                {{first.fusion.get(), &first.inputs, &first.outputs},
                                 {seg.fusion.get(), &seg.inputs, &seg.outputs}},
                                {x}),
                    evaluateFusion(f, {x}), "reshape then exp");
}

TEST(ExtractSegment, ScalarArithmeticOnScalarInputsIsCopiedAndItsLeavesBecomeInputs) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  Scalar* s = defineScalar(f, DataType::Double);
  TensorView* t1 = exp(t0);
  Val* twice = mul(s, f.constantDouble(2.0));
  TensorView* t2 = add(t1, twice);
  f.addOutput(t2);
  auto seg = extractSegment(f, {t2->definition()});
  ASSERT_EQ(seg.inputs, (std::vector<Val*>{t1, s}));
  // The multiplication is inside the segment, with its constant copied.
  int64_t constants = 0, scalar_exprs = 0;
  for (Val* v : seg.fusion->allVals())
    if (v->isScalar() && v->as<Scalar>()->isConst()) ++constants;
  for (Expr* e : seg.fusion->allExprs())
    if (!e->isTensorOp()) ++scalar_exprs;
  EXPECT_EQ(constants, 1);
  EXPECT_EQ(scalar_exprs, 1);
}

TEST(ExtractSegment, RequiredStrideOrdersAreCarriedAndAliasesNever) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = add(t1, f.constantDouble(1.0));
  f.addOutput(t2);
  f.setRequiredStrideOrder(t2, {0, 1});
  f.aliasOutputToInput(t2, t0);

  auto alone = extractSegment(f, {t2->definition()});
  auto* out = alone.fusion->outputs()[0]->as<TensorView>();
  ASSERT_NE(alone.fusion->requiredStrideOrder(out), nullptr);
  EXPECT_EQ(*alone.fusion->requiredStrideOrder(out), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(alone.fusion->aliasedInput(out), nullptr);  // T0 is not an input here

  // Not even with the aliased input inside: a segment writes fresh outputs,
  // and the runtime writes T2 into T0 after every segment has read T0.
  auto both = extractSegment(f, {t1->definition(), t2->definition()});
  auto* out2 = both.fusion->outputs()[0]->as<TensorView>();
  EXPECT_EQ(both.fusion->aliasedInput(out2), nullptr);
  EXPECT_EQ(both.fusion->inputs()[0]->name(), t0->name());
  EXPECT_TRUE(findFusionProblems(*both.fusion).empty());
}

TEST(ExtractSegment, LayoutsOfInputsAndIntermediates) {
  // A fusion input keeps its declared contiguity; an intermediate with an
  // allocation hint arrives dense in that order.
  Fusion f;
  TensorView* t0 = defineTensor(f, {-1, -1}, DataType::Float, {false, true});
  TensorView* t1 = exp(t0);
  t1->setStrideOrder({0, 1});
  TensorView* t2 = neg(t1);
  TensorView* t3 = mul(t2, t0);
  f.addOutput(t3);
  auto seg = extractSegment(f, {t2->definition(), t3->definition()});
  ASSERT_EQ(seg.inputs, (std::vector<Val*>{t1, t0}));
  auto* in1 = seg.fusion->inputs()[0]->as<TensorView>();
  auto* in0 = seg.fusion->inputs()[1]->as<TensorView>();
  EXPECT_EQ(in1->strideOrder(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(in1->contiguity(), (std::vector<std::optional<bool>>{true, true}));
  EXPECT_EQ(in0->contiguity(), t0->contiguity());
}

TEST(ExtractSegment, OutputsAreWhatOthersReadOrTheFusionReturns) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  TensorView* t1 = exp(t0);  // read by T3 outside the segment
  TensorView* t2 = neg(t1);  // read only inside
  TensorView* t3 = mul(t2, t1);
  TensorView* t4 = sum(t3, {0});
  f.addOutput(t4);
  f.addOutput(t2);  // ...and returned
  auto seg = extractSegment(f, {t1->definition(), t2->definition(), t3->definition()});
  EXPECT_EQ(seg.outputs, (std::vector<Val*>{t2, t3}));
  auto first = extractSegment(f, {t1->definition()});
  EXPECT_EQ(first.outputs, std::vector<Val*>{t1});
}

TEST(ExtractSegment, ExpressionsOutOfOrderAreAnInternalError) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  TensorView* t1 = exp(t0);
  TensorView* t2 = neg(t1);
  f.addOutput(t2);
  EXPECT_THROW(extractSegment(f, {t2->definition(), t1->definition()}), InternalError);
  Fusion other;
  TensorView* u = exp(defineSymbolicTensor(other, 1));
  other.addOutput(u);
  EXPECT_THROW(extractSegment(f, {u->definition()}), InternalError);
}

}  // namespace
}  // namespace fusebox
