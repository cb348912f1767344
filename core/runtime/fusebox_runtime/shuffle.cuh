// Warp shuffles of any trivially copyable value (a float, a double, an
// int64_t, a Welford state...), moved as 32-bit words.
#pragma once

namespace fusebox {
namespace detail {

template <typename T>
struct ShuffleWords {
  static constexpr int kCount = (static_cast<int>(sizeof(T)) + 3) / 4;
  uint32_t w[kCount];
};

}  // namespace detail

constexpr unsigned kFullWarpMask = 0xffffffffu;

// The value of lane (laneId() ^ lane_mask).
template <typename T>
FUSEBOX_DEVICE T shflXor(T value, int lane_mask, unsigned mask = kFullWarpMask) {
  detail::ShuffleWords<T> words = {};
  FUSEBOX_MEMCPY(&words, &value, sizeof(T));
  for (int i = 0; i < detail::ShuffleWords<T>::kCount; ++i)
    words.w[i] = __shfl_xor_sync(mask, words.w[i], lane_mask);
  FUSEBOX_MEMCPY(&value, &words, sizeof(T));
  return value;
}

// The value of lane (laneId() + delta), or the caller's own past the warp's end.
template <typename T>
FUSEBOX_DEVICE T shflDown(T value, unsigned delta, unsigned mask = kFullWarpMask) {
  detail::ShuffleWords<T> words = {};
  FUSEBOX_MEMCPY(&words, &value, sizeof(T));
  for (int i = 0; i < detail::ShuffleWords<T>::kCount; ++i)
    words.w[i] = __shfl_down_sync(mask, words.w[i], delta);
  FUSEBOX_MEMCPY(&value, &words, sizeof(T));
  return value;
}

// The value of lane `src_lane` (a broadcast).
template <typename T>
FUSEBOX_DEVICE T shflIdx(T value, int src_lane, unsigned mask = kFullWarpMask) {
  detail::ShuffleWords<T> words = {};
  FUSEBOX_MEMCPY(&words, &value, sizeof(T));
  for (int i = 0; i < detail::ShuffleWords<T>::kCount; ++i)
    words.w[i] = __shfl_sync(mask, words.w[i], src_lane);
  FUSEBOX_MEMCPY(&value, &words, sizeof(T));
  return value;
}

}  // namespace fusebox
