// The pointwise comparisons of tests/pointwise/pointwise_cases.inc on the cuda
// backend (skipped without a GPU): the same generated kernels, compiled by NVRTC.
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"
#include "support/cuda_suite.h"

class PointwiseFixture : public fusebox::test::CudaSuite {
 protected:
  // The host's device properties, so the params the cases check are the same
  // choices as on the host backend.
  static fusebox::DeviceProperties device() { return {}; }
};

#include "pointwise/indexing_cases.inc"
#include "pointwise/pointwise_cases.inc"
