// Torch tensors of the inputs list after their constructor: what a script may
// ask of them (`.shape`, `.dtype`, `.size(1)`, `.stride()`), views
// (`.as_strided`, `.expand`, `.unsqueeze`, `.t()`, `.permute`, `.reshape`,
// indexing and slicing `x[:, 1:]`) and copies (`.to(...)`, `.contiguous()`,
// `.clone()`, `.float()`, ...). As in torch, a chain of views stays one
// strided view of one storage; each copy makes a new storage (InputCopy).
#pragma once

#include "frontend/python_expr.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fusebox::frontend {

// `x.shape`, `x.dtype`, `x.ndim`, `x.T` of an Input value.
PyValue inputAttribute(const PyValue& self, const Token& name, const SourceLocation& where);
// `x.method(...)` of an Input value.
PyValue inputMethod(PyValue self, const Token& name, const CallArgs& args);
// `x[...]` of an Input value: ints, slices (positive steps), None and `...`.
PyValue inputSubscript(const PyValue& self, const std::vector<PyValue>& index,
                       const SourceLocation& where);

// The strides of the tensor a spec describes (row-major when it is no view).
std::vector<int64_t> inputStrides(const InputSpec& spec);
// The shape of the storage the constructor makes: its own shape, which a view
// or copy recorded in `base_shape` (a 1-D storage just big enough for a view
// that recorded none).
std::vector<int64_t> constructorShape(const InputSpec& spec);
// How many elements the storage under the spec's view holds.
int64_t inputStorageElements(const InputSpec& spec);
// The spec viewed as (shape, strides, offset) of the same storage, as torch views it.
InputSpec viewOf(InputSpec spec, std::vector<int64_t> shape, std::vector<int64_t> strides,
                 int64_t offset);

// Copies (input_copies.cpp): `.to`, `.contiguous`, `.clone`, `.type` and the
// dtype shorthands; nullopt when `name` is none of them.
std::optional<PyValue> inputCopyMethod(const PyValue& self, const Token& name,
                                       const CallArgs& args);
// Elementwise math (input_math.cpp): `tensor OP number` or `number OP
// tensor` for + - * / **, unary minus, and the methods neg, abs, exp, log,
// log1p, expm1, sqrt, rsqrt, sin, cos, tanh, sigmoid, reciprocal, add, sub,
// mul, div, pow, clamp/clip (nullopt when `name` is none of them). Each is a
// copy of torch's result dtype holding the op's values (InputMath).
PyValue inputArithmetic(const Token& op, const PyValue& a, const PyValue& b);
PyValue inputNegate(const PyValue& v, const SourceLocation& where);
std::optional<PyValue> inputMathMethod(const PyValue& self, const Token& name,
                                       const CallArgs& args);
// Applies `m` to every element of `t` (the copy, already holding the view's
// values in its dtype).
void applyInputMath(const InputMath& m, Tensor& t);
// `tensor` (its Python text) with `m` applied, as the script would write it.
std::string inputMathText(const InputMath& m, const std::string& tensor);

// torch's is_non_overlapping_and_dense: the elements fill a block of storage
// exactly once, in some order of the dims.
bool isDenseNonOverlapping(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);
// torch's is_contiguous (size-1 dims and empty tensors ignore strides).
bool isRowMajorContiguous(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);
// torch's channels-last strides for a rank-4 shape (N, C, H, W): C innermost, then W, H, N.
std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& shape);
// The strides a copy of (shape, strides) gets in `layout`.
std::vector<int64_t> copyStrides(const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& strides, InputCopy::Layout layout);
// The spec with a copy of its current view appended: dtype `dtype`, layout `layout`.
InputSpec copyOf(InputSpec spec, DataType dtype, InputCopy::Layout layout);
// `self` as `dtype` in `layout` (nullopt: torch's preserve_format): a copy,
// unless torch would return the tensor itself (`force`: always, as .clone()).
PyValue convertInput(const PyValue& self, DataType dtype, std::optional<InputCopy::Layout> layout,
                     bool force);
// What a `memory_format=` argument asks for; nullopt for torch.preserve_format.
std::optional<InputCopy::Layout> memoryFormat(const PyValue& v, const std::string& context);

}  // namespace fusebox::frontend
