// set, segment_set, broadcast, broadcast_in_dim, squeeze, expand, reshape, permute.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsMovement, SetAndSegmentSetCopyTheShape) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, 3}, DataType::BFloat16);
  for (auto* out : {set(t0), segmentSet(t0)}) {
    EXPECT_EQ(out->dtype(), DataType::BFloat16);
    EXPECT_THAT(iterTypes(out), ElementsAre(IT::Iteration, IT::Broadcast, IT::Iteration));
    EXPECT_EQ(out->axis(0)->extent(), t0->axis(0)->extent());
    EXPECT_NE(out->axis(0), t0->axis(0));
    EXPECT_THAT(out->definition()->inputs(), ElementsAre(t0));
  }
  EXPECT_EQ(set(t0)->definition()->op(), OpType::Set);
  EXPECT_EQ(segmentSet(t0)->definition()->op(), OpType::SegmentSet);
  // A reduction's reduced axes are not copied.
  EXPECT_EQ(set(sum(t0, {0}))->logical().size(), 2u);
}

TEST(OpsMovement, Broadcast) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* b = broadcast(t0, {true, false, true, false});
  EXPECT_THAT(iterTypes(b),
              ElementsAre(IT::Broadcast, IT::Iteration, IT::Broadcast, IT::Iteration));
  EXPECT_THAT(constSizes(b), ElementsAre(1, kSym, 1, kSym));
  EXPECT_EQ(b->axis(1)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(b->axis(3)->extent(), t0->axis(1)->extent());
  EXPECT_EQ(b->definition()->attr<BroadcastAttr>().is_broadcast_dim,
            (std::vector<bool>{true, false, true, false}));
  EXPECT_USER_ERROR(broadcast(t0, {true, false}),
                    HasSubstr("fd.ops.broadcast: is_broadcast_dim [True, False] has 1 False "
                              "entries, but the input T0_g[i"),
                    HasSubstr("has rank 2"));
}

TEST(OpsMovement, BroadcastInDimEmitsOnlyWhatIsNeeded) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto* t0 = defineTensor(f, {3}, DataType::Float);

  // New dim of size 2: broadcast, then expand.
  auto* be = broadcastInDim(t0, {k(2), k(3)}, {1});
  EXPECT_EQ(be->definition()->op(), OpType::Expand);
  EXPECT_EQ(be->definition()->input(0)->definition()->op(), OpType::Broadcast);
  EXPECT_THAT(iterTypes(be), ElementsAre(IT::Broadcast, IT::Iteration));
  EXPECT_THAT(constSizes(be), ElementsAre(2, 3));
  EXPECT_EQ(constValue(be->axis(0)->extent()), 1);

  // New dim of size 1: only a broadcast.
  auto* b = broadcastInDim(t0, {k(3), k(1)}, {0});
  EXPECT_EQ(b->definition()->op(), OpType::Broadcast);
  EXPECT_EQ(b->definition()->attr<BroadcastAttr>().is_broadcast_dim,
            (std::vector<bool>{false, true}));

  // Same rank, a size-1 input dim widened: only an expand.
  auto* t1 = defineTensor(f, {1, 3}, DataType::Float);
  auto* e = broadcastInDim(t1, {k(5), k(3)}, {0, 1});
  EXPECT_EQ(e->definition()->op(), OpType::Expand);
  EXPECT_EQ(e->definition()->input(0), t1);
  EXPECT_THAT(constSizes(e), ElementsAre(5, 3));

  // Nothing to do: a set, so the result is a new tensor.
  auto* s = broadcastInDim(t0, {k(3)}, {0});
  EXPECT_EQ(s->definition()->op(), OpType::Set);

  // -1 keeps an input dim; a symbolic size expands a new dim to it.
  auto* t2 = defineSymbolicTensor(f, 1);
  auto* n = defineScalar(f, DataType::Int64);
  auto* sym = broadcastInDim(t2, {n, k(-1)}, {1});
  EXPECT_EQ(sym->axis(0)->expandedExtent(), n);
  EXPECT_EQ(sym->axis(1)->extent(), t2->axis(0)->extent());
}

TEST(OpsMovement, BadBroadcastInDim) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto* t0 = defineTensor(f, {3, -1}, DataType::Float);
  EXPECT_USER_ERROR(broadcastInDim(t0, {k(3), k(4), k(5)}, {1, 0}),
                    HasSubstr("fd.ops.broadcast_in_dim: broadcast_dims must be strictly "
                              "increasing, got [1, 0]"));
  EXPECT_USER_ERROR(broadcastInDim(t0, {k(3), k(4)}, {0, 2}),
                    HasSubstr("broadcast_dims entry 1 is 2, out of range for output rank 2"));
  EXPECT_USER_ERROR(broadcastInDim(t0, {k(3), k(4)}, {0}),
                    HasSubstr("broadcast_dims [0] needs one entry per input dim"));
  EXPECT_USER_ERROR(broadcastInDim(t0, {k(4), k(5)}, {0, 1}), HasSubstr("input dim 0 of T0_g[3, i"),
                    HasSubstr("has size 3 but shape entry 0 is 4"));
  EXPECT_USER_ERROR(broadcastInDim(t0, {k(3), f.constantDouble(2.0)}, {0, 1}),
                    HasSubstr("shape entry 1 must be an integer scalar, got Double"));
}

