// The shared reduction cases (reduction_cases.inc) on the cuda backend with
// kernels compiled over symbolic sizes (ShapeMode::Symbolic), as
// tests/reduction/reduction_symbolic_cases_test.cpp runs them on the host.
// Skipped without a GPU.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/ir/ops.h>

#include "reduction/reduction_test_util.h"

class ReductionCudaSymbolicFixture : public fusebox::test::SymbolicShapesFixture {
 protected:
  void SetUp() override {
    const fusebox::CudaAvailability a = fusebox::cudaAvailable();
    if (!a.available) GTEST_SKIP() << a.reason;
    SymbolicShapesFixture::SetUp();
  }
  static fusebox::Backend& backend() {
    static std::unique_ptr<fusebox::Backend> b = fusebox::createCudaBackend();
    return *b;
  }
  // The host suite's device shape (an H100's 132 SMs).
  static fusebox::DeviceProperties device() {
    fusebox::DeviceProperties d;
    d.multiprocessor_count = 132;
    return d;
  }
};

// The cases name their fixture ReductionFixture (reduction_cuda_test.cpp's).
#define ReductionFixture ReductionCudaSymbolicFixture
#include "reduction/reduction_cases.inc"
#undef ReductionFixture
