// Exact infinities in the tolerance model (docs/evaluator.md, "The bound"):
// an infinity that comes from an exact infinite operand, or a NaN of exact
// operands, is exact (E = 0) and every correct kernel must give it; an
// infinity a finite value overflowed to has no bound. A masked softmax is
// then checked element by element, where a causal mask left 99% of its
// output unchecked.
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <cmath>
#include <limits>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> boundOf(const OutputTolerance& t, int64_t numel) {
  if (!t.bound.defined()) return std::vector<double>(static_cast<size_t>(numel), 0.0);
  return t.bound.toDoubles();
}

// softmax over the last dim of where(mask, -inf, x): the causal pattern.
std::unique_ptr<Fusion> maskedSoftmax() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  TensorView* mask = defineSymbolicTensor(*f, 2, DataType::Bool);
  TensorView* masked = where(mask, f->constantDouble(-kInf), x);
  TensorView* e = exp(sub(masked, broadcast(max(masked, {1}), {false, true})));
  f->addOutput(div(e, broadcast(sum(e, {1}), {false, true})));
  return f;
}

Tensor causalMask(int64_t n) {
  Tensor m = Tensor::empty(DataType::Bool, {n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) m.setInt({i, j}, j > i ? 1 : 0);
  return m;
}

TEST(NonfiniteBounds, MaskedSoftmaxHasABoundForEveryElement) {
  auto f = maskedSoftmax();
  const int64_t n = 64;
  std::vector<double> values;
  for (int64_t k = 0; k < n * n; ++k) values.push_back(std::sin(0.37 * static_cast<double>(k)));
  const std::vector<Argument> inputs = {test::makeFloat({n, n}, values), causalMask(n)};
  const auto t = outputTolerances(*f, inputs);
  ASSERT_EQ(t[0].mode, OutputTolerance::Mode::Bounded);
  const std::vector<double> bound = boundOf(t[0], n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double b = bound[static_cast<size_t>(i * n + j)];
      ASSERT_TRUE(std::isfinite(b)) << "[" << i << ", " << j << "]";
      if (j > i) {
        EXPECT_EQ(b, 0.0) << "a masked element is exactly 0";
      }
    }
  // A kernel that leaks probability into a masked element is caught.
  Tensor want = std::get<Tensor>(evaluateFusion(*f, inputs)[0]);
  Tensor leaked = want.clone();
  leaked.setDouble({0, 5}, 1e-3);  // past float's atol of 2e-5
  CloseResult r = checkClose(leaked, want, t[0]);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.unbounded, 0);
  EXPECT_THAT(r.first_mismatch, ::testing::HasSubstr("element [0, 5]"));
}

// x - max(x) where x holds -inf: -inf - finite is -inf, exactly, however far
// the max is off; log of an exact 0 is -inf exactly.
TEST(NonfiniteBounds, InfinitiesOfExactInfiniteOperandsAreExact) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* shifted = sub(x, broadcast(sum(x, {1}), {false, true}));
  f.addOutput(shifted);
  const std::vector<Argument> inputs = {test::makeFloat({2, 3}, {-kInf, 0.5, 0.25, 1.0, 2.0, 3.0})};
  const auto t = outputTolerances(f, inputs);
  std::vector<double> b = boundOf(t[0], 6);
  EXPECT_TRUE(std::isinf(b[0])) << "the row's sum is -inf: -inf - -inf is NaN or not";
  EXPECT_TRUE(std::isfinite(b[3]) && b[3] > 0);
  Fusion g;
  TensorView* y = defineSymbolicTensor(g, 2);
  // The max of rounded values carries a bound; -inf minus it is still -inf.
  TensorView* m = broadcast(max(mul(y, g.constantDouble(1.1)), {1}), {false, true});
  g.addOutput(sub(y, m));
  TensorView* exact_max = broadcast(max(y, {1}), {false, true});
  g.addOutput(unaryOp(UnaryOpType::Log, sub(exact_max, exact_max)));  // log of an exact 0
  const std::vector<Argument> in2 = {test::makeFloat({1, 3}, {-kInf, 0.5, 0.25})};
  const auto t2 = outputTolerances(g, in2);
  b = boundOf(t2[0], 3);
  EXPECT_EQ(b[0], 0.0);
  EXPECT_GT(b[1], 0.0);
  EXPECT_EQ(boundOf(t2[1], 1)[0], 0.0);
  // And a kernel that gives a finite value there fails.
  Tensor want = std::get<Tensor>(evaluateFusion(g, in2)[0]);
  Tensor wrong = want.clone();
  wrong.setDouble({0, 0}, -3.4e38);
  EXPECT_FALSE(checkClose(wrong, want, t2[0]).pass);
}

// exp of a large finite value overflows: a kernel may give the largest
// float or inf, so no bound there; the rows that do not overflow keep one.
TEST(NonfiniteBounds, AnOverflowedInfinityIsUnbounded) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  f.addOutput(exp(mul(broadcast(sum(x, {1}), {false, true}), x)));
  const std::vector<Argument> inputs = {test::makeFloat({2, 2}, {10.0, 0.1, 0.5, 0.25})};
  const auto t = outputTolerances(f, inputs);
  const std::vector<double> b = boundOf(t[0], 4);
  EXPECT_TRUE(std::isinf(b[0]));  // exp(101): inf in float32
  EXPECT_TRUE(std::isfinite(b[1]));
  EXPECT_TRUE(std::isfinite(b[2]) && std::isfinite(b[3]));
}

// where(c, a, b) with a condition that cannot flip is the branch it picks:
// an unbounded value it does not pick leaves it bounded.
TEST(NonfiniteBounds, WhereIgnoresTheBranchItDoesNotPick) {
  Fusion f;
  TensorView* x = defineSymbolicTensor(f, 2);
  TensorView* c = defineSymbolicTensor(f, 2, DataType::Bool);
  TensorView* s = broadcast(sum(x, {1}), {false, true});
  TensorView* wild = unaryOp(UnaryOpType::Reciprocal, s);  // 1 / 0: unbounded
  f.addOutput(where(c, wild, mul(s, f.constantDouble(2.0))));
  Tensor cond = Tensor::empty(DataType::Bool, {1, 2});
  cond.setInt({0, 0}, 1);
  cond.setInt({0, 1}, 0);
  const std::vector<Argument> inputs = {test::makeFloat({1, 2}, {1.0, -1.0}), cond};
  const auto t = outputTolerances(f, inputs);
  const std::vector<double> b = boundOf(t[0], 2);
  EXPECT_TRUE(std::isinf(b[0]));
  EXPECT_TRUE(std::isfinite(b[1]));
}

}  // namespace
}  // namespace fusebox