TEST(OpsMovement, Squeeze) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, 3, 1}, DataType::Float);
  auto* s = squeeze(t0, {-1, 1});
  EXPECT_EQ(s->definition()->attr<SqueezeAttr>().dims, (std::vector<int64_t>{1, 3}));
  EXPECT_THAT(constSizes(s), ElementsAre(kSym, 3));
  EXPECT_EQ(s->axis(0)->extent(), t0->axis(0)->extent());

  EXPECT_USER_ERROR(squeeze(t0, {0}), HasSubstr("fd.ops.squeeze: dim 0 of T0_g[i"),
                    HasSubstr("only broadcast or size-1 dims can be squeezed"));
  EXPECT_USER_ERROR(squeeze(t0, {2}), HasSubstr("dim 2"), HasSubstr("has size 3"));
  EXPECT_USER_ERROR(squeeze(t0, {1, -3}),
                    HasSubstr("dim 1 appears more than once in dims [1, -3]"));
  EXPECT_USER_ERROR(squeeze(t0, {4}), HasSubstr("fd.ops.squeeze: dim 4 is out of range"));
  // An expanded broadcast repeats one value: squeezed only when asked to
  // (nvFuser's squeeze_expanded).
  auto* e = expand(t0, {f.constantInt(-1), f.constantInt(7), f.constantInt(-1), f.constantInt(-1)});
  EXPECT_USER_ERROR(squeeze(e, {1}), HasSubstr("is a broadcast expanded to 7"),
                    HasSubstr("pass squeeze_expanded=True"));
  auto* zero =
      expand(t0, {f.constantInt(-1), f.constantInt(0), f.constantInt(-1), f.constantInt(-1)});
  EXPECT_USER_ERROR(squeeze(zero, {1}, true), HasSubstr("is a broadcast expanded to 0"));
  auto* se = squeeze(e, {1}, /*squeeze_expanded=*/true);
  EXPECT_THAT(constSizes(se), ElementsAre(kSym, 3, 1));
  EXPECT_EQ(se->definition()->attr<SqueezeAttr>().dims, (std::vector<int64_t>{1}));
  // A Symbolic dim (a reshape to a runtime size) may be squeezed; it is checked later.
  auto* r = reshape(defineSymbolicTensor(f, 1), {defineScalar(f, DataType::Int64)});
  ASSERT_TRUE(r->axis(0)->isSymbolic());
  EXPECT_EQ(squeeze(r, {0})->nDims(), 0);
}

TEST(OpsMovement, Expand) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, 1}, DataType::Float);
  auto* n = defineScalar(f, DataType::Int64);
  auto* keep = f.constantInt(-1);
  auto* one = f.constantInt(1);
  auto* e = expand(t0, {keep, n, one});
  EXPECT_THAT(e->definition()->inputs(), ElementsAre(t0, keep, n, one));
  EXPECT_THAT(iterTypes(e), ElementsAre(IT::Iteration, IT::Broadcast, IT::Broadcast));
  EXPECT_EQ(e->axis(0)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(e->axis(1)->expandedExtent(), n);
  EXPECT_EQ(constValue(e->axis(1)->extent()), 1);
  EXPECT_FALSE(e->axis(2)->hasExpandedExtent());
  // A non-broadcast dim may be "expanded" to its own size.
  auto* t1 = defineTensor(f, {3}, DataType::Float);
  EXPECT_THAT(constSizes(expand(t1, {f.constantInt(3)})), ElementsAre(3));
}

TEST(OpsMovement, BadExpand) {
  Fusion f;
  auto* t0 = defineTensor(f, {3, 1}, DataType::Float);
  EXPECT_USER_ERROR(expand(t0, {f.constantInt(4), f.constantInt(5)}),
                    HasSubstr("fd.ops.expand: dim 0 of T0_g[3, 1] has size 3 and is not a "
                              "broadcast; it cannot be expanded to 4"));
  EXPECT_USER_ERROR(expand(t0, {f.constantInt(3)}),
                    HasSubstr("shape [3] has 1 entries but the input T0_g[3, 1] has rank 2"));
  EXPECT_USER_ERROR(expand(t0, {f.constantInt(-1), f.constantInt(-2)}),
                    HasSubstr("shape entry 1 is -2"));
  EXPECT_USER_ERROR(
      expand(t0, {f.constantInt(-1), f.constantDouble(2.0)}),
      HasSubstr("fd.ops.expand: shape entry 1 must be an integer scalar, got Double"));
  EXPECT_USER_ERROR(expand(t0, {f.constantInt(-1), t0}),
                    HasSubstr("shape entry 1 must be an integer scalar, got tensor T0_g"));
}

