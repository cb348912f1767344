// CUDA's built-ins for the host C++ compiler, so generated kernels compile
// unchanged for the host backend.
//
// Each CUDA thread is one call of the kernel function; the engine in
// libfusebox_runtime (abi.h) points `currentThread()` at that thread's context
// before the call, and barriers and warp exchanges call back into the engine,
// which switches between the block's fibers. Because every OS thread runs one
// block at a time, `__shared__` variables are `static thread_local`: shared by
// the block's threads, private to the block. Limits (docs/backends.md):
// `extern __shared__` arrays do not exist here (use
// fusebox::dynamicSharedMemory()), and warp operations exchange values of at
// most 8 bytes.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fusebox_runtime/host/abi.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static thread_local
#define __constant__ static const
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

namespace fusebox::host {

inline thread_local ThreadContext* tls_current_thread = nullptr;

inline ThreadContext* currentThread() {
  return tls_current_thread;
}

// Calls back into the engine, which may run other fibers of this OS thread
// meanwhile (each sets the thread-local pointer to itself); restore ours.
inline void blockSync(ThreadContext* self) {
  self->ops->block_sync(self);
  tls_current_thread = self;
}
inline void warpSync(ThreadContext* self, unsigned mask) {
  self->ops->warp_sync(self, mask);
  tls_current_thread = self;
}
inline void gridWait(ThreadContext* self) {
  self->ops->grid_sync(self);
  tls_current_thread = self;
}
inline void clusterWait(ThreadContext* self) {
  self->ops->cluster_sync(self);
  tls_current_thread = self;
}
inline const void* clusterMap(ThreadContext* self, const void* p, unsigned rank) {
  return self->ops->cluster_map(self, p, rank);
}

// Every lane publishes `value`, then reads lane `src` (its own value when `src`
// is outside the warp or names a lane that does not exist).
template <typename T>
inline T warpExchange(unsigned mask, T value, int src) {
  static_assert(sizeof(T) <= 8, "host warp shuffles move at most 8 bytes");
  ThreadContext* self = currentThread();
  uint64_t slot = 0;
  std::memcpy(&slot, &value, sizeof(T));
  self->warp_exchange[self->lane] = slot;
  warpSync(self, mask);
  T result = value;
  if (src >= 0 && src < 32 && ((self->warp_lane_mask >> src) & 1u))
    std::memcpy(&result, &self->warp_exchange[src], sizeof(T));
  warpSync(self, mask);
  return result;
}

// Lane bits of `mask` whose thread passed a nonzero predicate.
inline unsigned warpBallot(unsigned mask, int predicate) {
  ThreadContext* self = currentThread();
  self->warp_exchange[self->lane] = predicate != 0 ? 1 : 0;
  warpSync(self, mask);
  unsigned bits = 0;
  const unsigned lanes = mask & self->warp_lane_mask;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (((lanes >> lane) & 1u) && self->warp_exchange[lane] != 0) bits |= 1u << lane;
  warpSync(self, mask);
  return bits;
}

// A broken precondition of a memory access (array.cuh's alignment check): an
// error of the running kernel, reported by the engine with its block and
// thread. Outside a launch (runtime code called directly, as some tests do)
// there is no engine to report to: print and abort.
[[noreturn]] inline void failAccess(const char* message) {
  ThreadContext* self = currentThread();
  if (self == nullptr) {
    std::fprintf(stderr, "fusebox runtime: %s\n", message);
    std::abort();
  }
  self->ops->fail(self, message);
  __builtin_unreachable();
}

}  // namespace fusebox::host

#define threadIdx (::fusebox::host::currentThread()->thread_idx)
#define blockIdx (::fusebox::host::currentThread()->block_idx)
#define blockDim (::fusebox::host::currentThread()->block_dim)
#define gridDim (::fusebox::host::currentThread()->grid_dim)

inline constexpr int warpSize = 32;

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline void __syncthreads() {
  ::fusebox::host::blockSync(::fusebox::host::currentThread());
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::fusebox::host::warpSync(::fusebox::host::currentThread(), mask);
}
inline unsigned __activemask() {
  return ::fusebox::host::currentThread()->warp_lane_mask;
}
[[noreturn]] inline void __trap() {
  ::fusebox::host::ThreadContext* self = ::fusebox::host::currentThread();
  self->ops->fail(self, "__trap() called");
  __builtin_unreachable();
}
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_system() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

