// The tolerance model (fusebox/eval/tolerance.h): which outputs compare bit
// for bit, which with the base tolerance, and the per-element bounds after a
// reduction. The bounds are checked against kernels simulated here in float32
// (other summation orders, Welford, float library functions): every one must
// land within its bound, and the bound must stay tight enough that a result
// off by one is caught.
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <cmath>
#include <functional>
#include <random>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using Mode = OutputTolerance::Mode;
using ::testing::HasSubstr;

Tensor uniformTensor(DataType dtype, const std::vector<int64_t>& sizes, uint32_t seed,
                     double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t = Tensor::empty(dtype, sizes);
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (double& v : values) v = dist(rng);
  return test::makeTensor(dtype, sizes, values);
}

// v rounded to dtype as the tensors store it.
double roundTo(DataType dtype, double v) {
  Tensor t = Tensor::empty(dtype, {1});
  t.setDouble({0}, v);
  return t.getDouble({0});
}

std::vector<double> boundOf(const OutputTolerance& t, int64_t numel) {
  if (!t.bound.defined()) return std::vector<double>(static_cast<size_t>(numel), 0.0);
  return t.bound.toDoubles();
}

// Row r of a row-major [rows, cols] value list.
std::vector<double> row(const std::vector<double>& v, int64_t cols, int64_t r) {
  return {v.begin() + r * cols, v.begin() + (r + 1) * cols};
}

// Float32 sums in three orders a kernel may use: forward, backward, and a
// tree over 32 lanes (a warp's shuffle reduction).
std::vector<float> floatSums(const std::vector<double>& x) {
  float forward = 0, backward = 0;
  for (double v : x) forward += static_cast<float>(v);
  for (size_t i = x.size(); i-- > 0;) backward += static_cast<float>(x[i]);
  std::vector<float> lanes(32, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) lanes[i % 32] += static_cast<float>(x[i]);
  for (size_t width = 16; width > 0; width /= 2)
    for (size_t i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  return {forward, backward, lanes[0]};
}

// Expects every simulated value within the model's bound of the evaluator's.
void expectWithinBound(const std::vector<double>& simulated, const std::vector<double>& want,
                       const std::vector<double>& bound, const std::string& what) {
  ASSERT_EQ(simulated.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_LE(std::fabs(simulated[i] - want[i]), bound[i])
        << what << " element " << i << ": simulated " << simulated[i] << ", evaluator " << want[i];
}

TEST(ToleranceModel, ModesFollowWhatEachOutputDependsOn) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  TensorView* s = sum(xf, {1});
  f.addOutput(s);                                     // 0: a reduction
  f.addOutput(mul(x, f.constantDouble(2.0)));         // 1: pointwise
  f.addOutput(permute(x, {1, 0}));                    // 2: data movement
  f.addOutput(add(xf, broadcast(s, {false, true})));  // 3: after a reduction
  f.addOutput(castOp(DataType::Int64, xf));           // 4: integers, pointwise
  f.addOutput(matmul(xf, permute(xf, {1, 0})));       // 5: K = 1024
  f.addOutput(x);                                     // 6: an input as it is
  std::vector<Argument> inputs = {uniformTensor(DataType::BFloat16, {8, 1024}, 1)};
  auto t = outputTolerances(f, inputs);
  ASSERT_EQ(t.size(), 7u);
  const Mode want[] = {Mode::Bounded, Mode::Base,    Mode::Exact, Mode::Bounded,
                       Mode::Base,    Mode::Bounded, Mode::Exact};
  const int64_t terms[] = {1024, 1, 1, 1024, 1, 1024, 1};
  for (size_t k = 0; k < t.size(); ++k) {
    EXPECT_EQ(t[k].mode, want[k]) << "output " << k;
    EXPECT_EQ(t[k].reduction_size, terms[k]) << "output " << k;
  }
  // The pointwise output keeps its dtype's tolerance, whatever the fusion sums.
  EXPECT_EQ(t[1].base.rtol, toleranceFor(DataType::BFloat16).rtol);
  EXPECT_FALSE(t[1].bound.defined());
  EXPECT_EQ(t[1].describe(), "atol 0.032, rtol 0.032");
  EXPECT_EQ(t[2].describe(), "bit for bit");
  EXPECT_EQ(t[4].describe(), "exact");
  EXPECT_THAT(t[0].describe(), HasSubstr("or the rounding of 1024-term reductions, up to "));
}

TEST(ToleranceModel, ASumOfKTermsIsBoundedByItsAccumulatedRounding) {
  // The documented rule for a sum of float32 inputs: (K + 1) u sum |x_j| for
  // the accumulation plus 2 u |y| for the rounding of the result, u = 2^-24.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  f.addOutput(sum(x, {1}));
  const int64_t k = 300;
  Tensor in = uniformTensor(DataType::Float, {4, k}, 2);
  auto t = outputTolerances(f, {in});
  const std::vector<double> bound = boundOf(t[0], 4), v = in.toDoubles();
  const double u = std::ldexp(1.0, -24);
  for (int64_t r = 0; r < 4; ++r) {
    double sum_abs = 0, y = 0;
    for (double xv : row(v, k, r)) {
      sum_abs += std::fabs(xv);
      y += xv;
    }
    y = roundTo(DataType::Float, y);
    EXPECT_NEAR(bound[r], (k + 1) * u * sum_abs + 2 * u * std::fabs(y), 1e-12) << "row " << r;
  }
}

TEST(ToleranceModel, BoundsHoldForSumsInAnyOrder) {
  // bfloat16 in, float accumulation, bfloat16 out: values of both signs, and
  // positive ones whose sums grow to ~512.
  for (auto [lo, hi] : {std::pair{-1.0, 1.0}, std::pair{0.0, 1.0}}) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
    f.addOutput(castOp(DataType::BFloat16, sum(castOp(DataType::Float, x), {1})));
    Tensor in = uniformTensor(DataType::BFloat16, {8, 1024}, 3, lo, hi);
    auto t = outputTolerances(f, {in});
    const std::vector<double> want = std::get<Tensor>(evaluateFusion(f, {in})[0]).toDoubles();
    const std::vector<double> bound = boundOf(t[0], 8), v = in.toDoubles();
    for (int64_t r = 0; r < 8; ++r) {
      const std::vector<double> x_r = row(v, 1024, r);
      double sum_abs = 0;
      for (double xv : x_r) sum_abs += std::fabs(xv);
      for (float s : floatSums(x_r))
        EXPECT_LE(std::fabs(roundTo(DataType::BFloat16, s) - want[r]), bound[r]) << "row " << r;
      // Tight: the output's own rounding plus a small part of the magnitudes summed.
      EXPECT_LT(bound[r],
                4 * unitRoundoff(DataType::BFloat16) * std::fabs(want[r]) + 1e-3 * sum_abs)
          << "row " << r;
    }
  }
}

