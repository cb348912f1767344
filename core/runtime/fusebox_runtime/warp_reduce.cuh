// Reduction operators (with their identities) and the warp-level reduction.
#pragma once

namespace fusebox {

// Through op::add / op::mul: integer accumulators wrap (two's complement, as
// the evaluator and torch) instead of overflowing a signed type.
struct ReduceSum {
  template <typename T>
  FUSEBOX_DEVICE T operator()(T a, T b) const {
    return op::add(a, b);
  }
  template <typename T>
  static FUSEBOX_DEVICE T identity() {
    return T(0);
  }
};

struct ReduceProd {
  template <typename T>
  FUSEBOX_DEVICE T operator()(T a, T b) const {
    return op::mul(a, b);
  }
  template <typename T>
  static FUSEBOX_DEVICE T identity() {
    return T(1);
  }
};

// max / min propagate NaN, as torch's reductions.
struct ReduceMax {
  template <typename T>
  FUSEBOX_DEVICE T operator()(T a, T b) const {
    return op::maximum(a, b);
  }
  template <typename T>
  static FUSEBOX_DEVICE T identity() {
    return NumericLimits<T>::lowest();
  }
};

struct ReduceMin {
  template <typename T>
  FUSEBOX_DEVICE T operator()(T a, T b) const {
    return op::minimum(a, b);
  }
  template <typename T>
  static FUSEBOX_DEVICE T identity() {
    return NumericLimits<T>::highest();
  }
};

// Reduces `value` over the 32 lanes of a full warp; every lane gets the result.
template <typename T, typename Op>
FUSEBOX_DEVICE T warpReduce(T value, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, shflXor(value, offset));
  return value;
}

// Lane 0 gets the reduction of lanes [0, count), for 1 <= count <= 32; the
// other lanes' values need not be valid. Every lane of the warp must call it.
template <typename T, typename Op>
FUSEBOX_DEVICE T warpReducePartial(T value, Op op, int count) {
  const int lane = laneId();
  for (int offset = 16; offset > 0; offset /= 2) {
    const T other = shflDown(value, offset);
    if (lane + offset < count) value = op(value, other);
  }
  return value;
}

}  // namespace fusebox
