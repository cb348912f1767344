// remove_empty: zero-size tensors and reductions over empty axes become full().
#include <limits>

#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using namespace pass_testing;

TEST(RemoveEmpty, ZeroSizeTensorBecomesFull) {
  Fusion f;
  auto* t0 = defineTensor(f, {0, -1}, DataType::Float);
  f.addOutput(mul(neg(t0), f.constantDouble(2.0)));
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(*a.before), "neg mul");

  Fusion expected;
  auto* e0 = defineTensor(expected, {0, -1}, DataType::Float);
  expected.addOutput(full(expected, {expected.constantInt(0), e0->axis(1)->extent()},
                          expected.constantDouble(0.0), DataType::Float));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {0, 3})});
}

TEST(RemoveEmpty, SumAndProdOverAnEmptyAxisBecomeTheirIdentity) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 0}, DataType::Float);
  f.addOutput(sum(t0, {1}));
  f.addOutput(reduction(ReductionOpType::Prod, t0, {1}));
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* e0 = defineTensor(expected, {-1, 0}, DataType::Float);
  Scalar* rows = e0->axis(0)->extent();
  expected.addOutput(full(expected, {rows}, expected.constantDouble(0.0), DataType::Float));
  expected.addOutput(full(expected, {rows}, expected.constantDouble(1.0), DataType::Float));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {3, 0})});
  auto out = evaluateFusion(f, {sampleTensor(DataType::Float, {3, 0})});
  EXPECT_EQ(std::get<Tensor>(out[1]).toDoubles(), (std::vector<double>{1, 1, 1}));
}

TEST(RemoveEmpty, VarianceOfNothingIsNaNAndWelfordIsEmpty) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 0}, DataType::Float);
  auto vm = varMean(t0, {1});
  f.addOutput(vm.var);
  f.addOutput(vm.mean);
  auto w = welford(t0, {1});
  f.addOutput(w.avg);
  f.addOutput(w.var_sum);
  f.addOutput(w.n);
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "full full full full full");
  std::vector<Argument> in = {sampleTensor(DataType::Float, {2, 0})};
  expectSameResults(*a.before, f, in);
  auto out = evaluateFusion(f, in);
  EXPECT_TRUE(std::isnan(std::get<Tensor>(out[0]).toDoubles()[0]));
  EXPECT_EQ(std::get<Tensor>(out[4]).dtype(), DataType::Int64);
  EXPECT_EQ(std::get<Tensor>(out[4]).toDoubles(), (std::vector<double>{0, 0}));
}

// Found by the fuzzer: welford over the empty dim of a scalar expanded to
// [4, 0, 5] leaves [4, 5] whose dims are expanded broadcasts; the full() that
// replaces it must keep them so, or the squeeze after it is refused.
TEST(RemoveEmpty, ReplacementKeepsExpandedBroadcastDims) {
  Fusion f;
  auto* t0 = defineTensor(f, {}, DataType::Float);
  auto* b = broadcastInDim(t0, {f.constantInt(4), f.constantInt(0), f.constantInt(5)}, {});
  auto w = welford(b, {1});
  f.addOutput(squeeze(w.n, {0, 1}, /*squeeze_expanded=*/true));
  f.addOutput(w.avg);
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "full broadcast expand full broadcast expand squeeze");
  const auto* avg = f.outputs()[1]->as<TensorView>();
  ASSERT_EQ(avg->nDims(), 2);
  for (int64_t d = 0; d < 2; ++d) {
    EXPECT_TRUE(avg->axis(d)->isBroadcast()) << d;
    EXPECT_TRUE(avg->axis(d)->hasExpandedExtent()) << d;
  }
  std::vector<Argument> in = {sampleTensor(DataType::Float, {})};
  expectSameResults(*a.before, f, in);
  auto out = evaluateFusion(f, in);
  EXPECT_EQ(std::get<Tensor>(out[0]).getInt({}), 0);
  EXPECT_EQ(std::get<Tensor>(out[1]).sizes(), (std::vector<int64_t>{4, 5}));
}

TEST(RemoveEmpty, MaxOverAnEmptyAxisStaysAnError) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 0}, DataType::Float);
  f.addOutput(max(t0, {1}));
  Applied a = applyPass("remove_empty", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
  EXPECT_THROW(evaluateFusion(f, {sampleTensor(DataType::Float, {2, 0})}), UserError);
}

TEST(RemoveEmpty, CatDropsEmptyInputs) {
  Fusion f;
  auto* a0 = defineTensor(f, {-1, 2}, DataType::Float);
  auto* empty = defineTensor(f, {-1, 0}, DataType::Float);
  auto* b0 = defineTensor(f, {-1, 3}, DataType::Float);
  f.addOutput(cat({a0, empty, b0}, 1));
  f.addOutput(cat({empty, b0}, 1));
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* ea = defineTensor(expected, {-1, 2}, DataType::Float);
  defineTensor(expected, {-1, 0}, DataType::Float);
  auto* eb = defineTensor(expected, {-1, 3}, DataType::Float);
  expected.addOutput(cat({ea, eb}, 1));
  expected.addOutput(set(eb));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::Float, {2, 2}), sampleTensor(DataType::Float, {2, 0}),
                     sampleTensor(DataType::Float, {2, 3}, {}, 1)});
}

