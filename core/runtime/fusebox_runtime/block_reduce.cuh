// Block-level reductions through shared memory. Every thread of the block
// must call them (they contain __syncthreads); every thread gets the result.
// `smem` is shared memory of at least blockThreadCount() values of T, free for
// reuse when the call returns. Blocks whose reduced extent is a multiple of 32
// reduce within warps by shuffles first; other sizes use a shared-memory tree.
#pragma once

namespace fusebox {
namespace detail {

// Tree over smem[base + i], i < count, run by threads with index i < count in
// the group; returns smem[base] to every thread. Contains __syncthreads.
template <typename T, typename Op>
FUSEBOX_DEVICE T sharedTreeReduce(T value, Op op, T* smem, int base, int index, int count) {
  smem[base + index] = value;
  __syncthreads();
  for (int active = count; active > 1;) {
    const int half = (active + 1) / 2;
    if (index < active - half)
      smem[base + index] = op(smem[base + index], smem[base + index + half]);
    __syncthreads();
    active = half;
  }
  const T result = smem[base];
  __syncthreads();
  return result;
}

// Groups of `count` consecutive threads (count % 32 == 0, whole warps): each
// warp reduces by shuffles, then the group's first warp combines the partials.
template <typename T, typename Op>
FUSEBOX_DEVICE T warpTreeReduce(T value, Op op, T* smem, int group, int index, int count) {
  const int warps = count / 32;
  T* partials = smem + group * warps;
  const T warp_result = warpReduce(value, op);
  if ((index & 31) == 0) partials[index / 32] = warp_result;
  __syncthreads();
  if (index < 32) {
    T partial = index < warps ? partials[index] : warp_result;  // unused past `warps`
    partial = warpReducePartial(partial, op, warps);
    if (index == 0) partials[0] = partial;
  }
  __syncthreads();
  const T result = partials[0];
  __syncthreads();
  return result;
}

}  // namespace detail

// Reduces over every thread of the block.
template <typename T, typename Op>
FUSEBOX_DEVICE T blockReduce(T value, Op op, T* smem) {
  const int count = blockThreadCount();
  const int index = linearThreadIdx();
  if (count % 32 == 0) return detail::warpTreeReduce(value, op, smem, 0, index, count);
  return detail::sharedTreeReduce(value, op, smem, 0, index, count);
}

// Reduces over threadIdx.x, separately for each (threadIdx.y, threadIdx.z).
template <typename T, typename Op>
FUSEBOX_DEVICE T blockReduceX(T value, Op op, T* smem) {
  const int count = static_cast<int>(blockDim.x);
  const int row = static_cast<int>(threadIdx.y + blockDim.y * threadIdx.z);
  const int index = static_cast<int>(threadIdx.x);
  if (count % 32 == 0) return detail::warpTreeReduce(value, op, smem, row, index, count);
  return detail::sharedTreeReduce(value, op, smem, row * count, index, count);
}

// A lanes combine of several states at once (blockDim.x a multiple of 32):
// each state's warps store their partials, the block passes one barrier,
// and every warp combines its row's partials (combineWarpPartials); a second
// barrier frees the slots for reuse. Two barriers for any number of states,
// where blockReduceX takes three a state.
//   storeWarpPartial(acc0, op0, slots0); storeWarpPartial(acc1, op1, slots1);
//   __syncthreads();
//   acc0 = combineWarpPartials<W>(op0, slots0); acc1 = combineWarpPartials<W>(op1, slots1);
//   __syncthreads();
// Each state's slots are a region of warpSlotBytes<T>() (a slot a warp of
// the block), one region after another.
template <typename T>
FUSEBOX_DEVICE int warpSlotBytes() {
  return static_cast<int>((blockThreadCount() / 32 * sizeof(T) + 15) / 16 * 16);
}

template <typename T, typename Op>
FUSEBOX_DEVICE void storeWarpPartial(T value, Op op, T* slots) {
  const int warps = static_cast<int>(blockDim.x) / 32;
  const int row = static_cast<int>(threadIdx.y + blockDim.y * threadIdx.z);
  const int x = static_cast<int>(threadIdx.x);
  const T partial = warpReduce(value, op);
  if ((x & 31) == 0) slots[row * warps + x / 32] = partial;
}

// Warps: blockDim.x / 32, known to the kernel. Lane l of each warp loads
// partial l % Warps and the warp combines them by shuffles: a power of two
// by a butterfly in which both lanes of a pair put the lower lane's value
// first (so every lane computes the same bits even where op(a, b) and
// op(b, a) round differently: a contracted online exp-sum, Welford), other
// counts into lane 0, then broadcast. Every warp does the
// same, so every thread of the row gets the same result. (Each thread
// combining every partial itself cost softmax backward 16384x4096, 16 warps
// a row and 8 elements a thread, 4% on an H200.)
template <int Warps, typename T, typename Op>
FUSEBOX_DEVICE T combineWarpPartials(Op op, const T* slots) {
  static_assert(Warps >= 1 && Warps <= 32, "a block row has 1 to 32 warps");
  const T* row = slots + static_cast<int>(threadIdx.y + blockDim.y * threadIdx.z) * Warps;
  T partial = row[laneId() % Warps];
  if ((Warps & (Warps - 1)) == 0) {
    for (int offset = Warps / 2; offset > 0; offset /= 2) {
      const T other = shflXor(partial, offset);
      partial = (laneId() & offset) != 0 ? op(other, partial) : op(partial, other);
    }
    return partial;
  }
  return shflIdx(warpReducePartial(partial, op, Warps), 0);
}

}  // namespace fusebox
