// Evaluator numerics of the indexing ops on small tensors whose results are
// written out by hand (several from PyTorch's documentation examples), with
// edge indices, empty tensors, int and float dtypes, and the errors for
// indices out of range.
#include <fusebox/eval/tolerance.h>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

using V = std::vector<double>;
using Sizes = std::vector<int64_t>;

Tensor ints(DataType t, Sizes sizes, const V& values) {
  return makeTensor(t, std::move(sizes), values);
}

TEST(EvalIndexing, IndexSelectPicksAlongTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 1));
  // x = [[0, 1, 2], [3, 4, 5]]
  auto outs =
      evaluateFusion(f, {makeFloat({2, 3}, arange(6)), ints(DataType::Int64, {3}, {2, 0, 1})});
  EXPECT_EQ(test::tensorOf(outs[0]).sizes(), (Sizes{2, 3}));
  EXPECT_EQ(valuesOf(outs[0]), (V{2, 0, 1, 5, 3, 4}));
  // Int32 data and indices, rows repeated.
  Fusion g;
  auto* y = defineTensor(g, {-1, -1}, DataType::Int32);
  auto* j = defineTensor(g, {-1}, DataType::Int32);
  g.addOutput(indexSelect(y, j, 0));
  Tensor out = runOne(g, {ints(DataType::Int32, {3, 2}, {10, 11, 12, 13, 14, 15}),
                          ints(DataType::Int32, {4}, {2, 2, 0, 1})});
  EXPECT_EQ(out.dtype(), DataType::Int32);
  EXPECT_EQ(valuesOf(out), (V{14, 15, 14, 15, 10, 11, 12, 13}));
}

TEST(EvalIndexing, IndexSelectWithAScalarIndexKeepsTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {2, 3}, DataType::Double);
  auto* idx = defineTensor(f, {}, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 1));
  Tensor out =
      runOne(f, {makeTensor(DataType::Double, {2, 3}, arange(6)), ints(DataType::Int64, {}, {2})});
  EXPECT_EQ(out.sizes(), (Sizes{2, 1}));
  EXPECT_EQ(valuesOf(out), (V{2, 5}));
}

TEST(EvalIndexing, IndexSelectOfNoIndicesIsEmpty) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 0));
  Tensor out = runOne(f, {makeFloat({2, 3}, arange(6)), ints(DataType::Int64, {0}, {})});
  EXPECT_EQ(out.sizes(), (Sizes{0, 3}));
}

TEST(EvalIndexing, OutOfRangeIndicesNameTheOpTheIndexAndTheDim) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 1));
  auto x_value = makeFloat({2, 3}, arange(6));
  EXPECT_USER_ERROR(runOne(f, {x_value, ints(DataType::Int64, {2}, {0, 3})}),
                    HasSubstr("T2_g = index_select(T0_g, T1_g): index_select: index 3 (at [1] of "
                              "T1_g) is out of range for dim 1 of T0_g, of size 3 (expected 0 <= "
                              "index < 3)"));
  // Negative indices are errors too, as in torch.index_select.
  EXPECT_USER_ERROR(runOne(f, {x_value, ints(DataType::Int64, {1}, {-1})}),
                    HasSubstr("index -1 (at [0] of T1_g) is out of range for dim 1"));
}

TEST(EvalIndexing, SelectCountsNegativeIndicesFromTheEnd) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* i = defineScalar(f, DataType::Int64);
  f.addOutput(select(x, i, 1));
  f.addOutput(select(x, f.constantInt(1), 0));
  auto x_value = makeFloat({2, 3}, arange(6));
  auto outs = evaluateFusion(f, {x_value, ScalarValue(int64_t{-1})});
  EXPECT_EQ(test::tensorOf(outs[0]).sizes(), (Sizes{2}));
  EXPECT_EQ(valuesOf(outs[0]), (V{2, 5}));
  EXPECT_EQ(valuesOf(outs[1]), (V{3, 4, 5}));
  EXPECT_EQ(valuesOf(evaluateFusion(f, {x_value, ScalarValue(int64_t{-3})})[0]), (V{0, 3}));
  EXPECT_USER_ERROR(evaluateFusion(f, {x_value, ScalarValue(int64_t{3})}),
                    HasSubstr("select: index 3 is out of range for dim 1 of T0_g, of size 3 "
                              "(expected -3 <= index < 3)"));
  EXPECT_USER_ERROR(evaluateFusion(f, {x_value, ScalarValue(int64_t{-4})}),
                    HasSubstr("select: index -4 is out of range"));
}

