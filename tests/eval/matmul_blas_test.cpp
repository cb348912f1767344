// The evaluator's matmul and linear through the host's BLAS (dgemm in
// float64): the same results as a plain float64 loop written here, for every
// layout the evaluator takes (batch dims broadcast either side, transposed
// and strided operands, 1-D operands, linear's leading dims and bias), and
// nvFuser's 2048x1600x1600 repro linear in seconds (a ctest timeout in
// suite.cmake; the evaluator's own loop took minutes).
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <cmath>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using Sizes = std::vector<int64_t>;

// Values exact in float32 and distinct, so that a misplaced element shows.
Tensor pattern(DataType dtype, const Sizes& sizes, int salt) {
  Tensor t = Tensor::empty(dtype, sizes);
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((static_cast<int64_t>(i) * 37 + salt * 11) % 41 - 20) / 8.0;
  return test::makeTensor(dtype, sizes, v);
}

// out[b..., m, n] = sum_k a[b..., m, k] * b[b..., k, n] with the batch dims
// of a 3-D or 2-D `a` and `b` broadcast (size 1 stretches), in float64.
Tensor referenceMatmul(const Tensor& a, const Tensor& b) {
  const int64_t ba = a.dim() == 3 ? a.sizes()[0] : 1, bb = b.dim() == 3 ? b.sizes()[0] : 1;
  const int64_t batch = std::max(ba, bb);
  const int64_t m = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1], n = b.sizes()[b.dim() - 1];
  Sizes out_sizes = {m, n};
  if (a.dim() == 3 || b.dim() == 3) out_sizes.insert(out_sizes.begin(), batch);
  Tensor out = Tensor::empty(DataType::Double, out_sizes);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) {
          Sizes ia = {i, q}, ib = {q, j};
          if (a.dim() == 3) ia.insert(ia.begin(), ba == 1 ? 0 : p);
          if (b.dim() == 3) ib.insert(ib.begin(), bb == 1 ? 0 : p);
          acc += a.getDouble(ia) * b.getDouble(ib);
        }
        Sizes io = {i, j};
        if (out_sizes.size() == 3) io.insert(io.begin(), p);
        out.setDouble(io, acc);
      }
  return out;
}

void expectSame(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  const std::vector<double> g = got.toDoubles(), w = want.toDoubles();
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], w[i], 1e-12 * std::max(1.0, std::fabs(w[i]))) << "element " << i;
}

TEST(EvalMatmulBlas, MatmulOfEveryLayoutMatchesAFloat64Loop) {
  struct Case {
    Sizes a, b;
    bool transpose_b;
  };
  for (const Case& c : {Case{{96, 80}, {80, 64}, false}, Case{{3, 40, 50}, {3, 50, 30}, false},
                        Case{{1, 40, 50}, {4, 50, 30}, false}, Case{{4, 40, 50}, {50, 30}, false},
                        Case{{40, 50}, {30, 50}, true}, Case{{2, 70, 33}, {1, 33, 65}, false}}) {
    Fusion f;
    // A batch dim of size 1 is declared a broadcast, so that it stretches.
    auto operand = [&](const Sizes& sizes) {
      std::vector<int64_t> shape(sizes.size(), -1);
      if (sizes.size() == 3 && sizes[0] == 1) shape[0] = 1;
      return defineTensor(f, shape, DataType::Double);
    };
    TensorView* a = operand(c.a);
    TensorView* b = operand(c.b);
    TensorView* rhs = c.transpose_b ? permute(b, {1, 0}) : b;
    f.addOutput(matmul(a, rhs));
    const Tensor ta = pattern(DataType::Double, c.a, 1), tb = pattern(DataType::Double, c.b, 2);
    Tensor got = std::get<Tensor>(evaluateFusion(f, {ta, tb})[0]);
    Tensor b_view = c.transpose_b ? tb.asStrided({c.b[1], c.b[0]}, {1, c.b[1]}, 0) : tb;
    expectSame(got, referenceMatmul(ta, b_view));
  }
}

// x [2, 3, 40, K] @ w[N, K]^T + bias, x read through a transposed view.
TEST(EvalMatmulBlas, LinearWithLeadingDimsAndBiasMatchesAFloat64Loop) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 3, DataType::Float);
  TensorView* w = defineSymbolicTensor(f, 2, DataType::Float);
  TensorView* bias = defineSymbolicTensor(f, 1, DataType::Float);
  f.addOutput(linear(permute(x, {1, 0, 2}), w, bias));
  const int64_t k = 64, n = 48;
  const Tensor tx = pattern(DataType::Float, {40, 3, k}, 3),
               tw = pattern(DataType::Float, {n, k}, 4), tb = pattern(DataType::Float, {n}, 5);
  Tensor got = std::get<Tensor>(evaluateFusion(f, {tx, tw, tb})[0]);
  ASSERT_EQ(got.sizes(), (Sizes{3, 40, n}));
  for (int64_t p = 0; p < 3; ++p)
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = tb.getDouble({j});
        for (int64_t q = 0; q < k; ++q) acc += tx.getDouble({i, p, q}) * tw.getDouble({j, q});
        // float32 outputs: the exact sum rounded once.
        ASSERT_EQ(got.getDouble({p, i, j}), static_cast<double>(static_cast<float>(acc)))
            << p << ", " << i << ", " << j;
      }
}

// test_issue2317 of nvFuser's repro tests: a bf16 linear of 2048x1600 by
// 1600x1600. Its values against a float64 loop over a sample of rows.
TEST(EvalMatmulBlas, ALinearOfNvfusersReproRunsInSeconds) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2, DataType::BFloat16);
  TensorView* w = defineSymbolicTensor(f, 2, DataType::BFloat16);
  f.addOutput(linear(x, w));
  const int64_t m = 2048, k = 1600, n = 1600;
  const Tensor tx = pattern(DataType::BFloat16, {m, k}, 6),
               tw = pattern(DataType::BFloat16, {n, k}, 7);
  const std::vector<Argument> inputs = {tx, tw};
  Tensor got = std::get<Tensor>(evaluateFusion(f, inputs)[0]);
  ASSERT_EQ(got.sizes(), (Sizes{m, n}));
  for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{777}, m - 1})
    for (int64_t j = 0; j < n; j += 97) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) acc += tx.getDouble({i, q}) * tw.getDouble({j, q});
      Tensor one = Tensor::empty(DataType::BFloat16, {1});
      one.setDouble({0}, acc);
      ASSERT_EQ(got.getDouble({i, j}), one.getDouble({0})) << i << ", " << j;
    }
  // The tolerance model's matmul bounds go through the same product.
  const auto tolerances = outputTolerances(f, inputs);
  EXPECT_TRUE(checkClose(got, got, tolerances[0]).pass);
}

}  // namespace
}  // namespace fusebox
