// The C++ spellings of a dtype's types (kernel_ir/element_math.h's, as
// strings): where a writer composes a type name (fusebox::Array<T, N>).
#pragma once

#include <fusebox/ir/ir.h>

#include <string>

namespace fusebox::kernelgen {

std::string storageType(DataType t);      // "fusebox::Half", "int32_t", ...
std::string computeTypeName(DataType t);  // "float", "int64_t", ...

}  // namespace fusebox::kernelgen