TEST(EvalIndexing, GatherFollowsTorchGather) {
  // torch.gather(torch.tensor([[1, 2], [3, 4]]), 1, torch.tensor([[0, 0], [1, 0]]))
  //   = [[1, 1], [4, 3]]; along dim 0 with [[0, 1], [1, 0]]: [[1, 4], [3, 2]].
  for (int64_t dim : {1, 0}) {
    SCOPED_TRACE(dim);
    Fusion f;
    auto* x = defineTensor(f, {-1, -1}, DataType::Int64);
    auto* idx = defineTensor(f, {-1, -1}, DataType::Int32);
    f.addOutput(gather(x, idx, dim));
    const V index = dim == 1 ? V{0, 0, 1, 0} : V{0, 1, 1, 0};
    Tensor out = runOne(
        f, {ints(DataType::Int64, {2, 2}, {1, 2, 3, 4}), ints(DataType::Int32, {2, 2}, index)});
    EXPECT_EQ(out.dtype(), DataType::Int64);
    EXPECT_EQ(valuesOf(out), dim == 1 ? (V{1, 1, 4, 3}) : (V{1, 4, 3, 2}));
  }
}

TEST(EvalIndexing, GatherWithASmallerIndex) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1, -1}, DataType::Int64);
  f.addOutput(gather(x, idx, 1));
  // x = arange(9) as 3x3; rows 0 and 1 only, one index each.
  Tensor out = runOne(f, {makeFloat({3, 3}, arange(9)), ints(DataType::Int64, {2, 1}, {2, 0})});
  EXPECT_EQ(out.sizes(), (Sizes{2, 1}));
  EXPECT_EQ(valuesOf(out), (V{2, 3}));
  // An index larger than the input outside the gathered dim would read past it.
  EXPECT_USER_ERROR(
      runOne(f, {makeFloat({3, 3}, arange(9)), ints(DataType::Int64, {4, 1}, {0, 0, 0, 0})}),
      HasSubstr("gather: index T1_g has size 4 in dim 0, larger than T0_g (3); "
                "outside dim 1 the index may not exceed the input"));
  EXPECT_USER_ERROR(
      runOne(f, {makeFloat({3, 3}, arange(9)), ints(DataType::Int64, {1, 2}, {1, 7})}),
      HasSubstr("gather: index 7 (at [0, 1] of T1_g) is out of range for dim 1 of "
                "T0_g, of size 3"));
  // No index, no element.
  EXPECT_EQ(runOne(f, {makeFloat({3, 3}, arange(9)), ints(DataType::Int64, {0, 2}, {})}).sizes(),
            (Sizes{0, 2}));
}

TEST(EvalIndexing, TakeAlongAxisBroadcastsTheIndex) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {1, -1}, DataType::Int64);  // a broadcast dim 0
  f.addOutput(takeAlongAxis(x, idx, 1));
  // x = [[0, 1, 2], [3, 4, 5]]; the index row [2, 0] applies to both rows.
  Tensor out = runOne(f, {makeFloat({2, 3}, arange(6)), ints(DataType::Int64, {1, 2}, {2, 0})});
  EXPECT_EQ(out.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(valuesOf(out), (V{2, 0, 5, 3}));

  // And the input broadcasts against the index.
  Fusion g;
  auto* row = defineTensor(g, {1, -1}, DataType::Int32);
  auto* j = defineTensor(g, {-1, -1}, DataType::Int32);
  g.addOutput(takeAlongAxis(row, j, 1));
  Tensor out2 = runOne(
      g, {ints(DataType::Int32, {1, 3}, {7, 8, 9}), ints(DataType::Int32, {2, 2}, {0, 0, 2, 1})});
  EXPECT_EQ(valuesOf(out2), (V{7, 7, 9, 8}));

  // A dim declared -1 does not stretch at run time: sizes 2 and 3 conflict.
  Fusion h;
  auto* a = defineTensor(h, {-1, -1}, DataType::Float);
  auto* b = defineTensor(h, {-1, -1}, DataType::Int64);
  h.addOutput(takeAlongAxis(a, b, 1));
  EXPECT_USER_ERROR(
      runOne(h, {makeFloat({2, 3}, arange(6)), ints(DataType::Int64, {3, 1}, {0, 0, 0})}),
      HasSubstr("take_along_axis: dim 0 of the input T0_g has size 2 and of the "
                "index T1_g size 3"));
}

TEST(EvalIndexing, ScatterWritesSourceRowsOutOfPlace) {
  // torch.zeros(3, 5).scatter_(0, torch.tensor([[0, 1, 2, 0]]), arange(1, 11).reshape(2, 5))
  //   = [[1, 0, 0, 4, 0], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]
  Fusion f;
  auto* self = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1, -1}, DataType::Int64);
  auto* src = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(scatter(self, idx, src, 0));
  Tensor zeros = makeFloat({3, 5}, V(15, 0.0));
  Tensor out = runOne(
      f, {zeros, ints(DataType::Int64, {1, 4}, {0, 1, 2, 0}), makeFloat({2, 5}, arange(10, 1))});
  EXPECT_EQ(valuesOf(out), (V{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}));
  EXPECT_EQ(valuesOf(zeros), V(15, 0.0));  // out of place: the input is untouched
  EXPECT_USER_ERROR(runOne(f, {zeros, ints(DataType::Int64, {1, 1}, {3}), makeFloat({1, 1}, {9})}),
                    HasSubstr("scatter: index 3 (at [0, 0] of T1_g) is out of range for dim 0 of "
                              "T0_g, of size 3"));
}

