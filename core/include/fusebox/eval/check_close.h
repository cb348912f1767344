// Comparing a computed tensor with the reference evaluator's: tolerances per
// dtype that grow with the number of terms a reduction adds (rounding errors of
// a sum grow about with the square root of its length). Shared by
// `fusebox run --validate` and the tests.
#pragma once

#include <fusebox/dtype.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox {

// |actual - expected| <= atol + rtol * |expected| passes.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Float32 2e-5, float16 4e-3, bfloat16 3.2e-2, float64 1e-12 (both atol and
// rtol), times sqrt(reduction_size) when that is over 1; 0 (exact) for
// integers and bool.
Tolerance toleranceFor(DataType dtype, int64_t reduction_size = 1);

struct CloseResult {
  bool pass = true;
  double max_abs_error = 0;
  double max_rel_error = 0;  // |a - e| / |e| over elements with e != 0
  int64_t mismatches = 0;
  std::string first_mismatch;  // "element [1, 2]: got 0.5, expected 0.25"; "" when none
  std::string shape_error;     // set (and pass false) when dtype or sizes differ
  Tolerance tolerance;
};

// Element by element (NaN matches NaN, infinities match themselves), in
// `expected`'s dtype's tolerance for `reduction_size`. Host tensors.
CloseResult checkClose(const Tensor& actual, const Tensor& expected, int64_t reduction_size = 1);
// A scalar output: one element.
CloseResult checkClose(const Argument& actual, const Argument& expected, DataType dtype,
                       int64_t reduction_size = 1);

// The most terms any reduction (sum, mean, var..., and the K of matmul and
// linear) of `fusion` combines for these inputs; 1 when there is none.
int64_t largestReductionSize(const Fusion& fusion, const std::vector<Argument>& inputs);

}  // namespace fusebox
