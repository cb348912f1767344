// Which of a segment's float exps and divisions may be approximate: the
// hardware exp (ex2.approx: 2 + 1.2|x| ulp of float) and a multiply by the
// divisor's reciprocal (1.5 ulp, and one reciprocal per row when the divisor
// is a row's sum). Only those whose value reaches nothing but
// bfloat16/float16 outputs: their error is then far below the output's
// rounding (bf16 keeps 8 bits, fp16 11; these lose under 8 of float's 24
// where exp is finite). One that reaches a float or double output, an
// integer or bool output (a comparison could flip), or a value another
// segment reads in float stays exact, except the terms of a log-sum-exp: an
// exp (in float, of an exact argument) whose value only a float sum reads
// that only logs read. The log turns the terms' relative errors into one
// absolute error, their average weighted by the terms: (2 + 1.2|x|) ulp of
// float with |x| that of the terms that carry the sum, a few ulp of 1 once
// the terms are shifted by the row's max as softmax and cross-entropy shift
// them, the size of the sum's own rounding over a row (PyTorch's compiled
// cross-entropy computes these exps the same way). Softmax is bound by this: at
// 16384x4096 bf16 on an H100, expf and IEEE division make the kernel
// compute-limited (docs/perf.md). Triton, and so torch.compile, approximates
// every float exp this way. `-DFUSEBOX_PRECISE_MATH` in
// $FUSEBOX_NVRTC_OPTIONS compiles them exactly again (math.cuh).
#pragma once

#include <fusebox/ir/fusion.h>

#include <unordered_set>

namespace fusebox::kernelgen {

std::unordered_set<const Expr*> approximableExprs(const Fusion& segment);

}  // namespace fusebox::kernelgen