TEST(EvalIndexing, ScatterOfAScalarAndRepeatedIndices) {
  // torch.full((2, 4), 2.).scatter_(1, torch.tensor([[2], [3]]), 1.23)
  //   = [[2, 2, 1.23, 2], [2, 2, 2, 1.23]]
  Fusion f;
  auto* self = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1, -1}, DataType::Int32);
  f.addOutput(scatter(self, idx, f.constantDouble(1.23), 1));
  Tensor out = runOne(f, {makeFloat({2, 4}, V(8, 2.0)), ints(DataType::Int32, {2, 1}, {2, 3})});
  const double v = test::asFloat(1.23);
  EXPECT_EQ(valuesOf(out), (V{2, 2, v, 2, 2, 2, 2, v}));

  // Repeated indices: the last write in index order wins.
  Fusion g;
  auto* s = defineTensor(g, {-1}, DataType::Int64);
  auto* i = defineTensor(g, {-1}, DataType::Int64);
  auto* src = defineTensor(g, {-1}, DataType::Int64);
  g.addOutput(scatter(s, i, src, 0));
  Tensor out2 = runOne(g, {ints(DataType::Int64, {3}, {0, 0, 0}),
                           ints(DataType::Int64, {2}, {1, 1}), ints(DataType::Int64, {2}, {5, 7})});
  EXPECT_EQ(valuesOf(out2), (V{0, 7, 0}));
  // An empty index writes nothing.
  Tensor out3 = runOne(g, {ints(DataType::Int64, {3}, {4, 5, 6}), ints(DataType::Int64, {0}, {}),
                           ints(DataType::Int64, {0}, {})});
  EXPECT_EQ(valuesOf(out3), (V{4, 5, 6}));
}

TEST(EvalIndexing, IndicesIntoAnEmptyDimAreAnErrorEvenWithNoOutputElements) {
  Fusion f;
  auto* self = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1, -1}, DataType::Int64);
  f.addOutput(scatter(self, idx, f.constantDouble(1.0), 0));
  EXPECT_USER_ERROR(runOne(f, {makeFloat({0, 2}, {}), ints(DataType::Int64, {1, 2}, {0, 0})}),
                    HasSubstr("= scatter(T0_g, T1_g, "), HasSubstr("dim 0 of T0_g (size 0"),
                    HasSubstr("is empty, so none of the 2 indices of T1_g is in range"));
}

TEST(EvalIndexing, EmbeddingLooksUpRows) {
  Fusion f;
  auto* ids = defineTensor(f, {-1, -1}, DataType::Int64);
  auto* weight = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(embedding(ids, weight));
  // weight = arange(8) as 4x2: row r is [2r, 2r + 1].
  Tensor out =
      runOne(f, {ints(DataType::Int64, {2, 2}, {3, 0, 1, 1}), makeFloat({4, 2}, arange(8))});
  EXPECT_EQ(out.sizes(), (Sizes{2, 2, 2}));
  EXPECT_EQ(valuesOf(out), (V{6, 7, 0, 1, 2, 3, 2, 3}));
  EXPECT_USER_ERROR(runOne(f, {ints(DataType::Int64, {1, 1}, {4}), makeFloat({4, 2}, arange(8))}),
                    HasSubstr("index_select: index 4 (at [0] of"),
                    HasSubstr("is out of range for dim 0 of T1_g, of size 4"));
}

TEST(EvalIndexing, MovedValuesCompareBitForBit) {
  // The tolerance model: indexing moves values, so a kernel must match exactly.
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(indexSelect(x, idx, 1));
  f.addOutput(indexSelect(exp(x), idx, 1));
  std::vector<Argument> in = {makeFloat({2, 3}, arange(6)), ints(DataType::Int64, {2}, {2, 0})};
  auto tolerances = outputTolerances(f, in);
  EXPECT_EQ(tolerances[0].mode, OutputTolerance::Mode::Exact);
  EXPECT_EQ(tolerances[1].mode, OutputTolerance::Mode::Base);
}

TEST(EvalIndexing, ErrorBoundsMoveWithTheGatheredValues) {
  // sum(x, 1) is Bounded; index_select of it carries each row's bound to where
  // the row goes.
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* idx = defineTensor(f, {-1}, DataType::Int64);
  auto* sums = sum(x, {1});
  f.addOutput(sums);
  f.addOutput(indexSelect(sums, idx, 0));
  std::vector<Argument> in = {makeFloat({2, 2}, {1, 2, 100, 200}),
                              ints(DataType::Int64, {3}, {1, 1, 0})};
  auto tolerances = outputTolerances(f, in);
  ASSERT_EQ(tolerances[1].mode, OutputTolerance::Mode::Bounded);
  const V row_bounds = valuesOf(tolerances[0].bound);
  EXPECT_EQ(valuesOf(tolerances[1].bound), (V{row_bounds[1], row_bounds[1], row_bounds[0]}));
  EXPECT_GT(row_bounds[1], row_bounds[0]);
}

}  // namespace
}  // namespace fusebox
