// Rank statistics for benchmark comparisons; see statistics.h for the conventions.
#include "bench/statistics.h"

#include <fusebox/error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace fusebox::bench {
namespace {

// `what` names the sample in the message: "summarize", "ratio of times, sample a".
void checkSample(const std::vector<double>& x, std::string_view what) {
  FUSEBOX_USER_CHECK(!x.empty(), "{}: the sample is empty", what);
  for (double v : x) FUSEBOX_USER_CHECK(!std::isnan(v), "{}: the sample holds NaN", what);
}

// Type 7 quantile of sorted, non-empty x.
double quantile(const std::vector<double>& x, double p) {
  const double h = static_cast<double>(x.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

// Midranks of the pooled samples: a's rank sum and the tie term sum(t^3 - t)
// over groups of t equal values.
struct Ranking {
  double rank_sum_a = 0;
  double tie_term = 0;
};

Ranking rank(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  Ranking r;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    // Ranks i+1 .. j share their mean.
    const double midrank = static_cast<double>(i + 1 + j) / 2;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) r.rank_sum_a += midrank;
    const double t = static_cast<double>(j - i);
    r.tie_term += t * t * t - t;
    i = j;
  }
  return r;
}

// The standard deviation of U under the null hypothesis, corrected for ties.
double uSigma(size_t m, size_t n, double tie_term) {
  const double mn = static_cast<double>(m * n);
  const double total = static_cast<double>(m + n);
  return std::sqrt(mn / 12 * ((total + 1) - tie_term / (total * (total - 1))));
}

// counts[k]: how many of the C(m + n, m) equally likely orderings of m a's and
// n b's give U = k. An ordering whose largest value is an a gets n from it (it
// exceeds every b): f(i, j, k) = f(i - 1, j, k - j) + f(i, j - 1, k). The
// counts stay below C(40, 20) < 2^53, exact in doubles.
std::vector<double> uCounts(size_t m, size_t n) {
  // f[j][k] = f(i, j, k) for the current i; f(0, j, k) = [k == 0].
  std::vector<std::vector<double>> f(n + 1, std::vector<double>(m * n + 1, 0.0));
  for (auto& row : f) row[0] = 1;
  for (size_t i = 1; i <= m; ++i)
    for (size_t j = 1; j <= n; ++j)
      // Downwards, so that f[j][k - j] still holds f(i - 1, j, k - j).
      for (size_t k = m * n + 1; k-- > 0;) f[j][k] = (k >= j ? f[j][k - j] : 0) + f[j - 1][k];
  return f[n];
}

}  // namespace

Summary summarize(std::vector<double> samples) {
  checkSample(samples, "summarize");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.iqr = s.q3 - s.q1;
  return s;
}

UTest mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  checkSample(a, "Mann-Whitney U test, sample a");
  checkSample(b, "Mann-Whitney U test, sample b");
  const size_t m = a.size(), n = b.size();
  const double mn = static_cast<double>(m * n);
  const Ranking r = rank(a, b);
  UTest t;
  t.u = r.rank_sum_a - static_cast<double>(m * (m + 1)) / 2;
  const double sigma = uSigma(m, n, r.tie_term);
  const double d = t.u - mn / 2;
  t.z = sigma > 0 ? std::copysign(std::max(std::abs(d) - 0.5, 0.0), d) / sigma : 0;
  // Two-sided: twice one tail, which is P(|Z| >= |z|) = erfc(|z| / sqrt 2).
  t.p_value = std::min(1.0, std::erfc(std::abs(t.z) / std::numbers::sqrt2));
  const bool ties = r.tie_term > 0;
  if (!ties && m <= kExactMaxSize && n <= kExactMaxSize) {
    // Without ties U is an integer; the upper tail from the larger of U_a and
    // U_b = mn - U_a is, by symmetry, the same as the lower tail from the smaller.
    const std::vector<double> counts = uCounts(m, n);
    const size_t upper = static_cast<size_t>(std::llround(std::max(t.u, mn - t.u)));
    double tail = 0, total = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k >= upper) tail += counts[k];
    }
    t.p_value = std::min(1.0, 2 * tail / total);
    t.exact = true;
  }
  return t;
}

RatioEstimate ratioOfTimes(const std::vector<double>& a, const std::vector<double>& b,
                           double confidence) {
  FUSEBOX_USER_CHECK(confidence > 0 && confidence < 1,
                     "ratio of times: the confidence level {} is not in (0, 1)", confidence);
  checkSample(a, "ratio of times, sample a");
  checkSample(b, "ratio of times, sample b");
  for (const auto* x : {&a, &b})
    for (double v : *x)
      FUSEBOX_USER_CHECK(v > 0 && std::isfinite(v),
                         "ratio of times: the time {} is not positive and finite", v);
  const size_t m = a.size(), n = b.size(), mn = m * n;
  std::vector<double> diffs;
  diffs.reserve(mn);
  for (double x : a)
    for (double y : b) diffs.push_back(std::log(x) - std::log(y));
  std::sort(diffs.begin(), diffs.end());
  RatioEstimate e;
  e.confidence = confidence;
  const double median = mn % 2 ? diffs[mn / 2] : (diffs[mn / 2 - 1] + diffs[mn / 2]) / 2;
  e.ratio = std::exp(median);
  // The k-th smallest difference is the lower bound: see statistics.h for why
  // this k matches the continuity-corrected U test. Ties in log(time) are ties
  // in time, so sigma is the test's own.
  const double sigma = uSigma(m, n, rank(a, b).tie_term);
  const double z = normalQuantile((1 + confidence) / 2);
  const double k = std::floor(static_cast<double>(mn) / 2 - z * sigma + 0.5);
  if (k < 1) {
    e.low = 0;
    e.high = std::numeric_limits<double>::infinity();
  } else {
    const size_t ki = static_cast<size_t>(k);
    e.low = std::exp(diffs[ki - 1]);
    e.high = std::exp(diffs[mn - ki]);
  }
  return e;
}

Verdict verdict(const UTest& test, const RatioEstimate& ratio, double alpha) {
  FUSEBOX_USER_CHECK(alpha > 0 && alpha < 1, "verdict: alpha {} is not in (0, 1)", alpha);
  if (!(test.p_value < alpha) || ratio.ratio == 1) return Verdict::NoDifference;
  return ratio.ratio < 1 ? Verdict::Faster : Verdict::Slower;
}

std::string_view toString(Verdict v) {
  switch (v) {
    case Verdict::Faster:
      return "faster";
    case Verdict::Slower:
      return "slower";
    case Verdict::NoDifference:
      return "no difference";
  }
  return "no difference";
}

double normalQuantile(double p) {
  FUSEBOX_USER_CHECK(p > 0 && p < 1, "normal quantile: p = {} is not in (0, 1)", p);
  // Acklam's rational approximation (relative error < 1.2e-9) and one Halley
  // step on erfc, which brings it to about double precision.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow) {
    x = tail(std::sqrt(-2 * std::log(p)));
  } else if (p > 1 - kLow) {
    x = -tail(std::sqrt(-2 * std::log1p(-p)));
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

}  // namespace fusebox::bench
