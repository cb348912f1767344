// Fixed-width integers and the kernel's one parameter, KernelParams.
//
// NVRTC has no standard headers, so the integer types are defined here for it;
// elsewhere <cstdint> provides them. KernelParams mirrors
// core/include/fusebox/backend/kernel.h byte for byte: both backends pass the
// host's struct to a kernel compiled against this one.
#pragma once

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif

namespace fusebox {

struct KernelParams {
  static constexpr int kMaxPointers = 128;
  static constexpr int kMaxInts = 112;
  static constexpr int kMaxDoubles = 16;
  void* ptr[kMaxPointers];
  int64_t i64[kMaxInts];
  double f64[kMaxDoubles];
};

// The layout kernel.h asserts: pointers, then int64 values, then doubles, no padding.
static_assert(sizeof(void*) == 8, "fusebox kernels need 64-bit pointers");
static_assert(sizeof(int64_t) == 8 && sizeof(double) == 8, "unexpected scalar sizes");
static_assert(sizeof(KernelParams) == 128 * 8 + 112 * 8 + 16 * 8, "KernelParams layout");
#if !defined(FUSEBOX_CUDA_COMPILER)  // NVRTC has no offsetof; the sizes above pin it there
static_assert(__builtin_offsetof(KernelParams, i64) == 128 * 8, "KernelParams layout");
static_assert(__builtin_offsetof(KernelParams, f64) == 240 * 8, "KernelParams layout");
#endif

// Compile-time helpers the rest of the runtime uses in place of <type_traits>.
template <typename A, typename B>
struct IsSame {
  static constexpr bool value = false;
};
template <typename A>
struct IsSame<A, A> {
  static constexpr bool value = true;
};

// Bit-level reinterpretation between same-size types (std::bit_cast without <bit>).
template <typename To, typename From>
FUSEBOX_DEVICE To bitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast needs same-size types");
  To to;
  FUSEBOX_MEMCPY(&to, &from, sizeof(To));
  return to;
}

// The extremes of each type (for floating types: the infinities), the
// identities of max and min reductions.
template <typename T>
struct NumericLimits;
template <>
struct NumericLimits<bool> {
  static FUSEBOX_DEVICE bool lowest() { return false; }
  static FUSEBOX_DEVICE bool highest() { return true; }
};
template <>
struct NumericLimits<int32_t> {
  static FUSEBOX_DEVICE int32_t lowest() { return -2147483647 - 1; }
  static FUSEBOX_DEVICE int32_t highest() { return 2147483647; }
};
template <>
struct NumericLimits<int64_t> {
  static FUSEBOX_DEVICE int64_t lowest() { return -9223372036854775807ll - 1; }
  static FUSEBOX_DEVICE int64_t highest() { return 9223372036854775807ll; }
};
template <>
struct NumericLimits<float> {
  static FUSEBOX_DEVICE float lowest() { return bitCast<float>(0xFF800000u); }
  static FUSEBOX_DEVICE float highest() { return bitCast<float>(0x7F800000u); }
};
template <>
struct NumericLimits<double> {
  static FUSEBOX_DEVICE double lowest() { return bitCast<double>(0xFFF0000000000000ull); }
  static FUSEBOX_DEVICE double highest() { return bitCast<double>(0x7FF0000000000000ull); }
};

}  // namespace fusebox
