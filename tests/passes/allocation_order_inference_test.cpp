// allocation_order_inference: outputs follow their input's memory order as a
// hint; required stride orders and matmul/linear outputs are left alone.
#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using namespace pass_testing;
using Order = std::vector<int64_t>;

const Order kChannelsLast = {3, 0, 2, 1};  // NCHW dims laid out as NHWC

TEST(AllocationOrderInference, ChannelsLastInputGivesChannelsLastOutputs) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, kChannelsLast);
  auto* t1 = defineSymbolicTensor(f, 4);  // row-major
  auto* out = add(unaryOp(UnaryOpType::Relu, t0), t1);
  f.addOutput(out);
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_TRUE(a.changed);
  EXPECT_FALSE(a.before->outputs()[0]->as<TensorView>()->hasAllocation());
  EXPECT_EQ(out->strideOrder(), kChannelsLast);
  EXPECT_EQ(f.requiredStrideOrder(out), nullptr);  // a hint, not a requirement

  std::vector<Argument> in = {sampleTensor(DataType::Float, {2, 3, 4, 5}, kChannelsLast),
                              sampleTensor(DataType::Float, {2, 3, 4, 5}, {}, 1)};
  expectSameResults(*a.before, f, in, /*compare_strides=*/false);
  const Tensor before = std::get<Tensor>(evaluateFusion(*a.before, in)[0]);
  const Tensor after = std::get<Tensor>(evaluateFusion(f, in)[0]);
  EXPECT_EQ(before.strides(), (Order{60, 20, 5, 1}));
  EXPECT_EQ(after.strides(), (Order{60, 1, 15, 3}));
}

TEST(AllocationOrderInference, NeverOverridesARequiredStrideOrder) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, kChannelsLast);
  auto* out = neg(t0);
  f.addOutput(out);
  f.setRequiredStrideOrder(out, {3, 2, 1, 0});
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_FALSE(a.changed);
  EXPECT_FALSE(out->hasAllocation());
  std::vector<Argument> in = {sampleTensor(DataType::Float, {2, 3, 4, 5}, kChannelsLast)};
  EXPECT_EQ(std::get<Tensor>(evaluateFusion(f, in)[0]).strides(), (Order{60, 20, 5, 1}));
}

TEST(AllocationOrderInference, KeepsAnAllocationAlreadySet) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1}, DataType::Float, {}, {0, 1, 2});
  auto* out = neg(t0);
  f.addOutput(out);
  out->setStrideOrder({1, 2, 0});
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_FALSE(a.changed);
  EXPECT_EQ(out->strideOrder(), (Order{1, 2, 0}));
}

TEST(AllocationOrderInference, LinearAndMatmulOutputsStayUnpermuted) {
  // nvFuser issue 2425: with a permuted input, a linear output [b, m, n] must not
  // come out permuted.
  Fusion f;
  auto* x = defineTensor(f, {-1, -1, -1}, DataType::Float, {}, {1, 2, 0});
  auto* w = defineSymbolicTensor(f, 2);
  auto* lin = linear(x, w);
  f.addOutput(lin);
  auto* mm = matmul(x, defineSymbolicTensor(f, 2));
  f.addOutput(mm);
  f.addOutput(neg(lin));  // downstream of linear: still fresh dims
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_FALSE(a.changed);
  for (Val* o : f.outputs()) EXPECT_FALSE(o->as<TensorView>()->hasAllocation()) << o->toString();
}

TEST(AllocationOrderInference, ReductionsKeepTheOrderOfTheDimsTheyKeep) {
  // Input [a, b, c] laid out c-outermost: [c, a, b]. sum over b keeps [a, c],
  // which memory order puts as c, a.
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1}, DataType::Float, {}, {1, 0, 2});
  auto* out = sum(t0, {1});
  f.addOutput(out);
  auto* kept_in_order = sum(t0, {2});  // [a, b]: a before b in memory too
  f.addOutput(kept_in_order);
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(out->strideOrder(), (Order{0, 1}));  // a innermost, c outermost
  EXPECT_FALSE(kept_in_order->hasAllocation());
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {2, 3, 4}, {1, 0, 2})},
                    /*compare_strides=*/false);
}

TEST(AllocationOrderInference, NewBroadcastDimsGoOutermost) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float, {}, {0, 1});  // column-major
  auto* out = broadcast(t0, {false, true, false});
  f.addOutput(out);
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_TRUE(a.changed);
  // Memory order, outermost first: the new dim, then dim 2, then dim 0.
  auto alloc = out->allocation();
  ASSERT_EQ(alloc.size(), 3u);
  EXPECT_EQ(alloc[0], out->axis(1));
  EXPECT_EQ(alloc[1], out->axis(2));
  EXPECT_EQ(alloc[2], out->axis(0));
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {3, 4}, {0, 1})},
                    /*compare_strides=*/false);
}

TEST(AllocationOrderInference, HighestRankPermutedInputIsTheReference) {
  Fusion f;
  auto* small = defineTensor(f, {-1, -1}, DataType::Float, {}, {0, 1});
  auto* big = defineTensor(f, {-1, -1, -1}, DataType::Float, {}, {1, 2, 0});
  auto* out = add(broadcast(small, {true, false, false}), big);
  f.addOutput(out);
  applyPass("allocation_order_inference", f);
  EXPECT_EQ(out->strideOrder(), (Order{1, 2, 0}));
}

TEST(AllocationOrderInference, RowMajorInputsChangeNothing) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  f.addOutput(permute(t0, {2, 0, 1}));
  f.addOutput(neg(t0));
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

TEST(AllocationOrderInference, PermuteFollowsTheInputsMemory) {
  // A permute of an NHWC input back to NHWC logical order is laid out dense.
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, kChannelsLast);
  auto* out = permute(t0, {0, 2, 3, 1});
  f.addOutput(out);
  Applied a = applyPass("allocation_order_inference", f);
  EXPECT_FALSE(a.changed);  // its logical order already is the memory order
  EXPECT_FALSE(out->hasAllocation());
}

}  // namespace
}  // namespace fusebox