TEST(ToleranceModel, BoundsHoldForSoftmaxComputedInFloat) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* e = exp(sub(x, broadcast(max(x, {1}), {false, true})));
  f.addOutput(div(e, broadcast(sum(e, {1}), {false, true})));
  const int64_t n = 512;
  Tensor in = uniformTensor(DataType::Float, {4, n}, 4, -8.0, 8.0);
  auto t = outputTolerances(f, {in});
  ASSERT_EQ(t[0].mode, Mode::Bounded);
  const std::vector<double> want = std::get<Tensor>(evaluateFusion(f, {in})[0]).toDoubles();
  const std::vector<double> bound = boundOf(t[0], 4 * n), v = in.toDoubles();
  for (int order = 0; order < 2; ++order) {
    std::vector<double> simulated;
    for (int64_t r = 0; r < 4; ++r) {
      const std::vector<double> x_r = row(v, n, r);
      float m = -INFINITY;
      for (double xv : x_r) m = std::max(m, static_cast<float>(xv));
      std::vector<float> ex;
      for (double xv : x_r) ex.push_back(std::exp(static_cast<float>(xv) - m));
      float s = 0;
      for (size_t i = 0; i < ex.size(); ++i) s += ex[order == 0 ? i : ex.size() - 1 - i];
      for (float ev : ex) simulated.push_back(ev / s);
    }
    expectWithinBound(simulated, want, bound, "softmax");
  }
}

