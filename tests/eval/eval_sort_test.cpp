// Evaluator numerics of argsort and topk on hand-checked values: both
// directions, ties kept in input order, NaN above every number, integers and
// half types, empty and size-1 lines, k as a constant and a scalar input, and
// k out of range.
#include <fusebox/eval/tolerance.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

using V = std::vector<double>;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

Tensor argsortOf(const Tensor& in, int64_t dim, bool descending) {
  Fusion f;
  auto* x = defineTensor(f, std::vector<int64_t>(in.dim(), -1), in.dtype());
  f.addOutput(argsort(x, dim, descending, false));
  return runOne(f, {in});
}

// topk's values and indices, k a constant.
std::pair<Tensor, Tensor> topkOf(const Tensor& in, int64_t k, int64_t dim, bool largest) {
  Fusion f;
  auto* x = defineTensor(f, std::vector<int64_t>(in.dim(), -1), in.dtype());
  TopKResult r = topk(x, f.constantInt(k), dim, largest, true);
  f.addOutput(r.values);
  f.addOutput(r.indices);
  auto outs = evaluateFusion(f, {in});
  return {std::get<Tensor>(outs.at(0)), std::get<Tensor>(outs.at(1))};
}

TEST(EvalSort, ArgsortAlongEitherDimAndDirection) {
  // [[3, 1, 2], [0, 5, 4]]
  Tensor x = makeFloat({2, 3}, {3, 1, 2, 0, 5, 4});
  Tensor rows = argsortOf(x, 1, false);
  EXPECT_EQ(rows.dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(rows), (V{1, 2, 0, 0, 2, 1}));
  EXPECT_EQ(valuesOf(argsortOf(x, -1, true)), (V{0, 2, 1, 1, 2, 0}));
  EXPECT_EQ(valuesOf(argsortOf(x, 0, false)), (V{1, 0, 0, 0, 1, 1}));
}

TEST(EvalSort, TiesKeepInputOrderInBothDirections) {
  Tensor x = makeTensor(DataType::Int32, {6}, {2, 1, 2, 1, 3, 2});
  EXPECT_EQ(valuesOf(argsortOf(x, 0, false)), (V{1, 3, 0, 2, 5, 4}));
  EXPECT_EQ(valuesOf(argsortOf(x, 0, true)), (V{4, 0, 2, 5, 1, 3}));
  // -0.0 and 0.0 are equal, as in torch.
  Tensor z = makeFloat({3}, {0.0, -0.0, -1.0});
  EXPECT_EQ(valuesOf(argsortOf(z, 0, false)), (V{2, 0, 1}));
}

TEST(EvalSort, NanSortsAboveEveryNumber) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = makeFloat({4}, {1.0, kNan, inf, -inf});
  EXPECT_EQ(valuesOf(argsortOf(x, 0, false)), (V{3, 0, 2, 1}));
  EXPECT_EQ(valuesOf(argsortOf(x, 0, true)), (V{1, 2, 0, 3}));
  auto [values, indices] = topkOf(x, 2, 0, true);
  EXPECT_TRUE(std::isnan(values.getDoubleLinear(0)));
  EXPECT_EQ(values.getDoubleLinear(1), inf);
  EXPECT_EQ(valuesOf(indices), (V{1, 2}));
  auto [low, low_at] = topkOf(x, 2, 0, false);
  EXPECT_EQ(valuesOf(low), (V{-inf, 1.0}));
  EXPECT_EQ(valuesOf(low_at), (V{3, 0}));
}

