// A row's max and its sum of exp(x - max) in one pass over the row (the
// online softmax normalizer of Milakov and Gimelshein, 2018): the running
// sum is kept relative to the running max and rescaled when the max grows.
// The persistent row kernels use it for max(x) followed by sum(exp(x -
// max(x))) when each pass reads the row again from memory, so softmax reads
// its row twice instead of three times and cross-entropy once instead of
// twice. Special values give what the two passes give: a +inf makes the sum
// NaN (inf - inf), a NaN makes both NaN, -inf elements add nothing, and a
// row of nothing but -inf has a NaN sum.
#pragma once

namespace fusebox {

template <typename T>
struct OnlineExpSum {
  T max;
  T sum;  // of exp(x - max) over the elements seen
};

template <typename T>
FUSEBOX_DEVICE OnlineExpSum<T> onlineExpSumInit() {
  return {NumericLimits<T>::lowest(), T(0)};
}

// exp as the sum's own exp op computes it: approximate where kernelgen
// allows it (approximate_math.h), else exact.
template <bool kApproximate>
FUSEBOX_DEVICE float onlineExp(float x) {
  if constexpr (kApproximate) return op::exp_approx(x);
  return op::exp(x);
}
template <bool kApproximate>
FUSEBOX_DEVICE double onlineExp(double x) {
  return op::exp(x);
}

template <bool kApproximate, typename T>
FUSEBOX_DEVICE T onlineScale(T max, T m) {
  if (max == m) return T(1);
  if (max == NumericLimits<T>::lowest()) return T(0);
  return onlineExp<kApproximate>(max - m);
}

// A chunk of N elements: its max first, then one rescale of the running
// sum and an exp per element, as the two-pass sum has. (H200,
// cross-entropy's row kernel over 4096x32000 bf16, whose exp is exact:
// 152 us updating element by element, 142 us by chunks, 123 us reading
// the row twice, the second time from the L2; a pairwise tree for the
// chunk's max and sum instead of a chain gained nothing.)
template <bool kApproximate, typename T, int N>
FUSEBOX_DEVICE void onlineExpSumUpdate(OnlineExpSum<T>& acc, const Array<T, N>& xs) {
  const T lowest = NumericLimits<T>::lowest();
  T m = acc.max;
  FUSEBOX_UNROLL
  for (int i = 0; i < N; ++i) m = op::maximum(m, xs[i]);
  T sum = acc.sum * onlineScale<kApproximate>(acc.max, m);
  // A max of -inf means every element is -inf: shifting by 0 instead gives
  // exp(-inf) = 0 for each, where -inf - -inf would be NaN. One select a
  // chunk instead of a compare and select an element (H200: cross-entropy's
  // row kernel over 2048x131072 bf16 168.8 -> 164.8 us).
  const T shift = m == lowest ? T(0) : m;
  FUSEBOX_UNROLL
  for (int i = 0; i < N; ++i) sum += onlineExp<kApproximate>(xs[i] - shift);
  acc.max = m;
  acc.sum = sum;
}

// For warpReduce / blockReduce and the kir combines.
template <bool kApproximate>
struct OnlineExpSumCombine {
  template <typename T>
  FUSEBOX_DEVICE OnlineExpSum<T> operator()(const OnlineExpSum<T>& a,
                                            const OnlineExpSum<T>& b) const {
    const T m = op::maximum(a.max, b.max);
    return {m, a.sum * onlineScale<kApproximate>(a.max, m) +
                   b.sum * onlineScale<kApproximate>(b.max, m)};
  }
};

// The sum of a whole row: a row of -inf alone sums exp(-inf - -inf), NaN.
template <typename T>
FUSEBOX_DEVICE T onlineExpSumTotal(const OnlineExpSum<T>& acc) {
  return acc.max == NumericLimits<T>::lowest() ? acc.max - acc.max : acc.sum;
}

}  // namespace fusebox