TEST(ToleranceModel, BoundsHoldForWelfordAndTwoPassVariance) {
  // A mean of 100 and a spread of 1: the case where a one-pass formula fails.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  VarMeanResult vm = varMean(x, {1});
  f.addOutput(vm.var);
  f.addOutput(vm.mean);
  const int64_t n = 1000;
  Tensor in = uniformTensor(DataType::Float, {4, n}, 5, 99.0, 101.0);
  auto t = outputTolerances(f, {in});
  auto want = evaluateFusion(f, {in});
  const std::vector<double> var = std::get<Tensor>(want[0]).toDoubles();
  const std::vector<double> mean = std::get<Tensor>(want[1]).toDoubles();
  std::vector<double> welford_var, welford_mean, two_pass_var;
  const std::vector<double> v = in.toDoubles();
  for (int64_t r = 0; r < 4; ++r) {
    float m = 0, m2 = 0;
    int count = 0;
    for (double xv : row(v, n, r)) {
      const float xf = static_cast<float>(xv);
      const float delta = xf - m;
      m += delta / static_cast<float>(++count);
      m2 += delta * (xf - m);
    }
    welford_var.push_back(m2 / static_cast<float>(n - 1));
    welford_mean.push_back(m);
    float s = 0, sq = 0;
    for (double xv : row(v, n, r)) s += static_cast<float>(xv);
    const float mean2 = s / static_cast<float>(n);
    for (double xv : row(v, n, r))
      sq += (static_cast<float>(xv) - mean2) * (static_cast<float>(xv) - mean2);
    two_pass_var.push_back(sq / static_cast<float>(n - 1));
  }
  expectWithinBound(welford_var, var, boundOf(t[0], 4), "welford var");
  expectWithinBound(two_pass_var, var, boundOf(t[0], 4), "two-pass var");
  expectWithinBound(welford_mean, mean, boundOf(t[1], 4), "welford mean");
  // Tight enough to see a variance (about 1/3) off by 5%: Welford's own
  // worst case here, K u sqrt(1 + mean^2 / var) var, is about 1%.
  for (double b : boundOf(t[0], 4)) EXPECT_LT(b, 0.05 / 3);
}

TEST(ToleranceModel, BoundsHoldForLayerNormInBfloat16) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  VarMeanResult vm = varMean(xf, {1}, /*correction=*/0);
  TensorView* inv = unaryOp(UnaryOpType::Rsqrt, add(vm.var, f.constantDouble(1e-5)));
  TensorView* y = mul(sub(xf, broadcast(vm.mean, {false, true})), broadcast(inv, {false, true}));
  f.addOutput(castOp(DataType::BFloat16, y));
  const int64_t n = 768;
  Tensor in = uniformTensor(DataType::BFloat16, {4, n}, 6, -3.0, 5.0);
  auto t = outputTolerances(f, {in});
  const std::vector<double> want = std::get<Tensor>(evaluateFusion(f, {in})[0]).toDoubles();
  const std::vector<double> v = in.toDoubles();
  std::vector<double> simulated;
  for (int64_t r = 0; r < 4; ++r) {
    float m = 0, m2 = 0;
    int count = 0;
    for (double xv : row(v, n, r)) {
      const float xf_v = static_cast<float>(xv);
      const float delta = xf_v - m;
      m += delta / static_cast<float>(++count);
      m2 += delta * (xf_v - m);
    }
    const float rs = 1.0f / std::sqrt(m2 / static_cast<float>(n) + 1e-5f);
    for (double xv : row(v, n, r))
      simulated.push_back(roundTo(DataType::BFloat16, (static_cast<float>(xv) - m) * rs));
  }
  expectWithinBound(simulated, want, boundOf(t[0], 4 * n), "layer norm");
}

