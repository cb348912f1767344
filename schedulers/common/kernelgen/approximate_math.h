// Which of a segment's float exps and divisions may be approximate: the
// hardware exp (ex2.approx: 2 + 1.2|x| ulp of float) and a multiply by the
// divisor's reciprocal (1.5 ulp, and one reciprocal per row when the divisor
// is a row's sum). Only those whose value reaches nothing but
// bfloat16/float16 outputs: their error is then far below the output's
// rounding (bf16 keeps 8 bits, fp16 11; these lose under 8 of float's 24
// where exp is finite). One that reaches a float or double output, an
// integer or bool output (a comparison could flip), or a value another
// segment reads in float stays exact. Softmax is bound by this: at
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
