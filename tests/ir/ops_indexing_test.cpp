// Indexing ops, scans and triu in the builder: output shapes, dtypes and
// operands, and a UserError for each kind of bad input (index dtype, rank,
// dim, sizes that cannot hold, a constant out-of-range select index).
#include <fusebox/ir/printer.h>
#include <fusebox/ir/verifier.h>

#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsIndexing, IndexSelectReplacesTheIndexedDim) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5, -1}, DataType::Half);
  auto* idx = defineTensor(f, {3}, DataType::Int64);
  auto* out = indexSelect(x, idx, -2);
  EXPECT_EQ(out->dtype(), DataType::Half);
  EXPECT_THAT(constSizes(out), ElementsAre(4, 3, kSym));
  EXPECT_EQ(out->axis(2)->extent(), x->axis(2)->extent());
  Expr* e = out->definition();
  EXPECT_EQ(e->op(), OpType::IndexSelect);
  EXPECT_EQ(e->attr<IndexAttr>().dim, 1);  // normalized
  EXPECT_EQ(e->input(0), x);
  EXPECT_EQ(e->input(1), idx);
  EXPECT_EQ(e->opName(), "index_select");

  // A symbolic index length becomes the dim's extent; a 0-d index gives size 1.
  auto* sym = defineTensor(f, {-1}, DataType::Int32);
  EXPECT_EQ(indexSelect(x, sym, 0)->axis(0)->extent(), sym->axis(0)->extent());
  auto* scalar_index = defineTensor(f, {}, DataType::Int64);
  auto* one = indexSelect(x, scalar_index, 1);
  EXPECT_THAT(constSizes(one), ElementsAre(4, 1, kSym));
  EXPECT_EQ(one->axis(1)->iterType(), IT::Broadcast);
  EXPECT_TRUE(findFusionProblems(f).empty());
}

TEST(OpsIndexing, IndexSelectRejectsBadOperands) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5}, DataType::Float);
  EXPECT_USER_ERROR(indexSelect(x, defineTensor(f, {3}, DataType::Float), 0),
                    HasSubstr("fd.ops.index_select: index must be an Int or Int32 tensor, got "
                              "Float T1_g[3]"));
  EXPECT_USER_ERROR(indexSelect(x, defineTensor(f, {2, 2}, DataType::Int64), 0),
                    HasSubstr("has rank 2; index_select takes a vector of indices"));
  EXPECT_USER_ERROR(indexSelect(x, defineTensor(f, {2}, DataType::Int64), 2),
                    HasSubstr("fd.ops.index_select: dim 2 is out of range for a tensor of rank 2 "
                              "(expected -2..1)"));
  EXPECT_USER_ERROR(
      indexSelect(defineTensor(f, {}, DataType::Float), defineTensor(f, {2}, DataType::Int64), 0),
      HasSubstr("has rank 0; it needs a dim to index"));
  // Any index into a dim of size 0 is out of range.
  EXPECT_USER_ERROR(indexSelect(defineTensor(f, {0, 3}, DataType::Float),
                                defineTensor(f, {2}, DataType::Int64), 0),
                    HasSubstr("dim 0 of T"), HasSubstr("has size 0, so no index of"));
  // ... unless there is no index at all.
  EXPECT_THAT(constSizes(indexSelect(defineTensor(f, {0, 3}, DataType::Float),
                                     defineTensor(f, {0}, DataType::Int64), 0)),
              ElementsAre(0, 3));
}

TEST(OpsIndexing, SelectDropsTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5, 6}, DataType::Int32);
  auto* out = select(x, f.constantInt(-1), 1);
  EXPECT_EQ(out->dtype(), DataType::Int32);
  EXPECT_THAT(constSizes(out), ElementsAre(4, 6));
  EXPECT_EQ(out->definition()->attr<IndexAttr>().dim, 1);
  auto* i = defineScalar(f, DataType::Int64);
  EXPECT_THAT(constSizes(select(x, i, -1)), ElementsAre(4, 5));
  // A constant index is checked as torch.select checks it: -size..size-1.
  EXPECT_USER_ERROR(select(x, f.constantInt(5), 1),
                    HasSubstr("fd.ops.select: index 5 is out of range for dim 1 of T0_g[4, 5, 6] "
                              "(size 5; expected -5..4)"));
  EXPECT_USER_ERROR(select(x, f.constantInt(-6), 1), HasSubstr("index -6 is out of range"));
  EXPECT_USER_ERROR(select(x, f.constantDouble(1.0), 0),
                    HasSubstr("fd.ops.select: index must be an integer scalar, got Double"));
  EXPECT_USER_ERROR(select(x, f.zero(), 3), HasSubstr("dim 3 is out of range"));
}