TEST(ToleranceModel, MatmulBoundIsTheCublasTestsRule) {
  // (K + 1) u |A| @ |B| + 2 u_out |y|: float32 accumulation of half operands.
  Fusion f;
  TensorView* a = defineTensor(f, {-1, -1}, DataType::Half);
  TensorView* b = defineTensor(f, {-1, -1}, DataType::Half);
  f.addOutput(matmul(a, b));
  const int64_t m = 6, k = 256, n = 5;
  Tensor ta = uniformTensor(DataType::Half, {m, k}, 7),
         tb = uniformTensor(DataType::Half, {k, n}, 8);
  auto t = outputTolerances(f, {ta, tb});
  ASSERT_EQ(t[0].reduction_size, k);
  const std::vector<double> want = std::get<Tensor>(evaluateFusion(f, {ta, tb})[0]).toDoubles();
  const std::vector<double> bound = boundOf(t[0], m * n), va = ta.toDoubles(), vb = tb.toDoubles();
  std::vector<double> forward, backward;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double magnitude = 0;
      float fw = 0, bw = 0;
      for (int64_t q = 0; q < k; ++q) {
        magnitude += std::fabs(va[i * k + q] * vb[q * n + j]);
        fw += static_cast<float>(va[i * k + q]) * static_cast<float>(vb[q * n + j]);
        const int64_t p = k - 1 - q;
        bw += static_cast<float>(va[i * k + p]) * static_cast<float>(vb[p * n + j]);
      }
      const double y = want[i * n + j];
      EXPECT_NEAR(
          bound[i * n + j],
          (k + 1) * std::ldexp(1.0, -24) * magnitude + 2 * std::ldexp(1.0, -11) * std::fabs(y),
          1e-9);
      forward.push_back(roundTo(DataType::Half, fw));
      backward.push_back(roundTo(DataType::Half, bw));
    }
  expectWithinBound(forward, want, bound, "forward");
  expectWithinBound(backward, want, bound, "backward");
}

TEST(ToleranceModel, LinearCarriesTheBoundOfItsBias) {
  // linear(x, w, bias) with the bias itself a sum: its bound adds to the
  // contraction's. Simulated: float32 dot products plus a float32 bias sum.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* w = defineSymbolicTensor(f, 2);
  TensorView* parts = defineSymbolicTensor(f, 2);
  f.addOutput(linear(x, w, sum(parts, {1})));
  const int64_t m = 3, n = 4, k = 200, p = 500;
  Tensor tx = uniformTensor(DataType::Float, {m, k}, 11),
         tw = uniformTensor(DataType::Float, {n, k}, 12);
  Tensor tp = uniformTensor(DataType::Float, {n, p}, 13);
  auto t = outputTolerances(f, {tx, tw, tp});
  ASSERT_EQ(t[0].reduction_size, p);
  const std::vector<double> want = std::get<Tensor>(evaluateFusion(f, {tx, tw, tp})[0]).toDoubles();
  const std::vector<double> bound = boundOf(t[0], m * n);
  const std::vector<double> vx = tx.toDoubles(), vw = tw.toDoubles(), vp = tp.toDoubles();
  std::vector<double> simulated;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0, bias = 0;
      for (int64_t q = 0; q < k; ++q)
        acc += static_cast<float>(vx[i * k + q]) * static_cast<float>(vw[j * k + q]);
      for (int64_t q = p; q-- > 0;) bias += static_cast<float>(vp[j * p + q]);
      simulated.push_back(acc + bias);
    }
  expectWithinBound(simulated, want, bound, "linear");
  // The bias's share: its own sum's bound, at least (K + 1) u of sum |parts|.
  for (int64_t j = 0; j < n; ++j) {
    double parts_abs = 0;
    for (int64_t q = 0; q < p; ++q) parts_abs += std::fabs(vp[j * p + q]);
    EXPECT_GE(bound[j], (p + 1) * std::ldexp(1.0, -24) * parts_abs);
  }
}

