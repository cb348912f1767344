// Asynchronous copies from global to shared memory (cp.async, sm_80 and up):
// a thread issues copies of 4, 8 or 16 bytes that proceed while it goes on,
// closes the copies issued so far as a group (asyncCommit), and waits until
// at most `Pending` of its groups are still in flight (asyncWait); a
// __syncthreads() after the wait makes every thread's copies visible to the
// block. Both addresses must be aligned to the copy's size. Before sm_80
// the copy is a plain load and store. The host build copies at once (its
// waits have nothing to wait for) and checks the alignment a GPU needs.
#pragma once

namespace fusebox {

template <int Bytes>
FUSEBOX_DEVICE void asyncCopy(void* shared_dst, const void* global_src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(FUSEBOX_CUDA_COMPILER)
#if __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  if constexpr (Bytes == 16)  // .cg: through L2 only, as a streamed tile wants
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(global_src),
                 "n"(Bytes)
                 : "memory");
#else
  *static_cast<Array<unsigned char, Bytes>*>(shared_dst) =
      *static_cast<const Array<unsigned char, Bytes>*>(global_src);
#endif
#else
  const unsigned long long from = reinterpret_cast<unsigned long long>(global_src);
  const unsigned long long to = reinterpret_cast<unsigned long long>(shared_dst);
  if (__builtin_expect((from | to) % Bytes != 0, 0)) {
    char message[200];
    std::snprintf(message, sizeof message,
                  "made a misaligned asynchronous copy: asyncCopy<%d> from 0x%llx to 0x%llx "
                  "(both must be multiples of %d bytes; a GPU faults here)",
                  Bytes, from, to, Bytes);
    ::fusebox::host::failAccess(message);
  }
  FUSEBOX_MEMCPY(shared_dst, global_src, Bytes);
#endif
}

FUSEBOX_DEVICE void asyncCommit() {
#if defined(FUSEBOX_CUDA_COMPILER) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int Pending>
FUSEBOX_DEVICE void asyncWait() {
  static_assert(Pending >= 0, "a wait leaves zero or more groups in flight");
#if defined(FUSEBOX_CUDA_COMPILER) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

// asyncWait<pending>() for a count known once loops unroll (a chunk loop's
// batch - 1 - k), up to MaxPending: the branches fold to one wait. A count
// above MaxPending waits for MaxPending, which leaves fewer in flight.
template <int MaxPending>
FUSEBOX_DEVICE void asyncWaitPending(int pending) {
  if constexpr (MaxPending > 0) {
    if (pending >= MaxPending) return asyncWait<MaxPending>();
    return asyncWaitPending<MaxPending - 1>(pending);
  } else {
    asyncWait<0>();
  }
}

}  // namespace fusebox
