// The scan comparisons of tests/scan/scan_cases.inc on the cuda backend
// (skipped without a GPU): the same generated kernels, compiled by NVRTC.
#include <fusebox/ir/ops.h>

#include "support/cuda_suite.h"
#include "support/scheduler_run.h"

class ScanFixture : public fusebox::test::CudaSuite {
 protected:
  static fusebox::DeviceProperties device() { return {}; }
};

#include "scan/scan_cases.inc"
