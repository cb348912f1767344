// sum/prod/max/min, var, var_mean, welford: domains, attributes and dtypes.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsReduction, ReducedAxesStayAsReductionDomains) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* s = sum(t0, {0, 1});
  // nvFuser's T[ rS{i0}, rS{i1}, iS{i2} ].
  EXPECT_THAT(iterTypes(s), ElementsAre(IT::Reduction, IT::Reduction, IT::Iteration));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s->logical()[i]->extent(), t0->axis(i)->extent());
  EXPECT_EQ(s->nDims(), 1);
  Expr* e = s->definition();
  EXPECT_EQ(e->op(), OpType::Reduction);
  EXPECT_EQ(e->attr<ReductionAttr>(), (ReductionAttr{ReductionOpType::Sum, {0, 1}}));
  EXPECT_THAT(e->inputs(), ElementsAre(t0));
}

TEST(OpsReduction, AxesAreNormalizedAndSorted) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  EXPECT_EQ(sum(t0, {-1, 0})->definition()->attr<ReductionAttr>().axes,
            (std::vector<int64_t>{0, 2}));
  auto* all = max(t0, {});
  EXPECT_EQ(all->nDims(), 0);
  EXPECT_EQ(all->definition()->attr<ReductionAttr>(),
            (ReductionAttr{ReductionOpType::Max, {0, 1, 2}}));
  EXPECT_USER_ERROR(sum(t0, {1, -2}),
                    HasSubstr("fd.ops.sum: dim 1 appears more than once in dims [1, -2]"));
  EXPECT_USER_ERROR(sum(t0, {3}), HasSubstr("fd.ops.sum: dim 3 is out of range for a tensor of "
                                            "rank 3"));
  EXPECT_USER_ERROR(reduction(ReductionOpType::Min, t0, {-4}), HasSubstr("fd.ops.min: dim -4"));
}

TEST(OpsReduction, KeepDimAddsABroadcast) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* s = sum(t0, {1}, /*keepdim=*/true);
  EXPECT_THAT(iterTypes(s), ElementsAre(IT::Iteration, IT::Broadcast, IT::Iteration));
  Expr* b = s->definition();
  EXPECT_EQ(b->op(), OpType::Broadcast);
  EXPECT_EQ(b->attr<BroadcastAttr>().is_broadcast_dim, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(b->input(0)->definition()->op(), OpType::Reduction);
}

TEST(OpsReduction, BroadcastAndExpandedDimsCanBeReduced) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1}, DataType::Float);
  auto* s = sum(t0, {1});
  EXPECT_EQ(constValue(s->logical()[1]->extent()), 1);
  auto* e = expand(t0, {f.constantInt(-1), f.constantInt(6)});
  auto* se = sum(e, {1});
  EXPECT_TRUE(se->logical()[1]->isReduction());
  EXPECT_EQ(constValue(se->logical()[1]->extent()), 6);  // the expanded size is summed over
}

TEST(OpsReduction, AccumulationDtypes) {
  struct Case {
    DataType in, sum;
  };
  // torch.sum / torch.prod: bool and integers accumulate in int64.
  for (auto [in, want] : {Case{DataType::Bool, DataType::Int64},
                          {DataType::Int32, DataType::Int64},
                          {DataType::Int64, DataType::Int64},
                          {DataType::Half, DataType::Half},
                          {DataType::BFloat16, DataType::BFloat16},
                          {DataType::Float, DataType::Float},
                          {DataType::Double, DataType::Double}}) {
    Fusion f;
    auto* t = defineSymbolicTensor(f, 2, in);
    EXPECT_EQ(sum(t, {0})->dtype(), want) << pythonName(in);
    EXPECT_EQ(reduction(ReductionOpType::Prod, t, {0})->dtype(), want) << pythonName(in);
    EXPECT_EQ(max(t, {0})->dtype(), in) << pythonName(in);
    EXPECT_EQ(reduction(ReductionOpType::Min, t, {0})->dtype(), in) << pythonName(in);
  }
  Fusion f;
  auto* h = defineSymbolicTensor(f, 2, DataType::Half);
  EXPECT_EQ(sum(h, {0}, false, DataType::Float)->dtype(), DataType::Float);
}

