// The tolerance model: how close a computed output must be to the reference
// evaluator's, output by output. Used by `fusebox run --validate`, the runtime
// tests and the fuzzer through checkClose (check_close.h); docs/evaluator.md
// ("Tolerances") states the rule:
//   - Exact: an output computed from the inputs by data movement alone (set,
//     broadcast, squeeze, expand, reshape, permute, slice, pad, cat) must
//     match bit for bit, signed zeros included (NaN matches NaN).
//   - Base: an output that depends on no reduction gets its dtype's base
//     tolerance; integers and bools must be equal.
//   - Bounded: an output that depends on a reduction (sum, prod, max, min,
//     var, var_mean, welford, matmul, linear) gets, per element, the larger
//     of the base tolerance and a bound on the rounding a correct kernel may
//     accumulate there. The bound comes from running the evaluator once more,
//     carrying per-element error bounds through every op; for a sum of K terms
//     x_j it is (K + 1) u_acc sum |x_j| plus its terms' own bounds (u_acc: the
//     unit roundoff kernels accumulate in), as tests/backend_cuda/
//     cublas_matmul_test.cpp bounds cuBLAS. It grows with the magnitudes
//     summed, not with the result, so a relative slack of ~1 never appears.
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

// The base tolerance of a dtype (atol and rtol alike): float32 2e-5, float16
// 4e-3, bfloat16 3.2e-2, float64 1e-12; 0 (exact) for integers and bool. About
// 8 units of roundoff for the 16-bit types, more for float32, whose kernels'
// library functions (tanh, erf...) differ from float64's by a few ulps.
Tolerance toleranceFor(DataType dtype);

// Unit roundoff (half an ulp at 1) of a floating dtype: 2^-24 float32, 2^-11
// float16, 2^-8 bfloat16, 2^-53 float64; 0 for integers and bool.
double unitRoundoff(DataType dtype);

// How one output is compared (see the top of this file).
struct OutputTolerance {
  enum class Mode { Exact, Base, Bounded };
  Mode mode = Mode::Base;
  DataType dtype = DataType::Float;
  Tolerance base;  // toleranceFor(dtype)
  // Bounded: per element (float64, the output's sizes, row-major), how far a
  // correct kernel's value may be from the evaluator's; +inf where nothing
  // bounds it (a division by a sum whose sign the rounding leaves open...).
  // Undefined: 0 everywhere.
  Tensor bound;
  // The most terms combined by a reduction (or K of a matmul) the output
  // depends on; 1 when none.
  int64_t reduction_size = 1;

  // The largest |actual - expected| element `linear` (row-major) may have when
  // the evaluator's value there is `expected`: 0 when Exact; else the base
  // tolerance (0 for non-finite expected values), raised to the bound when
  // Bounded. +inf only where the bound is unbounded.
  double allowed(int64_t linear, double expected) const;
  // For messages: "bit for bit", "exact", "atol 2e-05, rtol 2e-05", or for a
  // Bounded output "atol 2e-05, rtol 2e-05 or the rounding of 1024-term
  // reductions, up to 3.05e-05".
  std::string describe() const;
};

// One per output of `fusion` for these inputs (host tensors, only read; an
// output aliased to an input is fine). Runs the evaluator once more, carrying
// error bounds, when some output is Bounded. Throws UserError as
// evaluateFusion does for bad inputs.
std::vector<OutputTolerance> outputTolerances(const Fusion& fusion,
                                              const std::vector<Argument>& inputs);

}  // namespace fusebox
