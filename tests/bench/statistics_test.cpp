// Summary, Mann-Whitney U, the ratio of times and the verdict. Reference
// values: numpy's default (type 7) percentiles by hand; exact p-values by
// enumerating every split of the ranks; asymptotic p-values from the scipy
// documentation's example and DolphinDB's mannWhitneyUTest example (ties),
// the others from the formula in Python's statistics.NormalDist.
#include "bench/statistics.h"

#include <fusebox/error.h>

#include <gmock/gmock.h>

#include <cmath>
#include <limits>

#include "support/user_error_text.h"

namespace fusebox::bench {
namespace {

using ::testing::HasSubstr;

using testing::userErrorText;

TEST(Summarize, QuartilesInterpolateLikeNumpy) {
  // Sorted 1 2 4 6 8 10; h = 5p: q1 at 1.25, median at 2.5, q3 at 3.75.
  Summary s = summarize({10, 2, 8, 4, 6, 1});
  EXPECT_EQ(s.n, 6u);
  EXPECT_DOUBLE_EQ(s.q1, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.q3, 7.5);
  EXPECT_DOUBLE_EQ(s.iqr, 5);
  EXPECT_DOUBLE_EQ(s.mean, 31.0 / 6);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 10);
  // numpy.percentile([1, 2, 3, 4], [25, 75]) = 1.75, 3.25 (type 6 would give 1.25, 3.75).
  s = summarize({4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  s = summarize({9, 1, 7, 3, 5});
  EXPECT_DOUBLE_EQ(s.q1, 3);
  EXPECT_DOUBLE_EQ(s.q3, 7);
  s = summarize({4.5});
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.q1, 4.5);
  EXPECT_EQ(s.q3, 4.5);
  EXPECT_EQ(s.iqr, 0);
}

TEST(Summarize, RejectsEmptyAndNaN) {
  EXPECT_THAT(userErrorText([] { summarize({}); }), HasSubstr("summarize: the sample is empty"));
  EXPECT_THAT(userErrorText([] { summarize({1, NAN}); }), HasSubstr("NaN"));
}

TEST(MannWhitneyU, ExactOnTinySamples) {
  // All 20 splits of ranks 1..6 into 3 + 3: U = 0 (and 9) once each.
  UTest t = mannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 0);
  EXPECT_NEAR(t.p_value, 0.1, 1e-15);
  EXPECT_LT(t.z, 0);
  t = mannWhitneyU({4, 5, 6}, {1, 2, 3});
  EXPECT_EQ(t.u, 9);
  EXPECT_NEAR(t.p_value, 0.1, 1e-15);
  EXPECT_GT(t.z, 0);
  // U_a = 3 (3 > 2, 5 > 2, 5 > 4); P(U >= 6) = (3 + 2 + 1 + 1) / 20.
  t = mannWhitneyU({1, 3, 5}, {2, 4, 6});
  EXPECT_EQ(t.u, 3);
  EXPECT_NEAR(t.p_value, 0.7, 1e-15);
}

TEST(MannWhitneyU, ExactMatchesEnumeration) {
  // scipy's documentation: mannwhitneyu(males, females, method="exact") gives
  // U = 17, p = 0.1111111111111111 (14 of the 126 splits).
  UTest t = mannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 17);
  EXPECT_NEAR(t.p_value, 1.0 / 9, 1e-15);
  // Enumerating the 646646 splits of 22 ranks into 12 + 10.
  t = mannWhitneyU({3.1, 4.7, 5.2, 6.0, 6.8, 7.3, 8.9, 9.4, 10.6, 12.2, 13.5, 14.1},
                   {5.9, 7.7, 9.9, 11.3, 12.8, 13.9, 15.0, 15.6, 16.4, 17.8});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 25);
  EXPECT_NEAR(t.p_value, 0.02058003915589055, 1e-14);
  // At the size limit, fully separated: 2 of the C(40, 20) splits are as extreme.
  std::vector<double> low, high;
  for (int i = 0; i < 20; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
  }
  t = mannWhitneyU(high, low);
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 400);
  EXPECT_NEAR(t.p_value / 1.4508889103849688e-11, 1, 1e-12);
}

