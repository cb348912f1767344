// The pointwise comparisons of tests/pointwise/pointwise_cases.inc on the cuda
// backend (skipped without a GPU): the same generated kernels, compiled by NVRTC.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"

class PointwiseFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const fusebox::CudaAvailability a = fusebox::cudaAvailable();
    if (!a.available) GTEST_SKIP() << a.reason;
  }
  static fusebox::Backend& backend() {
    static std::unique_ptr<fusebox::Backend> b = fusebox::createCudaBackend();
    return *b;
  }
  // The host's device properties, so the params the cases check are the same
  // choices as on the host backend.
  static fusebox::DeviceProperties device() { return {}; }
};

#include "pointwise/pointwise_cases.inc"