TEST(RemoveEmpty, CatKeepsInputsEmptyThroughAnotherDim) {
  // An expanded [2, 0] concatenated with an [8, 0] input on dim 0 makes
  // [10, 0]: the first input has no elements but adds 2 rows (found by the
  // fuzzer: the output lost them). The output's extents stay symbolic (an
  // expanded extent does not decide them), so the pass reaches the cat.
  Fusion f;
  auto* t0 = defineTensor(f, {1, 1}, DataType::Float);
  auto* b0 = defineTensor(f, {-1, -1}, DataType::Float);
  auto* e0 = expand(t0, {f.constantInt(2), f.constantInt(0)});
  f.addOutput(cat({e0, b0, e0}, 0));
  Applied a = applyPass("remove_empty", f);
  std::vector<Argument> in = {sampleTensor(DataType::Float, {1, 1}),
                              sampleTensor(DataType::Float, {8, 0})};
  expectSameResults(*a.before, f, in);
  EXPECT_EQ(std::get<Tensor>(evaluateFusion(f, in)[0]).sizes(), (std::vector<int64_t>{12, 0}));
}

TEST(RemoveEmpty, PadOfAnEmptyTensorIsAllPadding) {
  Fusion f;
  auto* t0 = defineTensor(f, {0}, DataType::Float);
  f.addOutput(pad(t0, {f.constantInt(1), f.constantInt(2)}, f.constantDouble(7.0)));
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "full");
  std::vector<Argument> in = {sampleTensor(DataType::Float, {0})};
  expectSameResults(*a.before, f, in);
  EXPECT_EQ(std::get<Tensor>(evaluateFusion(f, in)[0]).toDoubles(), (std::vector<double>{7, 7, 7}));
}

TEST(RemoveEmpty, MatmulOverAnEmptyContractionIsZeros) {
  Fusion f;
  auto* a0 = defineTensor(f, {2, 0}, DataType::Float);
  auto* b0 = defineTensor(f, {0, 3}, DataType::Float);
  f.addOutput(matmul(a0, b0));
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "full");
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::Float, {2, 0}), sampleTensor(DataType::Float, {0, 3})});
}

TEST(RemoveEmpty, LeavesNonEmptyAndSymbolicWorkAlone) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 4}, DataType::Float);
  auto* t1 = defineSymbolicTensor(f, 2);
  f.addOutput(sum(add(t0, t1), {0}));
  f.addOutput(cat({t0, t1}, 1));
  Applied a = applyPass("remove_empty", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
  // Symbolic extents that happen to be 0 at run time are not the pass's to know.
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::Float, {0, 4}), sampleTensor(DataType::Float, {0, 4})});
}

TEST(RemoveEmpty, EmptyOutputKeepsItsAllocationOrder) {
  Fusion f;
  auto* t0 = defineTensor(f, {2, 0, 3}, DataType::Float);
  auto* t1 = neg(t0);
  f.addOutput(t1);
  t1->setStrideOrder({2, 0, 1});
  applyPass("remove_empty", f);
  auto* out = f.outputs()[0]->as<TensorView>();
  EXPECT_EQ(out->definition()->op(), OpType::Full);
  EXPECT_EQ(out->strideOrder(), (std::vector<int64_t>{2, 0, 1}));
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

using namespace pass_testing;

// index_select of [0, 4] by an index of 1: the output is empty, but the index
// must still be checked (torch raises for index 9), so the op stays, and so
// does what reads it (replacing the reader would leave the op dead).
TEST(RemoveEmpty, IndexingThatMayRaiseStaysWithItsReaders) {
  Fusion f;
  auto* x = defineTensor(f, {0, 4}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(mul(indexSelect(x, idx, 1), f.constantDouble(2.0)));
  auto* y = defineTensor(f, {0, -1}, DataType::Float);
  f.addOutput(select(y, f.constantInt(7), 1));  // maybe out of range: kept
  auto* z = defineTensor(f, {0, 4}, DataType::Float);
  f.addOutput(select(z, f.constantInt(3), 1));  // in range: a full, as before
  Applied a = applyPass("remove_empty", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "index_select mul select full");
  Tensor index = Tensor::empty(DataType::Int64, {1});
  index.setInt({0}, 9);
  EXPECT_THROW(evaluateFusion(f, {sampleTensor(DataType::Float, {0, 4}), index,
                                  sampleTensor(DataType::Float, {0, 4}),
                                  sampleTensor(DataType::Float, {0, 4})}),
               UserError);
  // An index known to be empty checks nothing: the op goes.
  Fusion g;
  auto* gx = defineTensor(g, {0, 4}, DataType::Float);
  auto* gidx = defineTensor(g, {0}, DataType::Int64);
  g.addOutput(indexSelect(gx, gidx, 1));
  EXPECT_TRUE(applyPass("remove_empty", g).changed);
  EXPECT_EQ(opsOf(g), "full");
}

}  // namespace
}  // namespace fusebox