TEST(MannWhitneyU, NormalApproximationWithTiesAndContinuityCorrection) {
  // DolphinDB's mannWhitneyUTest(5 1 4 3 5, 2 4 7 -1 0 4) example: two-sided
  // p = 0.518023 (ties 5 5 and 4 4 4; U of the second sample 11).
  UTest t = mannWhitneyU({5, 1, 4, 3, 5}, {2, 4, 7, -1, 0, 4});
  EXPECT_FALSE(t.exact);
  EXPECT_EQ(t.u, 19);
  // z = (19 - 15 - 0.5) / sqrt(30 / 12 * (12 - 30 / 110)).
  EXPECT_NEAR(t.z, 0.6463972906536205, 1e-12);
  EXPECT_NEAR(t.p_value, 0.5180220945903762, 1e-12);
  EXPECT_NEAR(t.p_value, 0.518023, 2e-6);
  t = mannWhitneyU({2, 4, 7, -1, 0, 4}, {5, 1, 4, 3, 5});
  EXPECT_EQ(t.u, 11);
  EXPECT_NEAR(t.z, -0.6463972906536205, 1e-12);
  EXPECT_NEAR(t.p_value, 0.5180220945903762, 1e-12);
}

TEST(MannWhitneyU, NormalApproximationBeyondTheExactSize) {
  // 21 values: asymptotic although there are no ties.
  std::vector<double> a;
  for (int i = 1; i <= 21; ++i) a.push_back(i);
  UTest t = mannWhitneyU(a, {2.5, 7.5, 30, 40});
  EXPECT_FALSE(t.exact);
  EXPECT_EQ(t.u, 33);
  EXPECT_NEAR(t.z, -0.630061919161936, 1e-12);
  EXPECT_NEAR(t.p_value, 0.5286540734219737, 1e-12);
  // The scipy documentation's example through the approximation:
  // mannwhitneyu(males, females, method="asymptotic") p = 0.11134688653314041.
  t = mannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_NEAR(std::erfc(t.z / std::sqrt(2.0)), 0.11134688653314041, 1e-14);
}

TEST(MannWhitneyU, IdenticalSamplesGivePOne) {
  UTest t = mannWhitneyU({5, 5, 5}, {5, 5});
  EXPECT_EQ(t.u, 3);
  EXPECT_EQ(t.z, 0);
  EXPECT_EQ(t.p_value, 1);
  t = mannWhitneyU({1, 2, 3}, {3, 2, 1});
  EXPECT_EQ(t.u, 4.5);
  EXPECT_EQ(t.p_value, 1);
}

TEST(MannWhitneyU, RejectsEmptyAndNaN) {
  EXPECT_THAT(userErrorText([] { mannWhitneyU({}, {1}); }),
              HasSubstr("sample a: the sample is empty"));
  EXPECT_THAT(userErrorText([] { mannWhitneyU({1}, {}); }),
              HasSubstr("sample b: the sample is empty"));
  EXPECT_THAT(userErrorText([] { mannWhitneyU({1}, {NAN}); }), HasSubstr("NaN"));
}