// Shuffles: `width` splits the warp into segments of that many lanes.
template <typename T>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  const int lane = static_cast<int>(::fusebox::host::currentThread()->lane);
  const int src = (lane & ~(width - 1)) + (src_lane & (width - 1));
  return ::fusebox::host::warpExchange(mask, var, src);
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  const int lane = static_cast<int>(::fusebox::host::currentThread()->lane);
  const int segment = lane & ~(width - 1);
  const int src = lane ^ lane_mask;
  return ::fusebox::host::warpExchange(mask, var,
                                       src >= segment && src < segment + width ? src : lane);
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  const int lane = static_cast<int>(::fusebox::host::currentThread()->lane);
  const int segment = lane & ~(width - 1);
  const int src = lane + static_cast<int>(delta);
  return ::fusebox::host::warpExchange(mask, var, src < segment + width ? src : lane);
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  const int lane = static_cast<int>(::fusebox::host::currentThread()->lane);
  const int segment = lane & ~(width - 1);
  const int src = lane - static_cast<int>(delta);
  return ::fusebox::host::warpExchange(mask, var, src >= segment ? src : lane);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::fusebox::host::warpBallot(mask, predicate);
}
inline int __any_sync(unsigned mask, int predicate) {
  return ::fusebox::host::warpBallot(mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  const unsigned lanes = mask & ::fusebox::host::currentThread()->warp_lane_mask;
  return ::fusebox::host::warpBallot(mask, predicate) == lanes;
}

// Atomics: blocks run on several OS threads at once, so these are real ones.
template <typename T>
inline T atomicAdd(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
template <typename T>
inline T atomicSub(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_sub(value);
}
template <typename T>
inline T atomicExch(T* address, T value) {
  return std::atomic_ref<T>(*address).exchange(value);
}
template <typename T>
inline T atomicCAS(T* address, T compare, T value) {
  std::atomic_ref<T>(*address).compare_exchange_strong(compare, value);
  return compare;  // the old value either way
}
template <typename T>
inline T atomicMax(T* address, T value) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load();
  while (old < value && !ref.compare_exchange_weak(old, value)) {
  }
  return old;
}
template <typename T>
inline T atomicMin(T* address, T value) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load();
  while (value < old && !ref.compare_exchange_weak(old, value)) {
  }
  return old;
}
template <typename T>
inline T atomicAnd(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_and(value);
}
template <typename T>
inline T atomicOr(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_or(value);
}
template <typename T>
inline T atomicXor(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_xor(value);
}

template <typename T>
inline T __ldg(const T* p) {
  return *p;
}

// CUDA's min / max overloads.
// clang-format off
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
// clang-format on

// CUDA math names glibc lacks.
// clang-format off
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
// clang-format on

// erfinv as the reference evaluator computes it: a closed-form first guess
// (Winitzki), then Newton steps on erf (near 0) or erfc (the tails).
inline double erfinv(double x) {
  if (std::isnan(x) || x < -1.0 || x > 1.0) return NAN;
  if (x == 1.0) return INFINITY;
  if (x == -1.0) return -INFINITY;
  if (x == 0.0) return x;
  const double a = std::fabs(x);
  const double k = 0.147;
  const double pi = 3.14159265358979323846;
  const double ln = std::log((1.0 - a) * (1.0 + a));
  const double t = 2.0 / (pi * k) + ln / 2.0;
  double y = std::sqrt(std::sqrt(t * t - ln / k) - t);
  const bool use_erfc = a >= 0.5;
  const double target = use_erfc ? 1.0 - a : a;
  const double two_over_sqrt_pi = 2.0 / std::sqrt(pi);
  for (int iter = 0; iter < 8; ++iter) {
    const double slope = two_over_sqrt_pi * std::exp(-y * y);
    const double step =
        use_erfc ? -(std::erfc(y) - target) / slope : (std::erf(y) - target) / slope;
    y -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(y)) break;
  }
  return std::copysign(y, x);
}
// erfcinv as the reference evaluator computes it: from erfinv(1 - x), then
// Newton steps on log(erfc(y)) = log(x), which keep the tail's precision.
inline double erfcinv(double x) {
  if (std::isnan(x) || x < 0.0 || x > 2.0) return NAN;
  if (x == 0.0) return INFINITY;
  if (x == 2.0) return -INFINITY;
  if (x > 1.0) return -erfcinv(2.0 - x);
  double y = x >= 1e-300 ? erfinv(1.0 - x) : 26.5;
  if (!std::isfinite(y)) y = std::sqrt(-std::log(x));
  const double log_x = std::log(x);
  const double two_over_sqrt_pi = 2.0 / std::sqrt(3.14159265358979323846);
  for (int iter = 0; iter < 50; ++iter) {
    const double c = std::erfc(y);
    if (c <= 0.0) break;
    const double step = (std::log(c) - log_x) / (-two_over_sqrt_pi * std::exp(-y * y) / c);
    y -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(y)) break;
  }
  return y;
}
// clang-format off
inline float erfinvf(float x) { return static_cast<float>(erfinv(static_cast<double>(x))); }
inline float erfcinvf(float x) { return static_cast<float>(erfcinv(static_cast<double>(x))); }
// clang-format on
