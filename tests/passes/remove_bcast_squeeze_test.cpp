// remove_bcast_squeeze: broadcast/squeeze/set chains cancel or compose, unary
// ops between them move out of the way, and outputs keep their layout.
#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using namespace pass_testing;

const OptionSettings kNoSwap = {{"swap_unary_ops", {false, {}}}};

TEST(RemoveBcastSqueeze, BroadcastThenSqueezeOfTheSameDimsCancels) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  f.addOutput(neg(squeeze(broadcast(t0, {true, false, true, false}), {0, 2})));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(*a.before), "broadcast squeeze neg");

  Fusion expected;
  expected.addOutput(neg(defineSymbolicTensor(expected, 2)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {3, 4})});
}

TEST(RemoveBcastSqueeze, SqueezeThenBroadcastInTheSamePlaceCancels) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, -1}, DataType::Float);
  f.addOutput(exp(broadcast(squeeze(t0, {1}), {false, true, false})));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  expected.addOutput(exp(defineTensor(expected, {-1, 1, -1}, DataType::Float)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {2, 1, 3})});
}

TEST(RemoveBcastSqueeze, SqueezeThenBroadcastElsewhereStays) {
  // [i, b, i] -> [i, i] -> [b, i, i]: a move of the broadcast dim, not one op.
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, -1}, DataType::Float);
  f.addOutput(broadcast(squeeze(t0, {1}), {true, false, false}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

TEST(RemoveBcastSqueeze, ChainsComposeIntoOneOp) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  // broadcast + broadcast -> one broadcast; set + squeeze -> one squeeze.
  f.addOutput(broadcast(broadcast(t0, {true, false}), {false, false, true}));
  auto* t1 = defineTensor(f, {1, -1}, DataType::Float);
  f.addOutput(squeeze(set(t1), {0}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* e0 = defineSymbolicTensor(expected, 1);
  expected.addOutput(broadcast(e0, {true, false, true}));
  auto* e1 = defineTensor(expected, {1, -1}, DataType::Float);
  expected.addOutput(squeeze(e1, {0}));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f,
                    {sampleTensor(DataType::Float, {4}), sampleTensor(DataType::Float, {1, 3})});
}

TEST(RemoveBcastSqueeze, PartialCancellationKeepsTheRest) {
  // broadcast adds two dims, squeeze removes one of them: one broadcast remains.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  f.addOutput(squeeze(broadcast(t0, {true, false, false, true}), {3}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  Fusion expected;
  expected.addOutput(broadcast(defineSymbolicTensor(expected, 2), {true, false, false}));
  expectSameIr(f, expected);
}

TEST(RemoveBcastSqueeze, CastBetweenBroadcastAndSqueezeMovesOut) {
  // nvFuser issue 3635: broadcast -> cast -> squeeze -> cast.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2, DataType::BFloat16);
  auto* t1 = broadcast(t0, {true, false, true, false});
  auto* t2 = castOp(DataType::Float, t1);
  auto* t3 = squeeze(t2, {0, 2});
  f.addOutput(castOp(DataType::BFloat16, t3));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* e0 = defineSymbolicTensor(expected, 2, DataType::BFloat16);
  expected.addOutput(castOp(DataType::BFloat16, castOp(DataType::Float, e0)));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::BFloat16, {3, 4})});
}

TEST(RemoveBcastSqueeze, SwapCanBeSwitchedOff) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2, DataType::BFloat16);
  f.addOutput(squeeze(castOp(DataType::Float, broadcast(t0, {true, false, false})), {0}));
  Applied a = applyPass("remove_bcast_squeeze", f, kNoSwap);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

TEST(RemoveBcastSqueeze, SeveralUnaryOpsMoveTogether) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* mid = exp(unaryOp(UnaryOpType::Relu, broadcast(t0, {false, true})));
  f.addOutput(squeeze(mid, {1}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  Fusion expected;
  expected.addOutput(exp(unaryOp(UnaryOpType::Relu, defineSymbolicTensor(expected, 1))));
  expectSameIr(f, expected);
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {7})});
}

