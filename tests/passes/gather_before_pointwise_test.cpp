// gather_before_pointwise: a gather of elementwise math becomes the math of
// gathered operands, with the same values.
#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using namespace pass_testing;

// Indices in [0, range), different per element.
Tensor indexTensor(const std::vector<int64_t>& sizes, int64_t range, int salt = 0) {
  Tensor t = Tensor::empty(DataType::Int64, sizes);
  testing::fillRowMajor(
      t, [&](int64_t linear) { return static_cast<double>((linear * 5 + salt) % range); });
  return t;
}

// Cross-entropy as users write it: log-softmax over rows, the target's entry
// by take_along_axis, the mean of its negation. Returns the log-softmax.
TensorView* crossEntropy(Fusion& f, TensorView* logits, TensorView* target) {
  Val* rows = logits->axis(0)->extent();
  TensorView* x = castOp(DataType::Float, logits);
  TensorView* shifted = sub(x, broadcastInDim(max(x, {1}), {rows, logits->axis(1)->extent()}, {0}));
  TensorView* lse = unaryOp(UnaryOpType::Log, sum(exp(shifted), {1}));
  TensorView* logp = sub(shifted, broadcastInDim(lse, {rows, logits->axis(1)->extent()}, {0}));
  TensorView* picked = takeAlongAxis(logp, broadcastInDim(target, {rows, f.one()}, {0}), /*dim=*/1);
  f.addOutput(div(sum(neg(squeeze(picked, {1})), {0}), rows));
  return logp;
}

TEST(GatherBeforePointwise, CrossEntropyPicksTheLogitsNotTheLogSoftmax) {
  Fusion f;
  TensorView* logits = defineSymbolicTensor(f, 2, DataType::BFloat16);
  TensorView* target = defineSymbolicTensor(f, 1, DataType::Int64);
  crossEntropy(f, logits, target);
  Applied a = applyPass("gather_before_pointwise", f);
  EXPECT_TRUE(a.changed);
  // The gather reads the fusion input; the whole log-softmax is gone.
  int gathers = 0;
  for (Expr* e : f.tensorExprs()) {
    if (e->op() != OpType::TakeAlongAxis) continue;
    ++gathers;
    EXPECT_EQ(e->input(0), logits);
  }
  EXPECT_EQ(gathers, 1);
  EXPECT_EQ(opsOf(*a.before),
            "cast max broadcast expand sub exp sum log broadcast expand sub broadcast expand "
            "take_along_axis squeeze neg sum div");
  EXPECT_EQ(opsOf(f),
            "cast max broadcast expand sub exp sum log broadcast broadcast expand take_along_axis "
            "cast sub sub squeeze neg sum div");
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::BFloat16, {6, 37}), indexTensor({6}, 37)});
  // Running it again finds nothing more to move.
  EXPECT_FALSE(applyPass("gather_before_pointwise", f).changed);
}

TEST(GatherBeforePointwise, SeveralIndicesARowCutTheExpansionToTheirCount) {
  // take_along_axis with 3 indices a row: per-row operands are expanded to
  // 3, not to the row's width.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2, DataType::Float);
  TensorView* idx = defineSymbolicTensor(f, 2, DataType::Int64);
  Val* rows = x->axis(0)->extent();
  TensorView* centered = sub(x, broadcastInDim(sum(x, {1}), {rows, x->axis(1)->extent()}, {0}));
  TensorView* y = mul(exp(centered), f.constantDouble(0.5));
  f.addOutput(takeAlongAxis(y, idx, 1));
  Applied a = applyPass("gather_before_pointwise", f);
  EXPECT_TRUE(a.changed);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {4, 9}), indexTensor({4, 3}, 9)});
}

TEST(GatherBeforePointwise, TorchGatherWithTheSourcesRowsMovesToo) {
  // gather's output has the index's shape: the rewrite needs its extents
  // off the gathered dim to be the source's (here constants; symbolic ones
  // of different inputs may differ at run time, and such a gather stays).
  Fusion f;
  TensorView* x = defineTensor(f, {5, 8}, DataType::Half);
  TensorView* b = defineTensor(f, {5, 8}, DataType::Half);
  TensorView* idx = defineTensor(f, {5, 8}, DataType::Int64);
  f.addOutput(gather(add(castOp(DataType::Float, x), castOp(DataType::Float, b)), idx, 1));
  Applied a = applyPass("gather_before_pointwise", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "gather cast gather cast add");
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::Half, {5, 8}),
                     sampleTensor(DataType::Half, {5, 8}, {}, 1), indexTensor({5, 8}, 8, 3)});
}

TEST(GatherBeforePointwise, AKeptSourceStaysAndIsGatheredFromItsInputs) {
  // The log-softmax is an output too: it is still computed, and the loss
  // reads the logits instead of it.
  Fusion f;
  TensorView* logits = defineSymbolicTensor(f, 2, DataType::Float);
  TensorView* target = defineSymbolicTensor(f, 1, DataType::Int64);
  f.addOutput(crossEntropy(f, logits, target));
  Applied a = applyPass("gather_before_pointwise", f);
  EXPECT_TRUE(a.changed);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {3, 11}), indexTensor({3}, 11)});
}

TEST(GatherBeforePointwise, WhatCannotBeRebuiltStays) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2, DataType::Float);
  TensorView* idx = defineSymbolicTensor(f, 2, DataType::Int64);
  // A scan along the gathered dim: each element depends on the ones before.
  f.addOutput(takeAlongAxis(neg(scan(ReductionOpType::Sum, x, 1)), idx, 1));
  // Random numbers: their values follow their own positions.
  f.addOutput(
      takeAlongAxis(add(x, uniform(f, {x->axis(0)->extent(), x->axis(1)->extent()},
                                   f.constantDouble(0), f.constantDouble(1), DataType::Float)),
                    idx, 1));
  // A gather of an input (nothing to move) and of a segment_set (a hint).
  f.addOutput(takeAlongAxis(x, idx, 1));
  f.addOutput(takeAlongAxis(segmentSet(neg(x)), idx, 1));
  // gather with fewer rows than the source: its operands would need cutting
  // outside the gathered dim too.
  TensorView* short_idx = defineTensor(f, {2, 3}, DataType::Int64);
  f.addOutput(gather(neg(x), short_idx, 1));
  Applied a = applyPass("gather_before_pointwise", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

}  // namespace
}  // namespace fusebox