TEST(OpsIndexing, GatherTakesTheIndexShape) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5}, DataType::Float);
  auto* idx = defineTensor(f, {2, 3}, DataType::Int64);
  auto* out = gather(x, idx, 1);
  EXPECT_THAT(constSizes(out), ElementsAre(2, 3));
  EXPECT_EQ(out->dtype(), DataType::Float);
  // An expanded index dim: the gathered values differ along it.
  auto* expanded =
      expand(defineTensor(f, {1, 3}, DataType::Int64), {f.constantInt(4), f.constantInt(-1)});
  auto* g = gather(x, expanded, 1);
  EXPECT_THAT(constSizes(g), ElementsAre(4, 3));
  EXPECT_EQ(g->axis(0)->iterType(), IT::Iteration);
  EXPECT_FALSE(g->axis(0)->hasExpandedExtent());

  EXPECT_USER_ERROR(gather(x, defineTensor(f, {2}, DataType::Int64), 0),
                    HasSubstr("fd.ops.gather: the index T"), HasSubstr("has rank 1 but the input"),
                    HasSubstr("(expected equal ranks)"));
  EXPECT_USER_ERROR(gather(x, defineTensor(f, {2, 6}, DataType::Int64), 0),
                    HasSubstr("fd.ops.gather: the index T"),
                    HasSubstr("has size 6 in dim 1, "
                              "larger than the input"),
                    HasSubstr("outside dim 0 the index may not exceed the input"));
  EXPECT_USER_ERROR(gather(x, defineTensor(f, {2, 2}, DataType::Bool), 0),
                    HasSubstr("index must be an Int or Int32 tensor, got Bool"));
  // Larger than the input along the gathered dim is fine: indices repeat.
  EXPECT_THAT(constSizes(gather(x, defineTensor(f, {9, 5}, DataType::Int32), 0)),
              ElementsAre(9, 5));
}

TEST(OpsIndexing, TakeAlongAxisBroadcastsOutsideTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5, 6}, DataType::BFloat16);
  auto* idx = defineTensor(f, {1, 7, 6}, DataType::Int64);
  auto* out = takeAlongAxis(x, idx, 1);
  EXPECT_THAT(constSizes(out), ElementsAre(4, 7, 6));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_THAT(constSizes(takeAlongAxis(defineTensor(f, {1, 5}, DataType::Float),
                                       defineTensor(f, {3, 2}, DataType::Int64), 1)),
              ElementsAre(3, 2));
  EXPECT_USER_ERROR(takeAlongAxis(x, defineTensor(f, {3, 7, 6}, DataType::Int64), 1),
                    HasSubstr("fd.ops.take_along_axis: operands have incompatible sizes at dim 0"));
  EXPECT_USER_ERROR(takeAlongAxis(x, defineTensor(f, {4, 6}, DataType::Int64), 1),
                    HasSubstr("(expected equal ranks)"));
}

TEST(OpsIndexing, ScatterKeepsSelfsShape) {
  Fusion f;
  auto* self = defineTensor(f, {4, 5}, DataType::Float);
  auto* idx = defineTensor(f, {2, 5}, DataType::Int64);
  auto* src = defineTensor(f, {3, 5}, DataType::Float);
  auto* out = scatter(self, idx, src, 0);
  EXPECT_THAT(constSizes(out), ElementsAre(4, 5));
  EXPECT_EQ(out->definition()->inputs().size(), 3u);
  auto* with_scalar = scatter(self, idx, f.constantDouble(1.5), -2);
  EXPECT_EQ(with_scalar->definition()->attr<IndexAttr>().dim, 0);
  EXPECT_TRUE(with_scalar->definition()->input(2)->isScalar());

  EXPECT_USER_ERROR(scatter(self, idx, defineTensor(f, {3, 5}, DataType::Double), 0),
                    HasSubstr("fd.ops.scatter: src T"), HasSubstr("is Double but the input"),
                    HasSubstr("torch.scatter needs equal dtypes"));
  EXPECT_USER_ERROR(scatter(self, idx, defineTensor(f, {1, 5}, DataType::Float), 0),
                    HasSubstr("has size 2 in dim 0, larger than the src"));
  EXPECT_USER_ERROR(scatter(self, defineTensor(f, {2, 6}, DataType::Int64), f.zero(), 0),
                    HasSubstr("has size 6 in dim 1, larger than the input"));
  EXPECT_USER_ERROR(scatter(self, defineTensor(f, {2, 5}, DataType::Half), src, 0),
                    HasSubstr("index must be an Int or Int32 tensor, got Half"));
  EXPECT_USER_ERROR(scatter(self, idx, src, -3), HasSubstr("dim -3 is out of range"));
}

TEST(OpsIndexing, EmbeddingIsIndexSelectOfWeightRows) {
  Fusion f;
  auto* weight = defineTensor(f, {10, 3}, DataType::BFloat16);
  auto* flat = embedding(defineTensor(f, {-1}, DataType::Int64), weight);
  EXPECT_EQ(flat->definition()->op(), OpType::IndexSelect);
  EXPECT_EQ(flat->dtype(), DataType::BFloat16);
  auto* ids = defineTensor(f, {2, 4}, DataType::Int32);
  auto* out = embedding(ids, weight);
  EXPECT_THAT(constSizes(out), ElementsAre(2, 4, 3));
  EXPECT_EQ(out->definition()->op(), OpType::Reshape);  // rows of the flattened ids, reshaped
  EXPECT_USER_ERROR(embedding(ids, defineTensor(f, {10}, DataType::Float)),
                    HasSubstr("fd.ops.embedding_fwd: weight T"),
                    HasSubstr("expected a 2-D [num_embeddings, embedding_dim] tensor"));
  EXPECT_USER_ERROR(embedding(defineTensor(f, {2}, DataType::Float), weight),
                    HasSubstr("fd.ops.embedding_fwd: input must be an Int or Int32 tensor"));
}