TEST(RemoveBcastSqueeze, UnaryOpWithAnotherUseStaysPut) {
  // relu's second use is an ordinary op, not a fusion output, so only the
  // single-use guard stops the walk from broadcast -> relu -> squeeze; moving
  // relu would compute it twice (once after the cancelled pair, once for neg).
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* r = unaryOp(UnaryOpType::Relu, broadcast(t0, {false, true}));
  ASSERT_FALSE(r->isFusionOutput());
  f.addOutput(squeeze(r, {1}));
  f.addOutput(neg(r));
  ASSERT_EQ(r->uses().size(), 2u);
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_FALSE(a.changed);
  EXPECT_EQ(opsOf(f), "broadcast relu squeeze neg");
  int64_t relus = 0;
  for (Expr* e : f.tensorExprs())
    if (e->op() == OpType::Unary && e->attr<UnaryOpType>() == UnaryOpType::Relu) ++relus;
  EXPECT_EQ(relus, 1);
  expectSameIr(f, *a.before);

  // Values by hand: relu([-1.5, 0, 2]) = [0, 0, 2]; neg of it as [3, 1].
  Tensor x = Tensor::empty(DataType::Float, {3});
  const double in[3] = {-1.5, 0.0, 2.0};
  for (int64_t i = 0; i < 3; ++i) x.setDouble({i}, in[i]);
  auto out = evaluateFusion(f, {x});
  ASSERT_EQ(out.size(), 2u);
  const Tensor& squeezed = std::get<Tensor>(out[0]);
  const Tensor& negated = std::get<Tensor>(out[1]);
  ASSERT_EQ(squeezed.sizes(), (std::vector<int64_t>{3}));
  ASSERT_EQ(negated.sizes(), (std::vector<int64_t>{3, 1}));
  const double relu[3] = {0.0, 0.0, 2.0};
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(squeezed.getDouble({i}), relu[i]) << i;
    EXPECT_EQ(negated.getDouble({i, 0}), -relu[i]) << i;
  }
}

TEST(RemoveBcastSqueeze, UnaryOpThatIsAlsoAnOutputStaysPut) {
  // The other guard on the walk: relu is itself a fusion output.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  auto* r = unaryOp(UnaryOpType::Relu, broadcast(t0, {false, true}));
  f.addOutput(squeeze(r, {1}));
  f.addOutput(r);
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

TEST(RemoveBcastSqueeze, ChannelsLastOutputStaysChannelsLast) {
  // nvFuser PR 3643: T1 = broadcast(T0); T2 = relu(T1); T3 = squeeze(T2), T3 an
  // NHWC output. The rewritten output must keep the NHWC allocation order.
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1, -1}, DataType::Float, {}, {3, 0, 2, 1});
  auto* t1 = broadcast(t0, {false, false, false, false, true});
  auto* t2 = unaryOp(UnaryOpType::Relu, t1);
  auto* t3 = squeeze(t2, {4});
  f.addOutput(t3);
  t3->setStrideOrder({3, 0, 2, 1});
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);

  Fusion expected;
  auto* e0 = defineTensor(expected, {-1, -1, -1, -1}, DataType::Float, {}, {3, 0, 2, 1});
  auto* e1 = unaryOp(UnaryOpType::Relu, e0);
  expected.addOutput(e1);
  e1->setStrideOrder({3, 0, 2, 1});
  expectSameIr(f, expected);

  std::vector<Argument> in = {sampleTensor(DataType::Float, {2, 3, 4, 5}, {3, 0, 2, 1})};
  expectSameResults(*a.before, f, in);  // strides included
  const Tensor out = std::get<Tensor>(evaluateFusion(f, in)[0]);
  // NHWC: C is innermost, then W, H, N.
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
}

TEST(RemoveBcastSqueeze, RequiredStrideOrderFollowsTheRewrittenOutput) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* t3 = squeeze(neg(broadcast(t0, {true, false, false, false})), {0});
  f.addOutput(t3);
  f.setRequiredStrideOrder(t3, {0, 2, 1});
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  auto* out = f.outputs()[0]->as<TensorView>();
  ASSERT_NE(f.requiredStrideOrder(out), nullptr);
  EXPECT_EQ(*f.requiredStrideOrder(out), (std::vector<int64_t>{0, 2, 1}));
  expectSameResults(*a.before, f, {sampleTensor(DataType::Float, {2, 3, 4})});
}

TEST(RemoveBcastSqueeze, OutputThatWouldBeTheInputIsACopy) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  f.addOutput(squeeze(broadcast(t0, {false, true, false}), {1}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  Fusion expected;
  expected.addOutput(set(defineSymbolicTensor(expected, 2)));
  expectSameIr(f, expected);
  EXPECT_FALSE(f.outputs()[0]->isFusionInput());
}

TEST(RemoveBcastSqueeze, SegmentSetIsABoundary) {
  // segment_set asks for a segment boundary: nothing moves across it.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1);
  f.addOutput(squeeze(segmentSet(broadcast(t0, {true, false})), {0}));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_FALSE(a.changed);
  expectSameIr(f, *a.before);
}

}  // namespace
}  // namespace fusebox
