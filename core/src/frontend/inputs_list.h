// The `inputs = [...]` list of an nvFuser repro script: torch constructors
// (randn, rand, ones, zeros, full, randint, testing.make_tensor) with shapes,
// dtypes and `.as_strided(...)`, and plain numbers for scalar inputs.
#pragma once

#include "frontend/python_expr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::frontend {

// `torch.float32`, `torch.half`, ... as a TorchDType value.
PyValue torchAttribute(const std::vector<Token>& path, const std::string& file);
// `torch.randn(...)` and friends as an Input value. `path` starts with "torch".
PyValue callTorch(const std::vector<Token>& path, const CallArgs& args);
// Methods on a constructed input: `.as_strided(size, stride[, storage_offset])`.
PyValue inputMethod(PyValue self, const Token& name, const CallArgs& args);
// Converts the evaluated list to InputSpecs; entries must be constructors or numbers.
std::vector<InputSpec> toInputSpecs(const PyValue& list);
// Elements of storage a view of `sizes`/`strides` at `offset` reaches: offset
// + 1 + the last element's distance, or `offset` for an empty view. nullopt
// when that does not fit in int64.
std::optional<int64_t> viewStorageSize(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides, int64_t offset);
// The list entry as Python, e.g. "torch.randn((2, 3), dtype=torch.float32, device='cuda:0')".
std::string inputSpecToPython(const InputSpec& spec);

}  // namespace fusebox::frontend