TEST(ToleranceModel, ElementwiseOpsCarryTheirOperandsBounds) {
  // After a sum s with bound e (float32, so each rounding op adds (n u + 2 u)
  // |y| with n = 1 for * and +, 8 for exp and tanh):
  //   s * c (c exact)  |c| e           (a product's bound: |a| e_b + |b| e_a + e_a e_b)
  //   s + s            2 e
  //   exp(s) = y       the farther of exp(s - e) and exp(s + e) from y (monotone)
  //   tanh(s)          e                (1-Lipschitz)
  //   abs(s)           e, with no rounding of its own
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* c = defineSymbolicTensor(f, 1);
  TensorView* s = sum(x, {1});
  f.addOutput(s);
  f.addOutput(mul(s, c));
  f.addOutput(add(s, s));
  f.addOutput(exp(s));
  f.addOutput(tanh(s));
  f.addOutput(unaryOp(UnaryOpType::Abs, s));
  Tensor in = uniformTensor(DataType::Float, {3, 100}, 14, 0.0, 0.05);
  Tensor factor = test::makeFloat({3}, {1000, -250, 0.5});
  auto t = outputTolerances(f, {in, factor});
  auto want = evaluateFusion(f, {in, factor});
  const double u = std::ldexp(1.0, -24);
  const std::vector<double> e = boundOf(t[0], 3), c_v = factor.toDoubles();
  for (size_t i = 0; i < 3; ++i) {
    auto y = [&](size_t k) { return std::fabs(std::get<Tensor>(want[k]).toDoubles()[i]); };
    const double sv = std::get<Tensor>(want[0]).toDoubles()[i];
    EXPECT_NEAR(boundOf(t[1], 3)[i], std::fabs(c_v[i]) * e[i] + 3 * u * y(1), 1e-15) << i;
    EXPECT_NEAR(boundOf(t[2], 3)[i], 2 * e[i] + 3 * u * y(2), 1e-15) << i;
    const double far_end = std::max(std::exp(sv + e[i]) - y(3), y(3) - std::exp(sv - e[i]));
    EXPECT_NEAR(boundOf(t[3], 3)[i], far_end + 10 * u * y(3), 1e-13) << i;
    EXPECT_NEAR(boundOf(t[4], 3)[i], e[i] + 10 * u * y(4), 1e-15) << i;
    EXPECT_EQ(boundOf(t[5], 3)[i], e[i]) << i;
  }
}

TEST(ToleranceModel, ADivisorThatMayVanishLeavesTheElementUnbounded) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  f.addOutput(unaryOp(UnaryOpType::Reciprocal, sum(x, {1})));
  // Row 0 sums to exactly 0 in float64, but a float32 kernel's rounding may
  // leave it at +-1e-8: 1/sum is anything. Row 1 sums to 3.
  Tensor in = test::makeFloat({2, 3}, {0.1, 0.2, -0.3, 1, 1, 1});
  auto t = outputTolerances(f, {in});
  const std::vector<double> bound = boundOf(t[0], 2);
  EXPECT_TRUE(std::isinf(bound[0]));
  EXPECT_LT(bound[1], 1e-5);
  Tensor want = std::get<Tensor>(evaluateFusion(f, {in})[0]);
  CloseResult r = checkClose(test::makeFloat({2}, {-3e7, 1.0 / 3}), want, t[0]);
  EXPECT_TRUE(r.pass) << r.first_mismatch;
  EXPECT_EQ(r.unbounded, 1);
  EXPECT_FALSE(checkClose(test::makeFloat({2}, {-3e7, 0.34}), want, t[0]).pass);
}

TEST(ToleranceModel, AComparisonAfterASumMayFlipOnlyWhereItIsClose) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  f.addOutput(gt(sum(x, {1}), f.constantDouble(0.0)));
  Tensor in = test::makeFloat({2, 3}, {0.1, 0.2, -0.3, 1, 1, 1});
  auto t = outputTolerances(f, {in});
  ASSERT_EQ(t[0].mode, Mode::Bounded);
  EXPECT_EQ(boundOf(t[0], 2), (std::vector<double>{1, 0}));
  Tensor want = std::get<Tensor>(evaluateFusion(f, {in})[0]);
  auto flipped = [&](int64_t i) {
    Tensor g = want.clone();
    g.setInt({i}, 1 - g.getInt({i}));
    return g;
  };
  EXPECT_TRUE(checkClose(flipped(0), want, t[0]).pass);
  EXPECT_FALSE(checkClose(flipped(1), want, t[0]).pass);
}