TEST(NormalQuantile, MatchesPythonsNormalDist) {
  EXPECT_NEAR(normalQuantile(0.975), 1.9599639845400536, 1e-13);
  EXPECT_NEAR(normalQuantile(0.9), 1.2815515655446008, 1e-13);
  EXPECT_NEAR(normalQuantile(0.999), 3.090232306167813, 1e-12);
  EXPECT_NEAR(normalQuantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normalQuantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_NEAR(normalQuantile(0.5), 0, 1e-15);
  EXPECT_THROW(normalQuantile(0), UserError);
  EXPECT_THROW(normalQuantile(1), UserError);
}

TEST(RatioOfTimes, HalfTheTimeGivesOneHalf) {
  const std::vector<double> a = {1.0, 1.3, 0.9, 1.1, 1.25, 0.95, 1.05, 1.2, 1.15, 1.02};
  std::vector<double> b;
  for (double t : a) b.push_back(2 * t);
  RatioEstimate r = ratioOfTimes(a, b);
  EXPECT_NEAR(r.ratio, 0.5, 1e-12);
  EXPECT_LE(r.low, 0.5);
  EXPECT_GE(r.high, 0.5);
  EXPECT_LT(r.high, 1);  // every a is below every b
  EXPECT_EQ(r.confidence, 0.95);
  r = ratioOfTimes(b, a);
  EXPECT_NEAR(r.ratio, 2, 1e-12);
  EXPECT_GT(r.low, 1);
}

TEST(RatioOfTimes, IntervalIsTheKthOrderedDifference) {
  // log a_i = i, log b_j = j / 10 + 0.005 (i, j = 1..10): the differences
  // i - j / 10 - 0.005 are distinct and the r-th smallest is (r - 1) / 10 - 0.005.
  // k = floor(50 - z sqrt(175) + 1/2) is 24 at 95%, 33 at 80% and 16 at 99%
  // (where floor without the 1/2 would give 15); the bounds are d_(k) and
  // d_(101 - k), the estimate the mean of d_(50) and d_(51).
  std::vector<double> a, b;
  for (int i = 1; i <= 10; ++i) {
    a.push_back(std::exp(i));
    b.push_back(std::exp(i / 10.0 + 0.005));
  }
  auto d = [](int r) { return (r - 1) / 10.0 - 0.005; };
  RatioEstimate r = ratioOfTimes(a, b);
  EXPECT_NEAR(std::log(r.ratio), (d(50) + d(51)) / 2, 1e-12);
  EXPECT_NEAR(std::log(r.low), d(24), 1e-12);
  EXPECT_NEAR(std::log(r.high), d(77), 1e-12);
  r = ratioOfTimes(a, b, 0.8);
  EXPECT_EQ(r.confidence, 0.8);
  EXPECT_NEAR(std::log(r.low), d(33), 1e-12);
  EXPECT_NEAR(std::log(r.high), d(68), 1e-12);
  r = ratioOfTimes(a, b, 0.99);
  EXPECT_NEAR(std::log(r.low), d(16), 1e-12);
  EXPECT_NEAR(std::log(r.high), d(85), 1e-12);
}

TEST(RatioOfTimes, ExcludesOneExactlyWhenTheAsymptoticTestRejects) {
  // 25 values each (asymptotic test), b = a scaled by a sweep of factors.
  std::vector<double> base;
  uint32_t state = 12345;
  for (int i = 0; i < 25; ++i) {
    state = state * 1664525u + 1013904223u;
    base.push_back(1 + static_cast<double>(state >> 8) / (1 << 24));
  }
  int significant = 0, not_significant = 0;
  for (int step = -60; step <= 60; ++step) {
    const double factor = std::exp(step * 0.0123 + 0.0007);
    std::vector<double> b;
    for (double t : base) b.push_back(t * factor);
    UTest t = mannWhitneyU(base, b);
    ASSERT_FALSE(t.exact);
    RatioEstimate r = ratioOfTimes(base, b);
    if (std::abs(t.p_value - 0.05) < 1e-9) continue;
    EXPECT_EQ(r.low > 1 || r.high < 1, t.p_value < 0.05) << "factor " << factor;
    ++(t.p_value < 0.05 ? significant : not_significant);
  }
  EXPECT_GT(significant, 10);
  EXPECT_GT(not_significant, 10);
}

TEST(RatioOfTimes, TooFewSamplesGiveAnUnboundedInterval) {
  RatioEstimate r = ratioOfTimes({1, 2}, {4, 8});
  EXPECT_NEAR(r.ratio, 0.25, 1e-12);  // median of log(1/4), log(1/8), log(2/4), log(2/8)
  EXPECT_EQ(r.low, 0);
  EXPECT_EQ(r.high, std::numeric_limits<double>::infinity());
  // 3 + 3 at 95%: k = floor(4.5 - 1.96 sqrt(63 / 12) + 1/2) = 0, still unbounded.
  r = ratioOfTimes({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(r.low, 0);
  EXPECT_EQ(r.high, std::numeric_limits<double>::infinity());
  // 4 + 4: k = floor(8 - 1.96 sqrt(12) + 1/2) = 1, the extreme differences.
  r = ratioOfTimes({1, 2, 3, 4}, {5, 6, 7, 8});
  EXPECT_NEAR(r.low, 1.0 / 8, 1e-12);
  EXPECT_NEAR(r.high, 4.0 / 5, 1e-12);
}

TEST(RatioOfTimes, RejectsBadInput) {
  EXPECT_THAT(userErrorText([] { ratioOfTimes({}, {1}); }),
              HasSubstr("sample a: the sample is empty"));
  EXPECT_THAT(userErrorText([] { ratioOfTimes({1}, {}); }),
              HasSubstr("sample b: the sample is empty"));
  EXPECT_THAT(userErrorText([] {
                ratioOfTimes({1, 0}, {1});
              }),
              HasSubstr("the time 0 is not positive"));
  EXPECT_THAT(userErrorText([] { ratioOfTimes({1}, {-2}); }),
              HasSubstr("the time -2 is not positive"));
  EXPECT_THAT(userErrorText([] { ratioOfTimes({1}, {INFINITY}); }),
              HasSubstr("not positive and finite"));
  EXPECT_THAT(userErrorText([] { ratioOfTimes({1}, {NAN}); }), HasSubstr("NaN"));
  EXPECT_THAT(userErrorText([] { ratioOfTimes({1}, {1}, 1); }), HasSubstr("confidence level 1"));
  EXPECT_THROW(ratioOfTimes({1}, {1}, 0), UserError);
}

TEST(Verdict, DirectionOnlyWhenSignificant) {
  const RatioEstimate faster{0.8, 0.7, 0.9, 0.95}, slower{1.25, 1.1, 1.4, 0.95};
  EXPECT_EQ(verdict(UTest{0, -3, 0.001, false}, faster, 0.05), Verdict::Faster);
  EXPECT_EQ(verdict(UTest{100, 3, 0.001, false}, slower, 0.05), Verdict::Slower);
  EXPECT_EQ(verdict(UTest{0, -1, 0.2, false}, faster, 0.05), Verdict::NoDifference);
  EXPECT_EQ(verdict(UTest{0, -2, 0.05, false}, faster, 0.05), Verdict::NoDifference);
  EXPECT_EQ(verdict(UTest{0, -2, 0.04, false}, faster, 0.01), Verdict::NoDifference);
  EXPECT_THROW(verdict(UTest{}, faster, 0), UserError);
  EXPECT_EQ(toString(Verdict::Faster), "faster");
  EXPECT_EQ(toString(Verdict::Slower), "slower");
  EXPECT_EQ(toString(Verdict::NoDifference), "no difference");
}

TEST(Verdict, FromMeasuredSamples) {
  const std::vector<double> a = {1.01, 0.98, 1.03, 0.99, 1.0, 1.02, 0.97, 1.04, 1.0, 0.99};
  std::vector<double> b;
  for (double t : a) b.push_back(t * 1.1);
  EXPECT_EQ(verdict(mannWhitneyU(a, b), ratioOfTimes(a, b), 0.05), Verdict::Faster);
  EXPECT_EQ(verdict(mannWhitneyU(b, a), ratioOfTimes(b, a), 0.05), Verdict::Slower);
  EXPECT_EQ(verdict(mannWhitneyU(a, a), ratioOfTimes(a, a), 0.05), Verdict::NoDifference);
  const std::vector<double> same = {2, 2, 2, 2};
  EXPECT_EQ(verdict(mannWhitneyU(same, same), ratioOfTimes(same, same), 0.05),
            Verdict::NoDifference);
}

}  // namespace
}  // namespace fusebox::bench