TEST(OpsReduction, Variance) {
  Fusion f;
  auto* i = defineSymbolicTensor(f, 2, DataType::Int32);
  auto* v = variance(i, {1}, /*correction=*/0);
  EXPECT_EQ(v->dtype(), DataType::Float);
  EXPECT_THAT(iterTypes(v), ElementsAre(IT::Iteration, IT::Reduction));
  EXPECT_EQ(v->definition()->op(), OpType::Var);
  EXPECT_EQ(v->definition()->attr<VarianceAttr>(), (VarianceAttr{{1}, 0}));
  auto* h = defineSymbolicTensor(f, 2, DataType::Half);
  auto* vk = variance(h, {-1}, 1, /*keepdim=*/true);
  EXPECT_EQ(vk->dtype(), DataType::Half);
  EXPECT_THAT(iterTypes(vk), ElementsAre(IT::Iteration, IT::Broadcast));
  EXPECT_USER_ERROR(variance(h, {0}, -1), HasSubstr("fd.ops.var: correction must be >= 0, got -1"));
  EXPECT_USER_ERROR(variance(h, {0, 0}), HasSubstr("fd.ops.var: dim 0 appears more than once"));
}

TEST(OpsReduction, VarMean) {
  Fusion f;
  auto* t = defineSymbolicTensor(f, 3, DataType::BFloat16);
  auto [var, mean] = varMean(t, {0, 2}, 1);
  EXPECT_EQ(var->definition(), mean->definition());
  Expr* e = var->definition();
  EXPECT_EQ(e->op(), OpType::VarMean);
  EXPECT_THAT(e->outputs(), ElementsAre(var, mean));
  EXPECT_EQ(e->attr<VarianceAttr>(), (VarianceAttr{{0, 2}, 1}));
  EXPECT_EQ(var->dtype(), DataType::BFloat16);
  EXPECT_EQ(mean->dtype(), DataType::BFloat16);
  EXPECT_THAT(iterTypes(mean), ElementsAre(IT::Reduction, IT::Iteration, IT::Reduction));
  EXPECT_NE(var->logical()[1], mean->logical()[1]);  // separate domains
  auto kept = varMean(t, {1}, 1, /*keepdim=*/true);
  EXPECT_THAT(iterTypes(kept.var), ElementsAre(IT::Iteration, IT::Broadcast, IT::Iteration));
  EXPECT_THAT(iterTypes(kept.mean), ElementsAre(IT::Iteration, IT::Broadcast, IT::Iteration));
  EXPECT_USER_ERROR(varMean(t, {5}), HasSubstr("fd.ops.var_mean: dim 5 is out of range"));
}

TEST(OpsReduction, Welford) {
  Fusion f;
  auto* t = defineSymbolicTensor(f, 2, DataType::Int64);
  auto [avg, var_sum, n] = welford(t, {1});
  Expr* e = avg->definition();
  EXPECT_EQ(e->op(), OpType::Welford);
  EXPECT_THAT(e->outputs(), ElementsAre(avg, var_sum, n));
  EXPECT_EQ(e->attr<VarianceAttr>().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(avg->dtype(), DataType::Float);
  EXPECT_EQ(var_sum->dtype(), DataType::Float);
  EXPECT_EQ(n->dtype(), DataType::Int64);
  for (auto* out : {avg, var_sum, n})
    EXPECT_THAT(iterTypes(out), ElementsAre(IT::Iteration, IT::Reduction));
  EXPECT_USER_ERROR(welford(t, {2}), HasSubstr("fd.ops.welford: dim 2 is out of range"));
}

}  // namespace
}  // namespace fusebox
