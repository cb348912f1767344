// Evaluator numerics of matmul (torch.matmul rules) and linear, against naive loops.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

Tensor doubles(std::vector<int64_t> sizes, double start = 1, double step = 1) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return makeTensor(DataType::Double, std::move(sizes), arange(n, start, step));
}

// `a_shape` / `b_shape`: define_tensor shapes (default: all symbolic).
Tensor matmulOf(const Tensor& a, const Tensor& b, std::vector<int64_t> a_shape = {},
                std::vector<int64_t> b_shape = {}) {
  if (a_shape.empty()) a_shape.assign(a.dim(), -1);
  if (b_shape.empty()) b_shape.assign(b.dim(), -1);
  Fusion f;
  auto* ta = defineTensor(f, a_shape, a.dtype());
  auto* tb = defineTensor(f, b_shape, b.dtype());
  f.addOutput(matmul(ta, tb));
  return runOne(f, {a, b});
}

TEST(EvalMatmul, DotOfVectors) {
  Tensor out = matmulOf(doubles({3}), doubles({3}, 4));  // [1 2 3] . [4 5 6]
  EXPECT_EQ(out.dim(), 0);
  EXPECT_EQ(valuesOf(out), (std::vector<double>{32}));
}

TEST(EvalMatmul, TwoByTwoByHand) {
  // [[1 2] [3 4]] @ [[5 6] [7 8]] = [[19 22] [43 50]]
  Tensor out = matmulOf(doubles({2, 2}), doubles({2, 2}, 5));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{19, 22, 43, 50}));
}

TEST(EvalMatmul, VectorTimesMatrixAndBack) {
  // [1 2] @ [[1 2 3] [4 5 6]] = [9 12 15]
  Tensor vm = matmulOf(doubles({2}), doubles({2, 3}));
  EXPECT_EQ(vm.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(valuesOf(vm), (std::vector<double>{9, 12, 15}));
  // [[1 2 3] [4 5 6]] @ [1 2 3] = [14 32]
  Tensor mv = matmulOf(doubles({2, 3}), doubles({3}));
  EXPECT_EQ(mv.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(valuesOf(mv), (std::vector<double>{14, 32}));
}

TEST(EvalMatmul, BatchedWithBroadcastMatchesNaiveLoop) {
  // a: [2, 1, 3, 4], b: [3, 4, 5] -> [2, 3, 3, 5]; a's broadcast batch dim 1 stretches.
  Tensor a = doubles({2, 1, 3, 4}, -3, 0.5);
  Tensor b = doubles({3, 4, 5}, 2, -0.25);
  Tensor out = matmulOf(a, b, {-1, 1, -1, -1});
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 3, 5}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t m = 0; m < 3; ++m)
        for (int64_t n = 0; n < 5; ++n) {
          double want = 0;
          for (int64_t k = 0; k < 4; ++k)
            want += a.getDouble({i, 0, m, k}) * b.getDouble({j, k, n});
          EXPECT_DOUBLE_EQ(out.getDouble({i, j, m, n}), want);
        }
}

TEST(EvalMatmul, BatchedVectorOperand) {
  // [2, 3, 4] @ [4] -> [2, 3]
  Tensor a = doubles({2, 3, 4});
  Tensor out = matmulOf(a, doubles({4}, 1, 0));  // b = ones: row sums
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{10, 26, 42, 58, 74, 90}));
}

TEST(EvalMatmul, StridedOperandsAndFloatRounding) {
  // b is the transpose view of a contiguous [3, 2]: b = [[1 3 5] [2 4 6]]^T... as [2, 3] logical.
  Tensor storage = doubles({3, 2});
  Tensor bt = storage.asStrided({2, 3}, {1, 2}, 0);  // [[1 3 5] [2 4 6]]
  Fusion f;
  auto* ta = defineTensor(f, {-1, -1}, DataType::Float);
  auto* tb = defineTensor(f, {-1, -1}, DataType::Double);
  f.addOutput(matmul(ta, tb));
  Tensor a = makeTensor(DataType::Float, {1, 2}, {0.1, 1});
  Tensor out = runOne(f, {a, bt});
  EXPECT_EQ(out.dtype(), DataType::Double);
  const double tenth = static_cast<float>(0.1);  // a holds 0.1 rounded to float
  EXPECT_EQ(valuesOf(out), (std::vector<double>{tenth + 2, 3 * tenth + 4, 5 * tenth + 6}));
}

TEST(EvalMatmul, ContractionMismatchIsAUserError) {
  EXPECT_USER_ERROR(matmulOf(doubles({2, 3}), doubles({4, 2})), HasSubstr("= matmul("),
                    HasSubstr("contraction sizes differ"), HasSubstr("(size 3, from input #0"),
                    HasSubstr("(size 4, from input #1"));
  EXPECT_USER_ERROR(matmulOf(doubles({2, 2, 3}), doubles({3, 3, 2})),
                    HasSubstr("batch dim 0 does not broadcast"));
  // A size-1 batch dim declared symbolic (not broadcast) does not stretch.
  EXPECT_USER_ERROR(matmulOf(doubles({1, 2, 3}), doubles({3, 3, 2})), HasSubstr("batch dim 0 of a"),
                    HasSubstr("has size 1, expected 3"), HasSubstr("cannot stretch"));
}

TEST(EvalLinear, WithAndWithoutBias) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1, -1}, DataType::Double);
  auto* w = defineTensor(f, {-1, -1}, DataType::Double);
  auto* b = defineTensor(f, {-1}, DataType::Double);
  f.addOutput(linear(x, w));
  f.addOutput(linear(x, w, b));
  Tensor tx = doubles({2, 1, 3});  // rows [1 2 3] and [4 5 6]
  Tensor tw = doubles({2, 3}, 0);  // [[0 1 2] [3 4 5]]
  Tensor tb = makeTensor(DataType::Double, {2}, {100, 200});
  auto outs = test::run(f, {tx, tw, tb});
  EXPECT_EQ(test::tensorOf(outs[0]).sizes(), (std::vector<int64_t>{2, 1, 2}));
  // [1 2 3] . [0 1 2] = 8, . [3 4 5] = 26; [4 5 6] . [0 1 2] = 17, . [3 4 5] = 62.
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{8, 26, 17, 62}));
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{108, 226, 117, 262}));
}

TEST(EvalLinear, VectorWeight) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* w = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(linear(x, w));
  Tensor out = runOne(f, {makeTensor(DataType::Float, {2, 2}, {1, 2, 3, 4}),
                          makeTensor(DataType::Float, {2}, {10, 1})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{12, 34}));
}

}  // namespace
}  // namespace fusebox
