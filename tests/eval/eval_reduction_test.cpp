// Evaluator numerics of reductions: sum/prod/max/min over one or several axes,
// var / var_mean with a correction, welford, empty reductions, and precision.
#include <cmath>
#include <limits>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::expectNear;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor reduce(ReductionOpType op, const Tensor& in, std::vector<int64_t> axes,
              bool keepdim = false) {
  Fusion f;
  auto* t0 = defineTensor(f, std::vector<int64_t>(in.dim(), -1), in.dtype());
  f.addOutput(reduction(op, t0, std::move(axes), keepdim));
  return runOne(f, {in});
}

// x[i, j, k] = 12 i + 4 j + k, shape [2, 3, 4].
Tensor cube() {
  return makeTensor(DataType::Double, {2, 3, 4}, arange(24));
}

TEST(EvalReduction, SumOverOneAxis) {
  // Over dim 1: sum_j (12 i + 4 j + k) = 36 i + 12 + 3 k.
  Tensor out = reduce(ReductionOpType::Sum, cube(), {1});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57}));
}

TEST(EvalReduction, SumOverSeveralAxes) {
  // Over dims 0 and 2: sum_{i,k} (12 i + 4 j + k) = 12*4 + 4j*8 + 2*6 = 60 + 32 j.
  Tensor out = reduce(ReductionOpType::Sum, cube(), {0, 2});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{60, 92, 124}));
  // Everything: 0 + 1 + ... + 23 = 276, a rank-0 tensor.
  Tensor all = reduce(ReductionOpType::Sum, cube(), {});
  EXPECT_EQ(all.dim(), 0);
  EXPECT_EQ(valuesOf(all), (std::vector<double>{276}));
  // Negative axes count from the end.
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Sum, cube(), {-1})),
            (std::vector<double>{6, 22, 38, 54, 70, 86}));
}

TEST(EvalReduction, KeepDim) {
  Tensor out = reduce(ReductionOpType::Max, cube(), {2}, /*keepdim=*/true);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{3, 7, 11, 15, 19, 23}));
}

TEST(EvalReduction, ProdMaxMin) {
  Tensor x = makeFloat({2, 3}, {1, -2, 3, 0.5, 4, -1});
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Prod, x, {1})), (std::vector<double>{-6, -2}));
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Max, x, {0})), (std::vector<double>{1, 4, 3}));
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Min, x, {1})), (std::vector<double>{-2, -1}));
}

TEST(EvalReduction, MaxMinPropagateNan) {
  Tensor x = makeTensor(DataType::Double, {2, 3}, {1, kNan, 3, -kInf, 2, 0});
  expectNear(valuesOf(reduce(ReductionOpType::Max, x, {1})), {kNan, 2});
  expectNear(valuesOf(reduce(ReductionOpType::Min, x, {1})), {kNan, -kInf});
  Tensor first_nan = makeTensor(DataType::Double, {3}, {kNan, 5, 1});
  expectNear(valuesOf(reduce(ReductionOpType::Max, first_nan, {0})), {kNan});
}

TEST(EvalReduction, IntegerAndBoolReductions) {
  Tensor i = makeTensor(DataType::Int32, {2, 2}, {2147483647, 1, -5, 7});
  Tensor s = reduce(ReductionOpType::Sum, i, {1});
  EXPECT_EQ(s.dtype(), DataType::Int64);  // torch sums ints in int64: no int32 overflow
  EXPECT_EQ(valuesOf(s), (std::vector<double>{2147483648.0, 2}));
  Tensor m = reduce(ReductionOpType::Max, i, {0});
  EXPECT_EQ(m.dtype(), DataType::Int32);
  EXPECT_EQ(valuesOf(m), (std::vector<double>{2147483647, 7}));
  Tensor b = makeTensor(DataType::Bool, {4}, {1, 0, 1, 1});
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Sum, b, {0})), (std::vector<double>{3}));
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Min, b, {0})), (std::vector<double>{0}));
}

TEST(EvalReduction, HalfAccumulatesInDouble) {
  // In half, 2048 + 1 rounds back to 2048 (tie to even) and so would every +1;
  // accumulating in double gives 2048 + 1 + 1 = 2050, which half holds exactly.
  Tensor x = makeTensor(DataType::Half, {3}, {2048, 1, 1});
  Tensor out = reduce(ReductionOpType::Sum, x, {0});
  EXPECT_EQ(out.dtype(), DataType::Half);
  EXPECT_EQ(valuesOf(out), (std::vector<double>{2050}));
}