TEST(OpsIndexing, ScansFollowTorchTypes) {
  Fusion f;
  const std::pair<DataType, DataType> sum_types[] = {{DataType::Bool, DataType::Int64},
                                                     {DataType::Int32, DataType::Int64},
                                                     {DataType::Int64, DataType::Int64},
                                                     {DataType::Half, DataType::Half},
                                                     {DataType::Float, DataType::Float}};
  for (auto [in, want] : sum_types) {
    auto* x = defineTensor(f, {3, 4}, in);
    EXPECT_EQ(scan(ReductionOpType::Sum, x, 1)->dtype(), want) << pythonName(in);
    EXPECT_EQ(scan(ReductionOpType::Prod, x, 1)->dtype(), want) << pythonName(in);
    EXPECT_EQ(scan(ReductionOpType::Max, x, 0)->dtype(), in) << pythonName(in);
  }
  auto* x = defineTensor(f, {3, 4}, DataType::Float);
  auto* out = scan(ReductionOpType::Min, x, -1);
  EXPECT_EQ(out->definition()->attr<ScanAttr>(), (ScanAttr{ReductionOpType::Min, 1}));
  EXPECT_EQ(out->definition()->opName(), "cummin");
  EXPECT_THAT(constSizes(out), ElementsAre(3, 4));
  EXPECT_USER_ERROR(scan(ReductionOpType::Sum, x, 2),
                    HasSubstr("fd.ops.cumsum: dim 2 is out of range for a tensor of rank 2"));
  EXPECT_USER_ERROR(scan(ReductionOpType::Prod, defineTensor(f, {}, DataType::Float), 0),
                    HasSubstr("fd.ops.cumprod: the input T"), HasSubstr("has rank 0"));
  EXPECT_TRUE(findFusionProblems(f).empty());
}

TEST(OpsIndexing, TriuIsAPointwiseMask) {
  Fusion f;
  auto* x = defineTensor(f, {2, -1, 5}, DataType::Bool);
  auto* out = triu(x, f.constantInt(-1));
  EXPECT_EQ(out->dtype(), DataType::Bool);
  EXPECT_THAT(constSizes(out), ElementsAre(2, kSym, 5));
  std::set<OpType> ops;
  for (Expr* e : f.allExprs()) ops.insert(e->op());
  EXPECT_EQ(ops,
            (std::set<OpType>{OpType::Iota, OpType::Broadcast, OpType::Binary, OpType::Ternary}));
  EXPECT_USER_ERROR(triu(defineTensor(f, {4}, DataType::Float), f.zero()),
                    HasSubstr("fd.ops.triu: the input T"),
                    HasSubstr("has rank 1; triu needs at "
                              "least 2 dims"));
  EXPECT_USER_ERROR(triu(x, f.constantDouble(0.5)),
                    HasSubstr("fd.ops.triu: diagonal must be an integer scalar"));
}

TEST(OpsIndexing, PrinterAndVerifier) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5}, DataType::Float);
  auto* idx = defineTensor(f, {2}, DataType::Int64);
  auto* a = indexSelect(x, idx, 1);
  auto* b = scan(ReductionOpType::Sum, x, 0);
  EXPECT_THAT(printExpr(a->definition()),
              HasSubstr("= index_select( T0_g[ iS0{4}, iS1{5} ], T1_g[ iS2{2} ], dim = 1 );"));
  EXPECT_THAT(printExpr(b->definition()),
              HasSubstr("= cumsum( T0_g[ iS0{4}, iS1{5} ], dim = 0 );"));
  EXPECT_TRUE(findFusionProblems(f).empty());
}

TEST(OpsIndexing, VerifierChecksIndexDimsAndIndexDtypes) {
  Fusion f;
  auto* x = defineTensor(f, {4, 5}, DataType::Float);
  auto* idx = defineTensor(f, {2}, DataType::Float);  // not an integer tensor
  auto* out = f.newTensor({f.newIterDomain(f.constantInt(4), IT::Iteration)}, DataType::Float);
  f.newExpr(OpType::IndexSelect, {x, idx}, {out}, IndexAttr{2});
  f.addOutput(out);
  auto problems = findFusionProblems(f);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_THAT(problems[0], HasSubstr("(index_select) indexes dim 2 of a rank-2 input"));
  EXPECT_THAT(problems[1], HasSubstr("has an output of rank 1, expected 2"));
  EXPECT_THAT(problems[2], HasSubstr("expected an integer tensor"));
}

}  // namespace
}  // namespace fusebox
