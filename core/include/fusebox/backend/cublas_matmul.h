// torch.matmul and torch.nn.functional.linear on a cuda backend's tensors,
// through cuBLAS (strided batched GEMM). Row-major tensors use the usual
// transposition: a row-major C = A B is the column-major C^T = B^T A^T.
//
// Types: float32, float16 and bfloat16 compute in float32 (TF32 off, as in
// PyTorch's default for float32), float64 in float64; a, b and the output
// share one dtype. Each operand's last two dims must be row-major or
// column-major (one of them of stride 1, the other at least the extent);
// batch dims may have any strides, 0 included (broadcast). Anything else is a
// UserError naming the operand, never a silent copy.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/tensor.h>

namespace fusebox {

// torch.matmul rules: 1-D operands are a row / column vector (the dim is
// dropped from the result); batch dims broadcast. `out` must already have the
// result's shape and dtype (any strides allowed for operands, see above).
void cublasMatmul(Backend& backend, const Tensor& a, const Tensor& b, const Tensor& out);
// Allocates a row-major result on the backend.
Tensor cublasMatmul(Backend& backend, const Tensor& a, const Tensor& b);

// a[..., K] @ weight[N, K]^T (+ bias[N]): the result is a[..., N], row-major.
// The bias is written into the result first and the product added with
// beta = 1; for float16 / bfloat16 cuBLAS may round the product to the output
// type before that addition (PyTorch's fused epilogue rounds once), so such a
// result can be one ulp of |a @ weight^T| away from a single rounding.
Tensor cublasLinear(Backend& backend, const Tensor& a, const Tensor& weight,
                    const Tensor* bias = nullptr);

// The shape torch.matmul gives, or UserError naming the mismatch.
std::vector<int64_t> matmulResultShape(const std::vector<int64_t>& a,
                                       const std::vector<int64_t>& b);

}  // namespace fusebox
