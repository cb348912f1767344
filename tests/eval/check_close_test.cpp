// checkClose and the tolerance helper --validate uses.
#include <fusebox/eval/check_close.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <cmath>
#include <limits>

namespace fusebox {
namespace {

using ::testing::HasSubstr;

Tensor filled(DataType dtype, std::vector<int64_t> sizes, std::vector<double> values) {
  Tensor t = Tensor::empty(dtype, sizes);
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i);
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    t.setDouble(index, values[i]);
  }
  return t;
}

TEST(CheckClose, TheBaseToleranceIsAFewRoundoffsOfTheDtype) {
  // 8 units of roundoff for the 16-bit types (2^-11 and 2^-8), none for integers.
  EXPECT_NEAR(toleranceFor(DataType::Half).rtol, 8 * std::ldexp(1.0, -11), 1e-4);
  EXPECT_NEAR(toleranceFor(DataType::BFloat16).atol, 8 * std::ldexp(1.0, -8), 1e-3);
  EXPECT_LT(toleranceFor(DataType::Double).rtol, 1e-10);
  EXPECT_EQ(toleranceFor(DataType::Int64).atol, 0);
  EXPECT_EQ(toleranceFor(DataType::Bool).rtol, 0);
  // 1 + u is the next float of each dtype after 1, rounded down: u = half an ulp.
  for (DataType t : {DataType::Half, DataType::BFloat16, DataType::Float}) {
    Tensor x = filled(t, {2}, {1 + 2 * unitRoundoff(t), 1 + unitRoundoff(t)});
    EXPECT_EQ(x.toDoubles(), (std::vector<double>{1 + 2 * unitRoundoff(t), 1})) << dtypeName(t);
  }
}

TEST(CheckClose, PassesWithinToleranceAndReportsErrors) {
  Tensor want = filled(DataType::Float, {2, 2}, {1, 2, -4, NAN});
  // Errors that float holds exactly: 2^-20 on 1, 2^-15 on -4 (within 2e-5 + 2e-5 * 4).
  Tensor got = filled(DataType::Float, {2, 2},
                      {1 + std::ldexp(1.0, -20), 2, -4 - std::ldexp(1.0, -15), NAN});
  CloseResult r = checkClose(got, want);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.max_abs_error, std::ldexp(1.0, -15));
  EXPECT_EQ(r.max_rel_error, std::ldexp(1.0, -17));  // 2^-15 / 4
}

