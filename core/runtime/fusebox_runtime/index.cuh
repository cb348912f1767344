// Index arithmetic kernels need everywhere: ceiling division, rounding up,
// and flat thread / block numbers.
#pragma once

namespace fusebox {

template <typename T>
FUSEBOX_DEVICE constexpr T ceilDiv(T a, T b) {
  return (a + b - 1) / b;  // for a >= 0, b > 0 (extents and tile sizes)
}

template <typename T>
FUSEBOX_DEVICE constexpr T roundUp(T a, T multiple) {
  return ceilDiv(a, multiple) * multiple;
}

template <typename T>
FUSEBOX_DEVICE constexpr bool isPow2(T a) {
  return a > 0 && (a & (a - 1)) == 0;
}

// Largest power of two <= a, for a >= 1.
FUSEBOX_DEVICE constexpr int floorPow2(int a) {
  int p = 1;
  while (p * 2 <= a) p *= 2;
  return p;
}

// Thread number within the block, x fastest (as the hardware numbers warps).
FUSEBOX_DEVICE int linearThreadIdx() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

FUSEBOX_DEVICE int blockThreadCount() {
  return static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}

// Block number within the grid, x fastest.
FUSEBOX_DEVICE int64_t linearBlockIdx() {
  return static_cast<int64_t>(blockIdx.x) +
         static_cast<int64_t>(gridDim.x) *
             (static_cast<int64_t>(blockIdx.y) + static_cast<int64_t>(gridDim.y) * blockIdx.z);
}

FUSEBOX_DEVICE int laneId() {
  return linearThreadIdx() & 31;
}
FUSEBOX_DEVICE int warpId() {
  return linearThreadIdx() >> 5;
}

}  // namespace fusebox