TEST(EvalReduction, EmptyReductions) {
  Tensor empty = Tensor::empty(DataType::Float, {2, 0});
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Sum, empty, {1})), (std::vector<double>{0, 0}));
  EXPECT_EQ(valuesOf(reduce(ReductionOpType::Prod, empty, {1})), (std::vector<double>{1, 1}));
  // Reducing the non-empty dim of an empty tensor gives an empty result.
  EXPECT_EQ(reduce(ReductionOpType::Max, empty, {0}).sizes(), (std::vector<int64_t>{0}));
  EXPECT_USER_ERROR(reduce(ReductionOpType::Max, empty, {1}), HasSubstr("= max("),
                    HasSubstr("max of an empty set"), HasSubstr("dim 1"));
  EXPECT_USER_ERROR(reduce(ReductionOpType::Min, empty, {1}), HasSubstr("min of an empty set"));
}

// Two-pass variance in the test: sum (x - mean)^2 / (n - correction).
double naiveVar(const std::vector<double>& x, int64_t correction) {
  double mean = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  double m2 = 0;
  for (double v : x) m2 += (v - mean) * (v - mean);
  return m2 / (static_cast<double>(x.size()) - correction);
}

TEST(EvalReduction, VarWithCorrection) {
  Tensor x = makeTensor(DataType::Double, {2, 4}, {1, 2, 3, 4, 2, 4, 4, 10});
  for (int64_t c : {0, 1, 2}) {
    Fusion f;
    auto* t0 = defineTensor(f, {-1, -1}, DataType::Double);
    f.addOutput(variance(t0, {1}, c));
    // Row 0: mean 2.5, M2 = 5; row 1: mean 5, M2 = 9 + 1 + 1 + 25 = 36.
    expectNear(valuesOf(runOne(f, {x})), {5.0 / (4 - c), 36.0 / (4 - c)});
    expectNear(valuesOf(runOne(f, {x})), {naiveVar({1, 2, 3, 4}, c), naiveVar({2, 4, 4, 10}, c)});
  }
}

TEST(EvalReduction, VarWithTooFewElements) {
  // N - correction <= 0: torch divides by max(0, N - correction): M2 / 0.
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(variance(t0, {1}, 2));
  Tensor x = makeFloat({2, 2}, {1, 3, 5, 5});
  expectNear(valuesOf(runOne(f, {x})), {kInf, kNan});  // M2 = 2 -> inf; M2 = 0 -> nan
}

TEST(EvalReduction, VarIsStableForLargeMeans) {
  // A one-pass E[x^2] - E[x]^2 loses every digit here; two passes keep them.
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Double);
  f.addOutput(variance(t0, {0}, 0));
  Tensor x = makeTensor(DataType::Double, {4}, {1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4});
  expectNear(valuesOf(runOne(f, {x})), {1.25}, 1e-9);
}

TEST(EvalReduction, VarMean) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1}, DataType::Double);
  auto vm = varMean(t0, {0, 2}, 1);
  f.addOutput(vm.var);
  f.addOutput(vm.mean);
  auto outs = test::run(f, {cube()});
  // Over i and k for fixed j: values 12 i + 4 j + k, mean 4 j + 7.5.
  expectNear(valuesOf(outs[1]), {7.5, 11.5, 15.5});
  std::vector<double> slab;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) slab.push_back(12 * i + k);
  const double v = naiveVar(slab, 1);  // the same for every j
  expectNear(valuesOf(outs[0]), {v, v, v});
}

TEST(EvalReduction, Welford) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  auto w = welford(t0, {1});
  f.addOutput(w.avg);
  f.addOutput(w.var_sum);
  f.addOutput(w.n);
  auto outs = test::run(f, {makeFloat({2, 3}, {1, 2, 6, -1, -1, -1})});
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{3, -1}));
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{14, 0}));  // 4 + 1 + 9
  EXPECT_EQ(test::tensorOf(outs[2]).dtype(), DataType::Int64);
  EXPECT_EQ(test::tensorOf(outs[2]).sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(valuesOf(outs[2]), (std::vector<double>{3, 3}));
  // No elements: the Welford identity (0, 0, 0).
  auto empty = test::run(f, {Tensor::empty(DataType::Float, {1, 0})});
  EXPECT_EQ(valuesOf(empty[0]), (std::vector<double>{0}));
  EXPECT_EQ(valuesOf(empty[1]), (std::vector<double>{0}));
  EXPECT_EQ(valuesOf(empty[2]), (std::vector<double>{0}));
}

}  // namespace
}  // namespace fusebox
