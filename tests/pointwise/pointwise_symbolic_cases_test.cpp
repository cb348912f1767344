// The shared pointwise cases (pointwise_cases.inc) once more on the host
// backend, with kernels compiled over symbolic sizes (ShapeMode::Symbolic):
// every size, stride and shape scalar a kernel parameter, checked against the
// reference evaluator as the static kernels are.
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"
#include "support/host_suite.h"

class PointwiseSymbolicFixture : public fusebox::test::SymbolicShapesFixture {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return {}; }
};

// The cases name their fixture PointwiseFixture (pointwise_host_test.cpp's).
#define PointwiseFixture PointwiseSymbolicFixture
#include "pointwise/indexing_cases.inc"
#include "pointwise/pointwise_cases.inc"
#undef PointwiseFixture
