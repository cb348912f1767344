// Fixed-size arrays aligned for vector memory accesses, and the vector loads
// and stores built on them (up to 16 bytes per access, one instruction on the
// GPU when the address is aligned to the access size).
#pragma once

namespace fusebox {
namespace detail {

// Largest power of two dividing `bytes`, capped at 16 (the widest GPU access).
constexpr int vectorAlignment(int bytes) {
  int a = 1;
  while (a < 16 && bytes % (a * 2) == 0) a *= 2;
  return a;
}

}  // namespace detail

// N values of T, aligned to sizeof(T) * N when that is a power of two up to 16
// bytes, so an Array<float, 4> is one 16-byte load or store.
template <typename T, int N>
struct alignas(detail::vectorAlignment(static_cast<int>(sizeof(T)) * N)) Array {
  static_assert(N > 0, "Array needs at least one element");
  T data[N];
  FUSEBOX_DEVICE T& operator[](int i) { return data[i]; }
  FUSEBOX_DEVICE const T& operator[](int i) const { return data[i]; }
  FUSEBOX_DEVICE void fill(T value) {
    FUSEBOX_UNROLL
    for (int i = 0; i < N; ++i) data[i] = value;
  }
  static constexpr int size() { return N; }
};

#if defined(FUSEBOX_HOST_COMPILER)
namespace detail {

// The message, kept out of line: the check itself stays one compare per access.
[[noreturn]] __attribute__((noinline, cold)) inline void failMisalignedVec(
    const char* what, int n, int element_size, unsigned long long address,
    unsigned long long need) {
  char message[200];
  std::snprintf(message, sizeof message,
                "made a misaligned vector access: %s<%d> of %d-byte elements at address 0x%llx, "
                "which is not a multiple of %llu bytes (a GPU faults here)",
                what, n, element_size, address, need);
  ::fusebox::host::failAccess(message);
}

// A GPU faults on a misaligned vector access; a host compiler may emit
// aligned moves that fault too, or plain ones that do not, depending on its
// version and flags. So the host build checks on purpose: a vector width
// the scheduler got wrong is an error naming the access on every compiler.
template <int N, typename T>
__forceinline__ void checkVecAlignment(const void* p, const char* what) {
  constexpr unsigned long long need = alignof(Array<T, N>);
  const unsigned long long address = reinterpret_cast<unsigned long long>(p);
  if (__builtin_expect(address % need != 0, 0))
    failMisalignedVec(what, N, static_cast<int>(sizeof(T)), address, need);
}

}  // namespace detail
#endif

// Loads N consecutive values starting at p, which must be aligned to
// sizeof(T) * N (up to 16 bytes) as the scheduler that chose the vector width
// checked; the host build checks again at every access.
template <int N, typename T>
FUSEBOX_DEVICE Array<T, N> loadVec(const T* p) {
  static_assert(sizeof(T) * N <= 16, "vector accesses are at most 16 bytes");
#if defined(FUSEBOX_CUDA_COMPILER)
  return *reinterpret_cast<const Array<T, N>*>(p);
#else
  detail::checkVecAlignment<N, T>(p, "loadVec");
  Array<T, N> v;  // memcpy: no aliasing questions for the host compiler
  __builtin_memcpy(&v, __builtin_assume_aligned(p, alignof(Array<T, N>)), sizeof(v));
  return v;
#endif
}

// How long a load's data should stay in the L2 (createpolicy, sm_80 and
// later): a row that a later pass of the kernel reads again is kept ahead of
// other lines (evict_last), and its last read leaves first (evict_first).
// Only for data no thread of the kernel writes (the load is non-coherent).
enum class L2Hint { KeepForNextPass, LastUse };

template <L2Hint H, int N, typename T>
FUSEBOX_DEVICE Array<T, N> loadVecHinted(const T* p) {
#if defined(FUSEBOX_CUDA_COMPILER) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int bytes = static_cast<int>(sizeof(T)) * N;
  if constexpr (bytes == 16 || bytes == 8 || bytes == 4) {
    unsigned long long policy;
    if constexpr (H == L2Hint::KeepForNextPass)
      asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    else
      asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    // volatile: a later pass's load of the same address is a load again.
    // The Array is aligned to its size (vectorAlignment), so its words are
    // the registers the load fills.
    Array<T, N> v;
    unsigned int* r = reinterpret_cast<unsigned int*>(&v);
    if constexpr (bytes == 16)
      asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "l"(p), "l"(policy));
    else if constexpr (bytes == 8)
      asm volatile("ld.global.nc.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
                   : "=r"(r[0]), "=r"(r[1])
                   : "l"(p), "l"(policy));
    else
      asm volatile("ld.global.nc.L2::cache_hint.u32 %0, [%1], %2;"
                   : "=r"(r[0])
                   : "l"(p), "l"(policy));
    return v;
  } else {
    return loadVec<N>(p);
  }
#else
  return loadVec<N>(p);
#endif
}

