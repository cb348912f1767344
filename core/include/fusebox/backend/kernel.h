// What a scheduler hands a backend: CUDA C++ source for one kernel, its launch
// configuration, and how its parameter block is filled.
//
// Calling convention, shared by the cuda and host backends: every generated
// kernel has exactly one parameter, a fusebox::KernelParams passed by value
//
//   #include <fusebox_runtime.cuh>
//   extern "C" __global__ void fusebox_kernel_7(fusebox::KernelParams p) {
//     const float* in0 = static_cast<const float*>(p.ptr[0]);
//     float* out0 = static_cast<float*>(p.ptr[1]);
//     int64_t n = p.i64[0];
//     ...
//   }
//
// so both backends can launch any kernel without knowing its C++ signature.
// Shapes are normally constants in the source (kernels are specialized per
// input signature); i64/f64 carry values that are not (scalar inputs).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fusebox {

// The one kernel parameter. Layout is fixed: it is part of the plugin API and
// mirrored by core/runtime/fusebox_runtime.cuh (static_asserts check both).
struct KernelParams {
  static constexpr int kMaxPointers = 128;
  static constexpr int kMaxInts = 112;
  static constexpr int kMaxDoubles = 16;
  void* ptr[kMaxPointers];
  int64_t i64[kMaxInts];
  double f64[kMaxDoubles];
};
static_assert(sizeof(KernelParams) == 128 * 8 + 112 * 8 + 16 * 8);

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamic_shared_memory = 0;  // bytes
  // Every block resident at once, so blocks may wait for each other
  // (fusebox::gridSync): cuda launches it cooperatively after checking that
  // the grid fits the device's occupancy, else refuses it; the host backend
  // runs each block on its own OS thread.
  bool cooperative = false;
  // Blocks per thread-block cluster, consecutive along x (1: no clusters).
  // A cluster's blocks run at once and may wait for each other
  // (fusebox::clusterSync) and read each other's dynamic shared memory
  // (fusebox::clusterPeer): cuda launches it with the cluster attribute
  // (compute 9.0 and later), the host backend runs each block of a cluster
  // on its own OS thread. grid[0] must be a multiple of it; at most 8.
  uint32_t cluster = 1;
  bool operator==(const LaunchConfig&) const = default;
};

// Where each KernelParams slot comes from when the segment runs.
struct ParamBinding {
  enum class Source {
    InputData,    // ptr: data pointer of segment input `index`
    OutputData,   // ptr: data pointer of segment output `index`
    ScratchData,  // ptr: a zeroed scratch buffer of `bytes` (e.g. grid reductions;
                  // see `kept`)
    InputScalar,  // i64 or f64: value of scalar segment input `index`
    Value,        // i64: `value`, fixed by the plan (a size or stride of a kernel
                  // compiled over symbolic sizes: the plan for another size
                  // binds another value to the same compiled kernel)
    IndexErrors,  // ptr: the uint64 words {id, index, host address} where the
                  // kernel records the first index it found out of range
                  // (KernelPlan::index_checks) with fusebox::recordIndexError,
                  // which also writes the host words (index_error_record.h)
  };
  Source source;
  int index = 0;           // which input / output
  int slot = 0;            // which ptr / i64 / f64 entry
  bool as_double = false;  // InputScalar: goes to f64 (else i64)
  int64_t bytes = 0;       // ScratchData
  // ScratchData: zeroed before the plan's first launch only, then kept for
  // its later launches, which the kernel must leave it ready for (tickets
  // the last block resets, barrier words that end where they began, partials
  // written before they are read). false: zeroed before every launch.
  bool kept = false;
  int64_t value = 0;       // Value
};

// What one index check guards: op `op` reading dim `dim` of `tensor`, of
// size `size`; an index is in range when lowest <= index < size (lowest is
// -size for select, which counts from the end).
struct IndexCheck {
  std::string op;
  std::string tensor;
  int64_t dim = 0;
  int64_t size = 0;
  int64_t lowest = 0;
};

struct KernelSource {
  std::string name;                  // the extern "C" __global__ function
  std::string source;                // complete translation unit
  std::vector<std::string> options;  // extra compile options, e.g. "-DFOO=1"
  // True when the kernel uses __syncthreads, shared memory communication or
  // warp shuffles (the host backend then runs a block's threads as fibers).
  bool uses_block_sync = false;
};

}  // namespace fusebox