TEST(EvalSort, TopKPicksValuesExactlyInEachDtype) {
  for (DataType dtype : {DataType::Half, DataType::BFloat16, DataType::Float, DataType::Double,
                         DataType::Int32, DataType::Int64}) {
    SCOPED_TRACE(std::string(pythonName(dtype)));
    // [[4, -1, 7, 2], [0, 9, 9, -3]]
    Tensor x = makeTensor(dtype, {2, 4}, {4, -1, 7, 2, 0, 9, 9, -3});
    auto [values, indices] = topkOf(x, 2, 1, true);
    EXPECT_EQ(values.dtype(), dtype);
    EXPECT_EQ(values.sizes(), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(valuesOf(values), (V{7, 4, 9, 9}));
    EXPECT_EQ(valuesOf(indices), (V{2, 0, 1, 2}));
    auto [low, low_at] = topkOf(x, 2, 0, false);  // k is the whole dim
    EXPECT_EQ(low.sizes(), (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(valuesOf(low), (V{0, -1, 7, -3, 4, 9, 9, 2}));
    EXPECT_EQ(valuesOf(low_at), (V{1, 0, 0, 1, 0, 1, 1, 0}));
  }
}

TEST(EvalSort, EmptyLinesAndZeroK) {
  Tensor empty = makeFloat({0, 3}, {});
  EXPECT_EQ(argsortOf(empty, 1, false).sizes(), (std::vector<int64_t>{0, 3}));
  Tensor x = makeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  auto [values, indices] = topkOf(x, 0, 1, true);
  EXPECT_EQ(values.sizes(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(indices.sizes(), (std::vector<int64_t>{2, 0}));
  Tensor one = makeFloat({1}, {5});
  EXPECT_EQ(valuesOf(argsortOf(one, 0, true)), (V{0}));
}

TEST(EvalSort, KFromAScalarInputIsCheckedAgainstTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* k = defineScalar(f, DataType::Int64);
  TopKResult r = topk(x, k, 0, true, false);
  f.addOutput(r.values);
  f.addOutput(r.indices);
  Tensor in = makeFloat({3, 2}, {1, 6, 5, 2, 3, 4});
  auto outs = evaluateFusion(f, {in, ScalarValue(int64_t{2})});
  EXPECT_EQ(valuesOf(outs.at(0)), (V{5, 6, 3, 4}));
  EXPECT_EQ(valuesOf(outs.at(1)), (V{1, 0, 2, 2}));
  EXPECT_USER_ERROR(evaluateFusion(f, {in, ScalarValue(int64_t{4})}),
                    HasSubstr("k is 4 but dim 0 of"));
  EXPECT_USER_ERROR(evaluateFusion(f, {in, ScalarValue(int64_t{-1})}), HasSubstr("k is -1"));
}

TEST(EvalSort, TopKValuesOfSumsGetTheirLinesLargestBound) {
  // Row sums carry bounds; topk of them along dim 0 gives each value the
  // largest bound of its column, and the indices none.
  Fusion f;
  auto* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  TensorView* sums = sum(x, {2});
  TopKResult r = topk(sums, f.constantInt(2), 0, true, true);
  f.addOutput(sums);
  f.addOutput(r.values);
  f.addOutput(r.indices);
  std::vector<double> v;
  for (int i = 0; i < 3 * 2 * 50; ++i) v.push_back(std::sin(i) * (1 + i % 7));
  const std::vector<OutputTolerance> tol = outputTolerances(f, {makeFloat({3, 2, 50}, v)});
  ASSERT_EQ(tol.size(), 3u);
  ASSERT_TRUE(tol[0].bound.defined());
  ASSERT_TRUE(tol[1].bound.defined());
  EXPECT_EQ(tol[1].bound.sizes(), (std::vector<int64_t>{2, 2}));
  for (int64_t col = 0; col < 2; ++col) {
    double largest = 0;
    for (int64_t row = 0; row < 3; ++row)
      largest = std::max(largest, tol[0].bound.getDoubleLinear(row * 2 + col));
    EXPECT_GT(largest, 0);
    for (int64_t j = 0; j < 2; ++j) EXPECT_EQ(tol[1].bound.getDoubleLinear(j * 2 + col), largest);
  }
  EXPECT_FALSE(tol[2].bound.defined());
  EXPECT_EQ(tol[2].allowed(0, 1.0), 0.0);
}

TEST(EvalSort, BuildersRefuseBadArguments) {
  Fusion f;
  auto* x = defineTensor(f, {4, 3}, DataType::Float);
  EXPECT_USER_ERROR(topk(x, f.constantInt(5), 0, true, false), HasSubstr("k is 5 but dim 0 of"));
  EXPECT_USER_ERROR(topk(x, f.constantInt(-2), 1, true, false), HasSubstr("k is -2"));
  EXPECT_USER_ERROR(topk(x, f.constantDouble(2.0), 1, true, false),
                    HasSubstr("k must be an integer scalar"));
  EXPECT_USER_ERROR(argsort(x, 2, false, false), HasSubstr("fd.ops.argsort"));
  auto* scalar_tensor = defineTensor(f, {}, DataType::Float);
  EXPECT_USER_ERROR(argsort(scalar_tensor, 0, false, false), HasSubstr("has rank 0"));
}

}  // namespace
}  // namespace fusebox