TEST(OpsMovement, ReshapeOfConstantShapes) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto* t0 = defineTensor(f, {2, 3, 4}, DataType::Float);
  auto* minus_one = k(-1);
  auto* r = reshape(t0, {k(6), minus_one});
  EXPECT_THAT(constSizes(r), ElementsAre(6, 4));  // 24 / 6
  EXPECT_THAT(iterTypes(r), ElementsAre(IT::Iteration, IT::Iteration));
  // The operands are the sizes as given: the -1 stays -1.
  EXPECT_EQ(r->definition()->op(), OpType::Reshape);
  EXPECT_EQ(r->definition()->input(2), minus_one);
  auto* r1 = reshape(t0, {k(24), k(1)});
  EXPECT_THAT(iterTypes(r1), ElementsAre(IT::Iteration, IT::Broadcast));
}

TEST(OpsMovement, ReshapeOfSymbolicShapes) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* r = reshape(t0, {k(-1), k(4)});
  EXPECT_THAT(iterTypes(r), ElementsAre(IT::Symbolic, IT::Iteration));
  std::string i0 = t0->axis(0)->extent()->toString(), i1 = t0->axis(1)->extent()->toString();
  EXPECT_EQ(r->axis(0)->extent()->inlineString(), fmt::format("( ( {} * {} ) / 4 )", i0, i1));
  EXPECT_EQ(constValue(r->axis(1)->extent()), 4);
  // A symbolic size is used as the extent itself.
  auto* n = defineScalar(f, DataType::Int64);
  auto* r2 = reshape(t0, {n, k(-1)});
  EXPECT_EQ(r2->axis(0)->extent(), n);
  EXPECT_EQ(r2->axis(1)->extent()->inlineString(),
            fmt::format("( ( {} * {} ) / {} )", i0, i1, n->toString()));
  // Mixed: constant input dims fold into one constant.
  auto* t1 = defineTensor(f, {-1, 3, 4}, DataType::Float);
  auto* r3 = reshape(t1, {k(2), k(-1)});
  EXPECT_EQ(r3->axis(1)->extent()->inlineString(),
            fmt::format("( ( {} * 12 ) / 2 )", t1->axis(0)->extent()->toString()));
}

TEST(OpsMovement, BadReshape) {
  Fusion f;
  auto k = [&](int64_t v) { return f.constantInt(v); };
  auto* t0 = defineTensor(f, {2, 3}, DataType::Float);
  EXPECT_USER_ERROR(reshape(t0, {k(-1), k(-1)}),
                    HasSubstr("fd.ops.reshape: new_shape [-1, -1] has more than one -1 entry"));
  EXPECT_USER_ERROR(reshape(t0, {k(4)}),
                    HasSubstr("cannot reshape T0_g[2, 3] (6 elements) to [4] (4 elements)"));
  EXPECT_USER_ERROR(reshape(t0, {k(4), k(-1)}), HasSubstr("6 is not a multiple of 4"));
  EXPECT_USER_ERROR(reshape(t0, {k(0), k(-1)}),
                    HasSubstr("cannot reshape T0_g[2, 3] (6 elements) to [0, -1]: with a 0 beside "
                              "it, no size for -1 gives that many elements"));
  auto* empty = defineTensor(f, {0, 5}, DataType::Float);
  EXPECT_USER_ERROR(reshape(empty, {k(0), k(-1)}),
                    HasSubstr("(0 elements) to [0, -1]: the unspecified dimension size -1 can be "
                              "any value"));
  EXPECT_USER_ERROR(reshape(t0, {k(-3), k(-2)}), HasSubstr("new_shape entry 0 is -3"));
}

TEST(OpsMovement, Permute) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, 5}, DataType::Float);
  auto* p = permute(t0, {2, 0, 1});
  EXPECT_THAT(constSizes(p), ElementsAre(5, kSym, 1));
  EXPECT_THAT(iterTypes(p), ElementsAre(IT::Iteration, IT::Iteration, IT::Broadcast));
  EXPECT_EQ(p->axis(1)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(p->definition()->attr<PermuteAttr>().dims, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(permute(t0, {-1, 0, -2})->definition()->attr<PermuteAttr>().dims,
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_USER_ERROR(permute(t0, {0, 0, 1}),
                    HasSubstr("fd.ops.permute: dims [0, 0, 1] is not a permutation of 0..2"));
  EXPECT_USER_ERROR(permute(t0, {1, 0}), HasSubstr("dims [1, 0] must have one entry per dim"));
  EXPECT_USER_ERROR(permute(t0, {0, 1, 3}), HasSubstr("dim 3 is out of range"));
}

}  // namespace
}  // namespace fusebox
