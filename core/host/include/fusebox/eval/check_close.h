// Comparing computed outputs with the reference evaluator's, element by
// element, under the tolerance model (tolerance.h): the one comparison
// `fusebox run --validate`, the runtime tests and the test utilities share.
// Integers and bools compare as int64 (never through double, which loses
// bits above 2^53); floats as doubles (every dtype converts exactly). NaN
// matches NaN at the same position; -0.0 differs from 0.0 only where the
// comparison is bit for bit; an infinity matches only itself.
#pragma once

#include <fusebox/dtype.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/tensor.h>

#include <cstdint>
#include <string>

namespace fusebox {

struct CloseResult {
  bool pass = true;
  double max_abs_error = 0;
  double max_rel_error = 0;  // |a - e| / |e| over elements with e != 0
  int64_t mismatches = 0;
  int64_t unbounded = 0;       // elements whose bound is +inf: anything passes there
  std::string first_mismatch;  // "element [1, 2]: got 0.5, expected 0.25"; "" when none
  std::string shape_error;     // set (and pass false) when kind, dtype or sizes differ
  std::string tolerance;       // OutputTolerance::describe() of the comparison
};

// `actual` against `expected` (host tensors or scalars) as `tolerance` says.
CloseResult checkClose(const Argument& actual, const Argument& expected,
                       const OutputTolerance& tolerance);
// Within the base tolerance of `expected`'s dtype (integers and bools exact).
CloseResult checkClose(const Tensor& actual, const Tensor& expected);
// Bit for bit (NaN matches any NaN): for results that must not change at
// all, e.g. a pass's output against its input's, or a segment's against the
// whole fusion's.
CloseResult checkExact(const Argument& actual, const Argument& expected);

}  // namespace fusebox
