// The shared reduction cases (reduction_cases.inc) once more on the host
// backend, with kernels compiled over symbolic sizes (ShapeMode::Symbolic):
// extents, strides and the number of splits kernel parameters, checked
// against the reference evaluator as the static kernels are.
#include <fusebox/ir/ops.h>

#include "reduction/reduction_test_util.h"
#include "support/host_suite.h"

class ReductionSymbolicFixture : public fusebox::test::SymbolicShapesFixture {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return fusebox::test::h100Shape(); }
};

// The cases name their fixture ReductionFixture (reduction_host_test.cpp's).
#define ReductionFixture ReductionSymbolicFixture
#include "reduction/reduction_cases.inc"
#undef ReductionFixture
