// What the evaluator and the input validation check of indexing ops before
// anything reads at an index (issue 29): the index tensor's sizes against
// the input's outside the indexed dim (kernels read where these say, so
// validateInputs checks them once per signature), and every index value
// even where the output is empty (torch raises then too).
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include "eval/eval_test_util.h"
#include "support/user_error_text.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using Sizes = std::vector<int64_t>;

Tensor indices(Sizes sizes, const std::vector<double>& values) {
  return test::makeTensor(DataType::Int64, std::move(sizes), values);
}

Tensor zerosOf(Sizes sizes) {
  Tensor t = Tensor::empty(DataType::Float, sizes);
  std::vector<double> zeros(static_cast<size_t>(t.numel()), 0.0);
  return test::makeFloat(std::move(sizes), zeros);
}

std::string validationError(const Fusion& f, const std::vector<Argument>& inputs) {
  return testing::userErrorText([&] { validateInputs(f, inputs); });
}

std::string evaluationError(const Fusion& f, const std::vector<Argument>& inputs) {
  return testing::userErrorText([&] { evaluateFusion(f, inputs); });
}

TEST(IndexChecks, GatherIndexSizesAreCheckedBeforeAnythingRuns) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* idx = defineSymbolicTensor(f, 2, DataType::Int64);
  f.addOutput(gather(x, idx, 1));
  const Tensor in = test::makeFloat({3, 4}, std::vector<double>(12, 1.0));
  const std::string want =
      "gather: index T1_g has size 4 in dim 0, larger than T0_g (3); outside dim 1 the index "
      "may not exceed the input";
  EXPECT_THAT(validationError(f, {in, indices({4, 2}, std::vector<double>(8, 0))}),
              HasSubstr(want));
  EXPECT_THAT(evaluationError(f, {in, indices({4, 2}, std::vector<double>(8, 0))}),
              HasSubstr(want));
  EXPECT_EQ(validationError(f, {in, indices({2, 2}, {0, 1, 2, 3})}), "no error");
}

TEST(IndexChecks, ScatterAndTakeAlongAxisSizesAreCheckedToo) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* idx = defineSymbolicTensor(f, 2, DataType::Int64);
  TensorView* src = defineSymbolicTensor(f, 2);
  f.addOutput(scatter(x, idx, src, 0));
  const Tensor in = zerosOf({3, 4});
  EXPECT_THAT(
      validationError(f, {in, indices({2, 5}, std::vector<double>(10, 0)), zerosOf({2, 5})}),
      HasSubstr("index T1_g has size 5 in dim 1, larger than T0_g (4); outside dim 0"));
  EXPECT_THAT(validationError(f, {in, indices({2, 2}, std::vector<double>(4, 0)), zerosOf({1, 2})}),
              HasSubstr("index T1_g has size 2 in dim 0, larger than T2_g (1)"));

  Fusion g;
  TensorView* y = defineSymbolicTensor(g, 2);
  TensorView* j = defineSymbolicTensor(g, 2, DataType::Int64);
  g.addOutput(takeAlongAxis(y, j, 1));
  EXPECT_THAT(validationError(g, {in, indices({5, 2}, std::vector<double>(10, 0))}),
              HasSubstr("take_along_axis: dim 0 of the input T0_g has size 3 and of the index "
                        "T1_g size 5; outside dim 1 they must be equal, or 1 in a dim that may "
                        "broadcast"));
  EXPECT_EQ(validationError(g, {in, indices({3, 2}, std::vector<double>(6, 0))}), "no error");
}

// index_select of [0, 4] by one index along dim 1 is [0, 1]: nothing read,
// yet index 9 is out of range for a dim of 4.
TEST(IndexChecks, IndicesBehindAnEmptyOutputAreStillChecked) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* idx = defineSymbolicTensor(f, 1, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 1));
  EXPECT_THAT(evaluationError(f, {zerosOf({0, 4}), indices({1}, {9})}),
              HasSubstr("index_select: index 9 (at [0] of T1_g) is out of range for dim 1 of "
                        "T0_g, of size 4"));
  auto outs = evaluateFusion(f, {zerosOf({0, 4}), indices({1}, {3})});
  EXPECT_EQ(std::get<Tensor>(outs[0]).sizes(), (Sizes{0, 1}));

  Fusion g;
  TensorView* y = defineSymbolicTensor(g, 2);
  TensorView* j = defineTensor(g, {1, -1}, DataType::Int64);  // broadcasts over y's rows
  g.addOutput(takeAlongAxis(y, j, 1));
  EXPECT_THAT(evaluationError(g, {zerosOf({0, 4}), indices({1, 2}, {1, 4})}),
              HasSubstr("take_along_axis: index 4 (at [0, 1] of T1_g) is out of range"));
}

TEST(IndexChecks, EmbeddingOfAnEmptyRowIsStillIndexed) {
  Fusion f;
  TensorView* ids = defineSymbolicTensor(f, 1, DataType::Int64);
  TensorView* weight = defineSymbolicTensor(f, 2);
  f.addOutput(embedding(ids, weight));
  EXPECT_THAT(evaluationError(f, {indices({1}, {7}), zerosOf({5, 0})}),
              HasSubstr("index 7 (at [0] of T0_g) is out of range for dim 0 of T1_g, of size 5"));
}

}  // namespace
}  // namespace fusebox
