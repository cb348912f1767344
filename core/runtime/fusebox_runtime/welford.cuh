// Welford's running mean and sum of squared deviations (var = m2 / (n - correction)),
// with the pairwise combine that warp and block reductions use.
#pragma once

namespace fusebox {

template <typename T>
struct Welford {
  T avg;
  T m2;
  int64_t n;
};

template <typename T>
FUSEBOX_DEVICE Welford<T> welfordInit() {
  Welford<T> w;
  w.avg = T(0);
  w.m2 = T(0);
  w.n = 0;
  return w;
}

template <typename T>
FUSEBOX_DEVICE void welfordUpdate(Welford<T>& w, T x) {
  w.n += 1;
  const T delta = x - w.avg;
  w.avg += delta / static_cast<T>(w.n);
  w.m2 += delta * (x - w.avg);
}

// Chan et al.'s parallel combination.
template <typename T>
FUSEBOX_DEVICE Welford<T> welfordCombine(const Welford<T>& a, const Welford<T>& b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  Welford<T> r;
  r.n = a.n + b.n;
  const T b_share = static_cast<T>(b.n) / static_cast<T>(r.n);
  const T delta = b.avg - a.avg;
  r.avg = a.avg + delta * b_share;
  r.m2 = a.m2 + b.m2 + delta * delta * static_cast<T>(a.n) * b_share;
  return r;
}

// For warpReduce / blockReduce.
struct WelfordCombine {
  template <typename T>
  FUSEBOX_DEVICE Welford<T> operator()(const Welford<T>& a, const Welford<T>& b) const {
    return welfordCombine(a, b);
  }
};

}  // namespace fusebox
