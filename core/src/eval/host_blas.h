// The host's BLAS for the evaluator's matmul and linear: cblas_dgemm of the
// installed OpenBLAS (or any CBLAS), loaded with Boost.DLL the first time a
// contraction is big enough to want it. The reference evaluator computes in
// float64, so dgemm keeps its results to float64 rounding; cuBLAS serves the
// GPU the same way (expr_eval). Loaded at run time rather than linked: most
// processes never multiply matrices, and a machine without it (the GPU
// machine's copy of a build) still runs, with the evaluator's own loop.
#pragma once

#include <cblas.h>

namespace fusebox::eval_detail {

using Dgemm = decltype(&cblas_dgemm);

// cblas_dgemm of the first library of libopenblas.so.0, libcblas.so.3 that
// loads and has it; nullptr when none does ($FUSEBOX_HOST_BLAS=off also
// says none, to compare with the evaluator's own loop).
Dgemm hostDgemm();

}  // namespace fusebox::eval_detail