// A load of elements no other load of the kernel reads (a streamed input):
// ld.global.cs, whose lines the L1 and the L2 evict first, so the lines
// already there (dirty ones above all: the last kernel's outputs) stay
// rather than being written back while the kernel reads. The reduction
// scheduler's loops that only read use it (docs/schedulers/reduction.md,
// `loads`). Coherent (not .nc): an input written in place may be read so.
template <int N, typename T>
FUSEBOX_DEVICE Array<T, N> loadVecStreamed(const T* p) {
#if defined(FUSEBOX_CUDA_COMPILER)
  constexpr int bytes = static_cast<int>(sizeof(T)) * N;
  Array<T, N> v;
  if constexpr (bytes == 16) {
    *reinterpret_cast<uint4*>(&v) = __ldcs(reinterpret_cast<const uint4*>(p));
  } else if constexpr (bytes == 8) {
    *reinterpret_cast<uint2*>(&v) = __ldcs(reinterpret_cast<const uint2*>(p));
  } else if constexpr (bytes == 4) {
    *reinterpret_cast<unsigned int*>(&v) = __ldcs(reinterpret_cast<const unsigned int*>(p));
  } else {
    v = loadVec<N>(p);
  }
  return v;
#else
  return loadVec<N>(p);
#endif
}

template <int N, typename T>
FUSEBOX_DEVICE void storeVec(T* p, const Array<T, N>& v) {
  static_assert(sizeof(T) * N <= 16, "vector accesses are at most 16 bytes");
#if defined(FUSEBOX_CUDA_COMPILER)
  *reinterpret_cast<Array<T, N>*>(p) = v;
#else
  detail::checkVecAlignment<N, T>(p, "storeVec");
  __builtin_memcpy(__builtin_assume_aligned(p, alignof(Array<T, N>)), &v, sizeof(v));
#endif
}

// Element i of a vector (or of any indexable value) as a float. kernelgen
// reads each bfloat16 of a loaded vector this way (kir::vectorElement).
template <typename V, typename I>
FUSEBOX_DEVICE float widenLane(const V& v, I i) {
  return static_cast<float>(v[i]);
}

// For an even number of bfloat16, from the 32-bit word holding the element
// and its neighbour: the even element is the word shifted up, the odd one
// the word's high half masked, one instruction each. Widening the 16-bit
// element itself has the compiler split the word into halves first, which
// costs the odd element a byte permute and a shift more
// (docs/perf/corpus-14.md). Both give the same bits as the element's own
// conversion on the GPU; the host keeps that conversion.
template <int N, typename I>
FUSEBOX_DEVICE float widenLane(const Array<BFloat16, N>& v, I i) {
#if defined(FUSEBOX_CUDA_COMPILER)
  if constexpr (N % 2 == 0) {
    // An Array of an even number of bfloat16 is aligned to at least 4 bytes.
    const uint32_t w = reinterpret_cast<const uint32_t*>(&v)[i >> 1];
    return bitCast<float>((i & 1) != 0 ? (w & 0xFFFF0000u) : (w << 16));
  }
#endif
  return static_cast<float>(v[i]);
}

// True when p is aligned for an N-wide vector access of T.
template <int N, typename T>
FUSEBOX_DEVICE bool isAlignedForVec(const T* p) {
  return (reinterpret_cast<uint64_t>(p) % alignof(Array<T, N>)) == 0;
}

}  // namespace fusebox
