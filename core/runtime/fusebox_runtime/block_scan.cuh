// Block-level scans (the scan scheduler's kernels): each thread of a 1-D
// block whose size is a multiple of 32 gets the combination, in thread order,
// of the values of the threads before it, and every thread gets the block's
// total. Combinations keep the earlier operand first (op(earlier, later)):
// cummax / cummin then keep torch's rule for equal values and NaN. Every
// thread must call it (it contains __syncthreads); `smem` holds 32 values of
// T, free for reuse when the call returns.
#pragma once

namespace fusebox {

template <typename T, typename Op>
FUSEBOX_DEVICE T warpInclusiveScan(T value, Op op) {
  const int lane = laneId();
  for (int offset = 1; offset < 32; offset *= 2) {
    const T earlier = shflIdx(value, lane >= offset ? lane - offset : lane);
    if (lane >= offset) value = op(earlier, value);
  }
  return value;
}

// Returns the exclusive prefix (Op's identity on thread 0); `total` gets the
// combination over the whole block.
template <typename T, typename Op>
FUSEBOX_DEVICE T blockExclusiveScan(T value, Op op, T* smem, T& total) {
  const int lane = laneId();
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  const T inclusive = warpInclusiveScan(value, op);
  if (lane == 31) smem[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    T partial = lane < warps ? smem[lane] : Op::template identity<T>();
    partial = warpInclusiveScan(partial, op);
    __syncwarp();
    smem[lane] = partial;  // the combination of warps [0, lane]
  }
  __syncthreads();
  const T before_lane = shflIdx(inclusive, lane > 0 ? lane - 1 : 0);
  T prefix = warp > 0 ? smem[warp - 1] : Op::template identity<T>();
  if (lane > 0) prefix = warp > 0 ? op(prefix, before_lane) : before_lane;
  total = smem[warps - 1];
  __syncthreads();
  return prefix;
}

}  // namespace fusebox
