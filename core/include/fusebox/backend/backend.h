// A backend compiles kernel source and runs it: `cuda` (NVRTC + driver API,
// loaded with dlopen at first use) or `host` (the system C++ compiler against a
// CPU version of the device runtime; a block's threads as Boost.Context fibers).
// Both compile the very same source.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/tensor.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fusebox {

enum class BackendKind { Cuda, Host };
std::string_view toString(BackendKind kind);  // "cuda" / "host" (src/backend/backend_kind.cpp)

// A compiled kernel, ready to launch.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual const std::string& name() const = 0;
  // Launches on the backend's current stream; asynchronous on cuda.
  virtual void launch(const LaunchConfig& config, const KernelParams& params) = 0;
};

// Whether a timed launch finds the L2 cache as the launch before it left it
// (Warm: inputs that fit the L2 are read from it), or emptied by writing a
// buffer larger than it first (Flushed: as triton.testing.do_bench times).
enum class L2State { Flushed, Warm };

// Times compile stages for --time-compile.
struct CompileTimings {
  double compile_ms = 0;   // NVRTC or the system compiler (0 on a cache hit)
  double load_ms = 0;      // module / library load
  bool memory_cache_hit = false;
  bool disk_cache_hit = false;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // "NVIDIA H100 80GB HBM3 (sm_90)" / "host (g++ 12.2, 2 threads)".
  virtual std::string describe() const = 0;
  // Compiles (or fetches from the kernel cache, kernel_cache.h). Compile
  // failures throw UserError naming a file that holds the source and the
  // compiler log. Thread-safe: compileAll (kernel_cache.h) calls it from
  // several threads at once.
  virtual std::shared_ptr<CompiledKernel> compile(const KernelSource& kernel,
                                                  CompileTimings* timings = nullptr) = 0;
  // Memory the kernels read and write: device memory on cuda (from a caching
  // allocator), host memory on host.
  virtual Tensor allocate(DataType dtype, const std::vector<int64_t>& sizes,
                          const std::vector<int64_t>& strides) = 0;
  // Copies between host tensors and backend tensors (same sizes/strides/dtype).
  virtual Tensor toBackend(const Tensor& host) = 0;
  virtual Tensor toHost(const Tensor& t) = 0;
  virtual void memsetZero(const Tensor& t) = 0;
  // Copies every element of `src` into `dst`, both tensors of this backend
  // with the same dtype and sizes (an output written into the input it
  // aliases). Asynchronous on cuda: one device copy when both have the same
  // dense layout, through the host otherwise.
  virtual void copy(const Tensor& src, const Tensor& dst) = 0;
  virtual void synchronize() = 0;
  // `words` zeroed 64-bit words of host memory that this backend's kernels
  // write through the same pointer, and the host reads in place, with no copy
  // and no wait (an index-error record: kernel_launch.h). On cuda, pinned
  // memory mapped into the device's address space (unified addressing), at
  // most 8 words; the default is plain host memory, which a backend running
  // its kernels on the host can write.
  virtual Tensor allocateMapped(int64_t words) { return Tensor::empty(DataType::Int64, {words}); }
};

}  // namespace fusebox
