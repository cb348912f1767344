// Element types of tensors and scalars, and PyTorch's type-promotion rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace fusebox {

enum class DataType { Bool, Int32, Int64, Half, BFloat16, Float, Double };

inline constexpr DataType kAllDataTypes[] = {DataType::Bool,  DataType::Int32,    DataType::Int64,
                                             DataType::Half,  DataType::BFloat16, DataType::Float,
                                             DataType::Double};

// Size of one element in bytes.
int64_t dataTypeSize(DataType t);
bool isFloatingType(DataType t);
bool isIntegralType(DataType t);  // int32, int64 (not bool)
// Every value of `from` is exactly a value of `to` (a cast from -> to is
// lossless): bool everywhere, int32 in int64 and double, half and bfloat16 in
// float and double, float in double, each type in itself.
bool holdsExactly(DataType from, DataType to);
inline bool isBoolType(DataType t) { return t == DataType::Bool; }
// Half types are stored narrow but computed in float32.
DataType computeType(DataType t);

// Names as nvFuser's Python frontend spells them: "Float", "BFloat16", "Int", ...
std::string_view pythonName(DataType t);
// Names as C++ / the IR printer spell them: "float", "__bfloat", "int64_t", ...
std::string_view irName(DataType t);
// Accepts nvFuser names ("Float", "Int", "Int32", "Half", "BFloat16", "Double", "Bool")
// and torch names ("float32", "float", "bfloat16", "int64", "long", "bool", ...).
std::optional<DataType> parseDataType(std::string_view name);

// The value of a compile-time constant scalar.
using ScalarValue = std::variant<bool, int64_t, double>;
std::string toString(const ScalarValue& v);
double toDouble(const ScalarValue& v);
int64_t toInt(const ScalarValue& v);
bool toBool(const ScalarValue& v);
// Converts v to the representation that type t stores (bool, int64_t or double),
// with C++ conversion semantics (truncation toward zero for float -> int).
ScalarValue castScalar(const ScalarValue& v, DataType t);

// Category of a dtype for promotion: bool < integral < floating.
enum class TypeCategory { Bool = 0, Integral = 1, Floating = 2 };
TypeCategory category(DataType t);

// torch.promote_types for two tensor dtypes (half + bfloat16 -> float).
DataType promoteTypes(DataType a, DataType b);

// One operand of an elementwise op, as PyTorch's result_type sees it: tensors
// (even zero-dim ones in fusebox: they are never "wrapped numbers") take part
// fully; scalars only raise the category (int tensor * 1.5 -> float32).
struct PromotionOperand {
  DataType dtype;
  bool is_tensor;
};
DataType resultType(std::initializer_list<PromotionOperand> operands);
DataType resultType(const PromotionOperand* begin, const PromotionOperand* end);

}  // namespace fusebox