TEST(CheckClose, NamesTheFirstMismatch) {
  Tensor want = filled(DataType::Float, {2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor got = filled(DataType::Float, {2, 3}, {0, 1, 2, 3, 4.5, 6});
  CloseResult r = checkClose(got, want);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.first_mismatch, "element [1, 1]: got 4.5, expected 4");
  EXPECT_EQ(r.max_abs_error, 1);
  // A NaN where a number belongs is a mismatch.
  Tensor nan = filled(DataType::Float, {1}, {NAN});
  EXPECT_FALSE(checkClose(nan, filled(DataType::Float, {1}, {1})).pass);
}

TEST(CheckClose, IntegersAreExactAndShapesMustAgree) {
  EXPECT_FALSE(
      checkClose(filled(DataType::Int64, {2}, {1, 3}), filled(DataType::Int64, {2}, {1, 2})).pass);
  CloseResult r = checkClose(filled(DataType::Float, {3}, {1, 2, 3}),
                             filled(DataType::Float, {1, 3}, {1, 2, 3}));
  EXPECT_FALSE(r.pass);
  EXPECT_THAT(r.shape_error, HasSubstr("got float[3]"));
  EXPECT_FALSE(
      checkClose(filled(DataType::Half, {1}, {1}), filled(DataType::Float, {1}, {1})).pass);
}

TEST(CheckClose, Int64ComparesAsIntegersAbove2To53) {
  // 2^53 + 1 and 2^53 are the same double: compared through double they match.
  const int64_t big = int64_t{1} << 53;
  ASSERT_EQ(static_cast<double>(big + 1), static_cast<double>(big));
  Tensor want = Tensor::empty(DataType::Int64, {2});
  Tensor got = Tensor::empty(DataType::Int64, {2});
  want.setInt({0}, 7);
  got.setInt({0}, 7);
  want.setInt({1}, big);
  got.setInt({1}, big + 1);
  CloseResult r = checkClose(got, want);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.first_mismatch,
            "element [1]: got " + std::to_string(big + 1) + ", expected " + std::to_string(big));
  EXPECT_FALSE(checkExact(got, want).pass);
  EXPECT_TRUE(checkExact(want, want.clone()).pass);
  // The extremes of int64 differ by 2^64 - 1 without overflowing the check.
  Tensor lo = Tensor::empty(DataType::Int64, {1}), hi = Tensor::empty(DataType::Int64, {1});
  lo.setInt({0}, std::numeric_limits<int64_t>::min());
  hi.setInt({0}, std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(checkClose(lo, hi).pass);
  // Scalar outputs too.
  OutputTolerance exact_int;
  exact_int.dtype = DataType::Int64;
  EXPECT_FALSE(
      checkClose(Argument(ScalarValue(big + 1)), Argument(ScalarValue(big)), exact_int).pass);
  EXPECT_TRUE(checkClose(Argument(ScalarValue(big)), Argument(ScalarValue(big)), exact_int).pass);
}

TEST(CheckClose, SignedZerosCountOnlyBitForBit) {
  Tensor pos = filled(DataType::Float, {2}, {0.0, 1.0});
  Tensor neg = filled(DataType::Float, {2}, {-0.0, 1.0});
  ASSERT_TRUE(std::signbit(neg.toDoubles()[0]));
  CloseResult r = checkExact(neg, pos);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.first_mismatch, "element [0]: got -0, expected 0");
  EXPECT_TRUE(checkClose(neg, pos).pass);  // as values they are equal
  // NaN matches NaN at the same position, bit for bit as well.
  Tensor nan = filled(DataType::Half, {2}, {NAN, 2.0});
  EXPECT_TRUE(checkExact(nan, nan.clone()).pass);
  EXPECT_FALSE(checkExact(filled(DataType::Half, {2}, {2.0, NAN}), nan).pass);
}

TEST(CheckClose, AnInfinityMatchesOnlyItself) {
  Tensor inf = filled(DataType::Float, {1}, {INFINITY});
  EXPECT_TRUE(checkClose(inf, inf.clone()).pass);
  // atol + rtol * inf would let any finite value pass.
  EXPECT_FALSE(checkClose(filled(DataType::Float, {1}, {3e38}), inf).pass);
  EXPECT_FALSE(checkClose(inf, filled(DataType::Float, {1}, {-INFINITY})).pass);
}

TEST(CheckClose, ABoundRaisesTheToleranceElementByElement) {
  OutputTolerance t;
  t.mode = OutputTolerance::Mode::Bounded;
  t.dtype = DataType::Float;
  t.base = toleranceFor(DataType::Float);
  t.bound = filled(DataType::Double, {3}, {0.5, 0.0, INFINITY});
  Tensor want = filled(DataType::Float, {3}, {10, 10, 10});
  // 0.4 off passes where the bound is 0.5, not where it is 0; anything goes
  // where it is unbounded.
  CloseResult ok = checkClose(filled(DataType::Float, {3}, {10.4, 10, NAN}), want, t);
  EXPECT_TRUE(ok.pass) << ok.first_mismatch;
  EXPECT_EQ(ok.unbounded, 1);
  CloseResult bad = checkClose(filled(DataType::Float, {3}, {10, 10.4f, 10}), want, t);
  EXPECT_FALSE(bad.pass);
  EXPECT_THAT(bad.first_mismatch, HasSubstr("element [1]"));
  EXPECT_THAT(bad.tolerance, HasSubstr("up to 0.5; 1 element unbounded"));
}

}  // namespace
}  // namespace fusebox
