// The shared pointwise cases (pointwise_cases.inc) on the cuda backend with
// kernels compiled over symbolic sizes (ShapeMode::Symbolic), as
// tests/pointwise/pointwise_symbolic_cases_test.cpp runs them on the host:
// NVRTC compiles the same parameterized sources. Skipped without a GPU.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"

class PointwiseCudaSymbolicFixture : public fusebox::test::SymbolicShapesFixture {
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
  static fusebox::DeviceProperties device() { return {}; }
};

// The cases name their fixture PointwiseFixture (pointwise_cuda_test.cpp's).
#define PointwiseFixture PointwiseCudaSymbolicFixture
#include "pointwise/indexing_cases.inc"
#include "pointwise/pointwise_cases.inc"
#undef PointwiseFixture
