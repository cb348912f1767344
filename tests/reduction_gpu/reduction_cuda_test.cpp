// The reduction comparisons of tests/reduction/reduction_cases.inc on the
// cuda backend (skipped without a GPU): the same generated kernels, compiled
// by NVRTC.
#include <fusebox/ir/ops.h>

#include "reduction/reduction_test_util.h"
#include "support/cuda_suite.h"

class ReductionFixture : public fusebox::test::CudaSuite {
 protected:
  // The host suite's device shape (an H100's 132 SMs), so the cases check the
  // same choices on both backends.
  static fusebox::DeviceProperties device() {
    fusebox::DeviceProperties d;
    d.multiprocessor_count = 132;
    return d;
  }
};

#include "reduction/reduction_cases.inc"
