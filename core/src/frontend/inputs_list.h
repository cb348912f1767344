// The `inputs = [...]` list of an nvFuser repro script: torch constructors
// (randn, rand, ones, zeros, full, randint, testing.make_tensor, tensor,
// arange) with shapes and dtypes, and plain numbers for scalar inputs. What
// may follow a constructor (views, copies) is in input_views.h.
#pragma once

#include "frontend/python_expr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::frontend {

// `torch.float32`, `torch.half`, ... as a TorchDType value.
PyValue torchAttribute(const std::vector<Token>& path, const std::string& file);
// `torch.randn(...)` and friends as an Input value. `path` starts with "torch".
PyValue callTorch(const std::vector<Token>& path, const CallArgs& args);
// Converts the evaluated list to InputSpecs; entries must be constructors or numbers.
std::vector<InputSpec> toInputSpecs(const PyValue& list);
// The scalar input a number in the list makes: bool, int64 or double.
InputSpec numberInputSpec(const PyValue& number);
// A tensor's sizes from a list or tuple: none negative, their product fits in int64.
std::vector<int64_t> asSizes(const PyValue& v, const std::string& context);
// `sizes` unchanged when their product fits in int64, else a UserError at `where`.
std::vector<int64_t> checkedSizes(std::vector<int64_t> sizes, const SourceLocation& where,
                                  const std::string& context);
// nvfuser.pytorch_utils.torch_dtype_to_nvfuser_dtype(torch.float32): DataType.Float.
PyValue nvfuserDTypeOf(const CallArgs& args);
// The dtype `torch.<name>` names (float32, float, half, int64, long, bool, ...).
std::optional<DataType> torchDTypeNamed(std::string_view name);
// A torch dtype value (torch.float32, ...).
DataType torchDType(const PyValue& v, const std::string& context);
// The length of torch.arange(start, end, step); nullopt for a zero step, a step
// leading away from end, or a length past int64.
std::optional<int64_t> arangeLength(const ScalarValue& start, const ScalarValue& end,
                                    const ScalarValue& step);
// Elements of storage a view of `sizes`/`strides` at `offset` reaches: offset
// + 1 + the last element's distance, or `offset` for an empty view. nullopt
// when that does not fit in int64.
std::optional<int64_t> viewStorageSize(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides, int64_t offset);
// The list entry as Python, e.g. "torch.randn((2, 3), dtype=torch.float32, device='cuda:0')".
std::string inputSpecToPython(const InputSpec& spec);

}  // namespace fusebox::frontend
