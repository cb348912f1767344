// Which compiler sees the runtime, and the qualifiers every runtime function
// carries. Under NVRTC (or nvcc) the CUDA built-ins exist; under a host C++
// compiler the host emulation layer provides them.
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define FUSEBOX_CUDA_COMPILER 1
#else
#define FUSEBOX_HOST_COMPILER 1
#include "fusebox_runtime/host/compat.h"
#endif

// Every runtime function: callable from kernels, inlined.
#define FUSEBOX_DEVICE __device__ __forceinline__

// Full unrolling of a loop with a constant trip count.
#if defined(FUSEBOX_CUDA_COMPILER)
#define FUSEBOX_UNROLL _Pragma("unroll")
#else
#define FUSEBOX_UNROLL _Pragma("GCC unroll 16")
#endif

// memcpy of a few bytes, compiled to moves (the device's memcpy is built in;
// NVRTC knows no __builtin_memcpy).
#if defined(FUSEBOX_CUDA_COMPILER)
#define FUSEBOX_MEMCPY(dst, src, bytes) memcpy(dst, src, bytes)
#else
#define FUSEBOX_MEMCPY(dst, src, bytes) __builtin_memcpy(dst, src, bytes)
#endif
