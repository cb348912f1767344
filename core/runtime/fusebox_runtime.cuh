// The device runtime: the one header every generated kernel includes.
//
//   #include <fusebox_runtime.cuh>
//   extern "C" __global__ void fusebox_kernel_0(fusebox::KernelParams p) { ... }
//
// The same text compiles under NVRTC (cuda backend) and under the system C++
// compiler (host backend, which first pulls in the CPU emulation of CUDA's
// built-ins from fusebox_runtime/host/). Each part below is one idea; see
// docs/backends.md for what each offers.
#pragma once

// In this order: each part uses the ones before it.
// clang-format off
#include "fusebox_runtime/platform.cuh"
#include "fusebox_runtime/types.cuh"
#include "fusebox_runtime/half_types.cuh"
#include "fusebox_runtime/array.cuh"
#include "fusebox_runtime/async_copy.cuh"
#include "fusebox_runtime/index.cuh"
#include "fusebox_runtime/index_check.cuh"
#include "fusebox_runtime/shared_memory.cuh"
#include "fusebox_runtime/math.cuh"
#include "fusebox_runtime/bit_ops.cuh"
#include "fusebox_runtime/cast.cuh"
#include "fusebox_runtime/philox.cuh"
#include "fusebox_runtime/shuffle.cuh"
#include "fusebox_runtime/warp_reduce.cuh"
#include "fusebox_runtime/block_reduce.cuh"
#include "fusebox_runtime/block_scan.cuh"
#include "fusebox_runtime/welford.cuh"
#include "fusebox_runtime/online_exp_sum.cuh"
#include "fusebox_runtime/grid_reduce.cuh"
#include "fusebox_runtime/cluster.cuh"
// clang-format on
