// Reductions across a group of threads smaller than a warp, and across the
// blocks of a grid. arriveLastOfBlocks never waits for another block: each
// block publishes its partial result, and the last block to arrive (counted by
// an atomic ticket) combines them. So it needs no co-resident blocks and runs
// the same on the host backend, whose blocks run in any order. gridSync does
// wait, and so needs a cooperative launch (LaunchConfig::cooperative), which
// both backends run with every block resident or refuse.
#pragma once

namespace fusebox {

// Reduces over aligned groups of Width consecutive lanes (Width a power of two,
// at most 32); every lane gets its group's result. Every lane of the warp must
// call it.
template <int Width, typename T, typename Op>
FUSEBOX_DEVICE T warpGroupReduce(T value, Op op) {
  static_assert(Width >= 1 && Width <= 32 && (Width & (Width - 1)) == 0,
                "warpGroupReduce: Width must be a power of two <= 32");
  for (int offset = Width / 2; offset > 0; offset /= 2) value = op(value, shflXor(value, offset));
  return value;
}

// A value another block wrote in this launch, read past the (incoherent) L1.
template <typename T>
FUSEBOX_DEVICE T loadFromOtherBlock(const T* p) {
  static_assert(sizeof(T) % 4 == 0 && alignof(T) >= 4, "loadFromOtherBlock: 32-bit words");
#if defined(FUSEBOX_CUDA_COMPILER)
  uint32_t words[sizeof(T) / 4];
  for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i)
    words[i] = __ldcg(reinterpret_cast<const unsigned int*>(p) + i);
  T value;
  FUSEBOX_MEMCPY(&value, words, sizeof(T));
  return value;
#else
  return *p;        // the fences around the ticket order it on the host
#endif
}

// Call after every thread of the block stored its share of the block's
// partial result to global memory. Returns, in every thread of the block,
// whether this block is the last of the `blocks` blocks that share `ticket`
// to arrive; that block may then read every partial (with
// loadFromOtherBlock). The last block resets the ticket to 0, so a ticket
// needs zeroing only once. Every thread of the block must call it.
FUSEBOX_DEVICE bool arriveLastOfBlocks(unsigned int* ticket, unsigned int blocks) {
  __shared__ int last_block;
  __threadfence();  // this thread's partial is visible grid-wide before the ticket moves
  __syncthreads();
  if (linearThreadIdx() == 0) {
    const unsigned int arrived = atomicAdd(ticket, 1u);
    last_block = arrived + 1 == blocks ? 1 : 0;
    if (last_block) atomicExch(ticket, 0u);
  }
  __syncthreads();
  const bool last = last_block != 0;
  __syncthreads();  // last_block may be reused by the next call
  if (last) __threadfence();
  return last;
}

// A barrier across every block of a cooperative launch: returns in each
// thread once every thread of every block has called it, with the global
// writes made before it visible to every block after it (read them with
// loadFromOtherBlock). `barrier` is one zeroed word that only this launch's
// barriers use; it needs no reset between barriers nor between launches.
// Every thread of every block must call it, the same number of times.
FUSEBOX_DEVICE void gridSync(unsigned int* barrier) {
  __syncthreads();
  if (linearThreadIdx() == 0) {
#if defined(FUSEBOX_CUDA_COMPILER)
    // Each barrier adds 2^31 in all: block 0 adds 2^31 - (blocks - 1), the
    // others 1 each, so the top bit flips exactly when the last one arrives.
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
    const unsigned int add = first ? 0x80000000u - (blocks - 1u) : 1u;
    __threadfence();  // this block's writes before its arrival
    const unsigned int before = atomicAdd(barrier, add);
    while (((before ^ *reinterpret_cast<volatile unsigned int*>(barrier)) & 0x80000000u) == 0)
      __nanosleep(32);
    __threadfence();
#else
    (void)barrier;  // the engine keeps the host backend's barrier (abi.h)
    ::fusebox::host::gridWait(::fusebox::host::currentThread());
#endif
  }
  __syncthreads();
}

}  // namespace fusebox
