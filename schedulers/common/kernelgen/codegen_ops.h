// C++ text for dtypes, constants and the IR's elementwise ops (the kernel
// IR's element math, kernel_ir/element_math.h, printed), with the
// reference evaluator's type rules: values live in a compute type (bool,
// int64_t for both integer dtypes, float for float16/bfloat16/float32, double),
// and every op result is rounded through its output dtype's storage type.
#pragma once

#include <fusebox/ir/ir.h>

#include <string>
#include <vector>

namespace fusebox::kernelgen {

std::string storageType(DataType t);      // "fusebox::Half", "int32_t", ...
std::string computeTypeName(DataType t);  // "float", "int64_t", ...
// `expr` (in any compute type) as dtype t stores it, back in t's compute type.
std::string roundTo(DataType t, const std::string& expr);
// A constant scalar of dtype t, in t's compute type.
std::string literal(const ScalarValue& v, DataType t);

// An operand of an elementwise op: its C++ value (in its compute type) and dtype.
struct OperandText {
  std::string value;
  DataType dtype;
};
// The op's result in the output dtype's compute type. `approximate`: a float
// exp or division may be approximate (approximate_math.h).
std::string unaryText(UnaryOpType op, const OperandText& x, DataType out, bool approximate = false);
std::string binaryText(BinaryOpType op, const OperandText& a, const OperandText& b, DataType out,
                       bool approximate = false);
std::string ternaryText(TernaryOpType op, const OperandText& a, const OperandText& b,
                        const OperandText& c, DataType out);

}  // namespace fusebox::kernelgen
