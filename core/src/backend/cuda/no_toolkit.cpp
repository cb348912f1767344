// Built instead of the cuda backend when CMake found no CUDA toolkit: every
// entry point says so.
#include <fusebox/backend/cublas_matmul.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/error.h>

namespace fusebox {
namespace {

constexpr const char* kNoToolkit =
    "this fusebox was built without the CUDA toolkit (CMake found no cuda.h), so it has no cuda "
    "backend; rebuild with the toolkit installed";

[[noreturn]] void fail() {
  throw UserError(kNoToolkit);
}

}  // namespace

CudaAvailability cudaAvailable() {
  return CudaAvailability{false, kNoToolkit, 0};
}
std::unique_ptr<Backend> createCudaBackend(const CudaBackendOptions&) {
  fail();
}
DeviceProperties queryDeviceProperties(Backend&) {
  return DeviceProperties{};
}
std::string ptxasReport(const KernelSource&, const DeviceProperties&) {
  fail();
}
double timeKernelMs(Backend&, CompiledKernel&, const LaunchConfig&, const KernelParams&, int,
                    L2State) {
  fail();
}
double timeCallMs(Backend&, const std::function<void()>&, int, L2State, std::string_view) {
  fail();
}
DeviceAllocatorStats deviceAllocatorStats(Backend&) {
  fail();
}
void releaseCachedDeviceMemory(Backend&) {
  fail();
}
void setCudaStream(Backend&, std::optional<uintptr_t>) {
  fail();
}
void cublasMatmul(Backend&, const Tensor&, const Tensor&, const Tensor&) {
  fail();
}
Tensor cublasMatmul(Backend&, const Tensor&, const Tensor&) {
  fail();
}
Tensor cublasLinear(Backend&, const Tensor&, const Tensor&, const Tensor*) {
  fail();
}

}  // namespace fusebox
