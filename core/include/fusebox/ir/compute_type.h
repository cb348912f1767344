// The dtype an elementwise tensor op computes in, and how its operands reach
// it. One definition for the evaluator, every code generator and third-party
// schedulers, so that they all give PyTorch's answer for `x == 0.1` with a
// float32 x (True: the scalar is rounded to float32 first).
#pragma once

#include <fusebox/dtype.h>

namespace fusebox {

class Expr;

// For a Unary, Binary or Ternary expression producing a tensor: PyTorch's
// common dtype of its operands (scalars only raise the category), or the
// output dtype where the op computes in floating point (true division, exp
// of integers, ...); half types are computed in float32, as nvFuser does.
// For `where`, the condition does not take part. Other expressions: the
// output dtype.
DataType elementwiseComputeType(const Expr* e);

// Whether operand `dtype` (of a tensor when `is_tensor`) must be converted to
// `compute` before the op reads it: every scalar operand of a floating-point
// op (a Python float is rounded to float32 for a float32 op), and integral or
// bool tensors read by a floating-point op. Operands already of a floating
// dtype no wider than `compute` convert exactly and are left alone.
bool convertsToComputeType(DataType dtype, bool is_tensor, DataType compute);

}  // namespace fusebox
