// Statistics for A/B benchmarking of fusion variants (`fusebox compare` and
// `fusebox bench`): a five-number summary, the two-sided Mann-Whitney U test,
// and a distribution-free confidence interval of the ratio of typical times
// that agrees with the test. Invalid input (an empty sample, NaN, a time that
// is not positive) throws fusebox::UserError.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace fusebox::bench {

struct Summary {
  size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double q1 = 0, q3 = 0;  // first and third quartiles
  double iqr = 0;         // q3 - q1
};

// Quantiles by linear interpolation between order statistics (Hyndman & Fan
// type 7, numpy's and R's default): quantile p of the sorted x[0..n-1] is
// x[h] interpolated at h = (n - 1) p. The samples must be non-empty and not NaN.
Summary summarize(std::vector<double> samples);

// The two-sided Mann-Whitney U test (Wilcoxon rank-sum test) of "a and b come
// from the same distribution".
//
// `u` is U of sample a: the number of pairs (a_i, b_j) with a_i > b_j, ties
// counting 1/2 (= rank sum of a with midranks - n_a (n_a + 1) / 2, scipy's
// statistic for x = a). A large u means a tends to be larger (slower when the
// samples are times); u ranges over [0, n_a n_b], centred on n_a n_b / 2.
//
// When both samples have at most kExactMaxSize values and there are no ties,
// p is exact: twice the tail probability of U's permutation distribution,
// counted by dynamic programming (exact = true). Otherwise p comes from the
// normal approximation with the tie-corrected variance and a continuity
// correction of 1/2 (scipy.stats.mannwhitneyu(a, b, method="asymptotic",
// use_continuity=True)). `z` is the signed, continuity-corrected standard
// score of u in either case (positive: a larger); 0 when every value is the
// same, which gives p = 1. Both samples must be non-empty and not NaN.
struct UTest {
  double u = 0;
  double z = 0;
  double p_value = 1;
  bool exact = false;
};
inline constexpr size_t kExactMaxSize = 20;
UTest mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// The ratio of a's typical time to b's (< 1: a is faster) with a
// `confidence` interval: the Hodges-Lehmann estimate of the shift of log(time),
// the median of the n_a n_b differences log(a_i) - log(b_j), and its
// distribution-free interval [d_(k), d_(n_a n_b + 1 - k)] of the sorted
// differences, exponentiated. k = floor(n_a n_b / 2 - z_c sigma_U + 1/2), with
// z_c the normal quantile of (1 + confidence) / 2 and sigma_U the tie-corrected
// standard deviation of U, is the continuity-corrected normal critical value of
// the U test: the interval excludes 1 exactly when the asymptotic U test at
// alpha = 1 - confidence rejects (up to the p == alpha boundary). When the
// samples are too small for that confidence (k < 1) the interval is [0, inf).
// Times must be positive and finite; confidence in (0, 1).
struct RatioEstimate {
  double ratio = 1;
  double low = 0, high = 0;
  double confidence = 0.95;
};
RatioEstimate ratioOfTimes(const std::vector<double>& a, const std::vector<double>& b,
                           double confidence = 0.95);

// Faster or Slower (direction from the ratio) only when p < alpha; otherwise
// NoDifference. alpha must be in (0, 1).
enum class Verdict { Faster, Slower, NoDifference };
Verdict verdict(const UTest& test, const RatioEstimate& ratio, double alpha);
// "faster", "slower", "no difference".
std::string_view toString(Verdict v);

// The standard normal quantile: x with Phi(x) = p, for p in (0, 1).
double normalQuantile(double p);

}  // namespace fusebox::bench