TEST(ToleranceModel, IntegerReductionsAndMaxOfInputsStayExact) {
  Fusion f;
  TensorView* i = defineTensor(f, {-1}, DataType::Int64);
  TensorView* x = defineSymbolicTensor(f, 1);
  f.addOutput(sum(i, {0}));
  f.addOutput(max(x, {0}));
  f.addOutput(max(exp(x), {0}));
  Tensor ints = Tensor::empty(DataType::Int64, {2});
  ints.setInt({0}, int64_t{1} << 53);
  ints.setInt({1}, 1);
  Tensor floats = test::makeFloat({3}, {0.5, 2.0, -1.0});
  auto t = outputTolerances(f, {ints, floats});
  EXPECT_EQ(t[0].mode, Mode::Bounded);
  EXPECT_FALSE(t[0].bound.defined());  // 0 everywhere
  EXPECT_FALSE(t[1].bound.defined());  // the max is one of the inputs
  ASSERT_TRUE(t[2].bound.defined());   // exp rounds
  EXPECT_GT(t[2].bound.toDoubles()[0], 0);
  auto want = evaluateFusion(f, {ints, floats});
  // 2^53 + 1: one more than 2^53, which is all a double could tell.
  Tensor off = Tensor::empty(DataType::Int64, {});
  off.setInt({}, int64_t{1} << 53);
  EXPECT_FALSE(checkClose(off, want[0], t[0]).pass);
  EXPECT_TRUE(checkClose(want[0], want[0], t[0]).pass);
}

TEST(ToleranceModel, BoundsMoveWithTheirValues) {
  // A padded, permuted sum: the pad's elements are exact, the others keep
  // the bound of the element they came from.
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 3);
  TensorView* s = sum(x, {2});
  f.addOutput(s);
  f.addOutput(permute(pad(s, {f.constantInt(1), f.constantInt(0)}), {1, 0}));
  Tensor in = uniformTensor(DataType::Float, {2, 3, 40}, 9);
  auto t = outputTolerances(f, {in});
  const std::vector<double> b = boundOf(t[0], 6), moved = boundOf(t[1], 8);
  // moved[j][i] = padded[i][j]; padded[i] = [0, s[i][0], s[i][1], s[i][2]].
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_EQ(moved[0 * 2 + i], 0.0);
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(moved[(j + 1) * 2 + i], b[i * 3 + j]);
  }
}

// The case of the issue: a bfloat16 [8, 1024] sum beside a pointwise output;
// every dtype. The evaluator's results pass, results off by one do not.
TEST(ToleranceModel, AResultOffByOneFailsForEveryDtype) {
  for (DataType dtype : {DataType::BFloat16, DataType::Half, DataType::Float}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, dtype);
    TensorView* xf = castOp(DataType::Float, x);
    f.addOutput(castOp(dtype, sum(xf, {1})));
    f.addOutput(castOp(dtype, mul(xf, xf)));
    Tensor in = uniformTensor(dtype, {8, 1024}, 10);
    auto t = outputTolerances(f, {in});
    auto want = evaluateFusion(f, {in});
    for (size_t k = 0; k < want.size(); ++k) {
      const Tensor& w = std::get<Tensor>(want[k]);
      EXPECT_TRUE(checkClose(w.clone(), w, t[k]).pass) << "output " << k;
      Tensor plus_one = Tensor::empty(dtype, w.sizes());
      const std::vector<double> values = w.toDoubles();
      for (int64_t i = 0; i < w.numel(); ++i) {
        const int64_t cols = w.sizes().back();
        plus_one.setDouble(
            w.dim() == 1 ? std::vector<int64_t>{i} : std::vector<int64_t>{i / cols, i % cols},
            values[static_cast<size_t>(i)] + 1);
      }
      CloseResult r = checkClose(plus_one, w, t[k]);
      EXPECT_FALSE(r.pass) << "output " << k << ": " << r.tolerance;
    }
    // The sum's rounding bound stays far below 1 (the old rule gave atol =
    // rtol = 1.02 for bfloat16 here).
    for (double b : boundOf(t[0], 8)) EXPECT_LT(b, 0.5);
    // The pointwise output keeps the dtype's own tolerance: 5% off fails.
    const Tensor& sq = std::get<Tensor>(want[1]);
    Tensor scaled = sq.clone();
    scaled.setDouble({0, 0}, sq.getDouble({0, 0}) * 1.05 + 0.05);
    EXPECT_FALSE(checkClose(scaled, sq, t[1]).pass);
  }
}

}  // namespace
}  // namespace fusebox
