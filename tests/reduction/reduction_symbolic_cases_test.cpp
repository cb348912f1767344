// The shared reduction cases (reduction_cases.inc) once more on the host
// backend, with kernels compiled over symbolic sizes (ShapeMode::Symbolic):
// extents, strides and the number of splits kernel parameters, checked
// against the reference evaluator as the static kernels are.
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include "reduction/reduction_test_util.h"

class ReductionSymbolicFixture : public fusebox::test::SymbolicShapesFixture {
 protected:
  static fusebox::Backend& backend() {
    static std::unique_ptr<fusebox::Backend> b = fusebox::makeHostBackend();
    return *b;
  }
  // An H100's shape, as reduction_host_test.cpp's fixture.
  static fusebox::DeviceProperties device() {
    fusebox::DeviceProperties d;
    d.multiprocessor_count = 132;
    return d;
  }
};

// The cases name their fixture ReductionFixture (reduction_host_test.cpp's).
#define ReductionFixture ReductionSymbolicFixture
#include "reduction/reduction_cases.inc"
#undef ReductionFixture
