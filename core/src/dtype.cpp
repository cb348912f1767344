#include <fusebox/dtype.h>
#include <fusebox/error.h>

#include <cmath>
#include <fmt/format.h>

namespace fusebox {

int64_t dataTypeSize(DataType t) {
  switch (t) {
    case DataType::Bool: return 1;
    case DataType::Int32: return 4;
    case DataType::Int64: return 8;
    case DataType::Half: return 2;
    case DataType::BFloat16: return 2;
    case DataType::Float: return 4;
    case DataType::Double: return 8;
  }
  throw InternalError("unknown DataType");
}

bool isFloatingType(DataType t) {
  return t == DataType::Half || t == DataType::BFloat16 || t == DataType::Float ||
         t == DataType::Double;
}

bool isIntegralType(DataType t) { return t == DataType::Int32 || t == DataType::Int64; }

bool holdsExactly(DataType from, DataType to) {
  if (from == to || from == DataType::Bool) return true;  // 0 and 1 fit everywhere
  switch (from) {
    case DataType::Int32:
      return to == DataType::Int64 || to == DataType::Double;
    case DataType::Half:
    case DataType::BFloat16:
      return to == DataType::Float || to == DataType::Double;
    case DataType::Float:
      return to == DataType::Double;
    default:
      return false;  // int64 and double fit only in themselves
  }
}

DataType computeType(DataType t) {
  return (t == DataType::Half || t == DataType::BFloat16) ? DataType::Float : t;
}

std::string_view pythonName(DataType t) {
  switch (t) {
    case DataType::Bool: return "Bool";
    case DataType::Int32: return "Int32";
    case DataType::Int64: return "Int";
    case DataType::Half: return "Half";
    case DataType::BFloat16: return "BFloat16";
    case DataType::Float: return "Float";
    case DataType::Double: return "Double";
  }
  throw InternalError("unknown DataType");
}

std::string_view irName(DataType t) {
  switch (t) {
    case DataType::Bool: return "bool";
    case DataType::Int32: return "int";
    case DataType::Int64: return "int64_t";
    case DataType::Half: return "__half";
    case DataType::BFloat16: return "__bfloat";
    case DataType::Float: return "float";
    case DataType::Double: return "double";
  }
  throw InternalError("unknown DataType");
}

std::optional<DataType> parseDataType(std::string_view name) {
  struct Entry {
    std::string_view name;
    DataType type;
  };
  static constexpr Entry kNames[] = {
      {"Bool", DataType::Bool},         {"bool", DataType::Bool},
      {"Int32", DataType::Int32},       {"int32", DataType::Int32},
      {"int", DataType::Int32},         {"Int", DataType::Int64},
      {"Int64", DataType::Int64},       {"int64", DataType::Int64},
      {"long", DataType::Int64},        {"int64_t", DataType::Int64},
      {"Index", DataType::Int64},       {"Half", DataType::Half},
      {"half", DataType::Half},         {"float16", DataType::Half},
      {"__half", DataType::Half},       {"BFloat16", DataType::BFloat16},
      {"bfloat16", DataType::BFloat16}, {"__bfloat", DataType::BFloat16},
      {"Float", DataType::Float},       {"float", DataType::Float},
      {"float32", DataType::Float},     {"Double", DataType::Double},
      {"double", DataType::Double},     {"float64", DataType::Double},
  };
  for (const auto& e : kNames)
    if (e.name == name) return e.type;
  return std::nullopt;
}

std::string toString(const ScalarValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  double d = std::get<double>(v);
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  // Shortest representation that reads back to the same double.
  return fmt::format("{}", d);
}

double toDouble(const ScalarValue& v) {
  return std::visit([](auto x) { return static_cast<double>(x); }, v);
}

int64_t toInt(const ScalarValue& v) {
  if (auto* d = std::get_if<double>(&v)) {
    FUSEBOX_USER_CHECK(std::isfinite(*d), "cannot convert {} to an integer", *d);
    // -2^63 and 2^63 are exact doubles; everything in between truncates into range.
    FUSEBOX_USER_CHECK(*d >= -9223372036854775808.0 && *d < 9223372036854775808.0,
                       "cannot convert {} to an integer: it is outside int64", *d);
    return static_cast<int64_t>(*d);
  }
  return std::visit([](auto x) { return static_cast<int64_t>(x); }, v);
}

bool toBool(const ScalarValue& v) {
  return std::visit([](auto x) { return x != 0; }, v);
}

ScalarValue castScalar(const ScalarValue& v, DataType t) {
  if (t == DataType::Bool) return toBool(v);
  if (isIntegralType(t)) {
    int64_t i = toInt(v);
    return t == DataType::Int32 ? static_cast<int64_t>(static_cast<int32_t>(i)) : i;
  }
  return toDouble(v);
}

TypeCategory category(DataType t) {
  if (t == DataType::Bool) return TypeCategory::Bool;
  if (isIntegralType(t)) return TypeCategory::Integral;
  return TypeCategory::Floating;
}

DataType promoteTypes(DataType a, DataType b) {
  if (a == b) return a;
  auto ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  switch (ca) {
    case TypeCategory::Bool: return DataType::Bool;
    case TypeCategory::Integral: return DataType::Int64;  // int32 + int64
    case TypeCategory::Floating: break;
  }
  // Two different floating types: half + bfloat16 have no common 16-bit type.
  if ((a == DataType::Half && b == DataType::BFloat16) ||
      (a == DataType::BFloat16 && b == DataType::Half))
    return DataType::Float;
  return dataTypeSize(a) >= dataTypeSize(b) ? a : b;
}

DataType resultType(const PromotionOperand* begin, const PromotionOperand* end) {
  // As torch.result_type: the highest-category tensor type wins; a scalar of a
  // higher category than every tensor raises the result to that category's
  // default (int64 for ints, float32 for floats).
  std::optional<DataType> tensor_type;
  std::optional<DataType> scalar_type;
  for (auto* p = begin; p != end; ++p) {
    auto& slot = p->is_tensor ? tensor_type : scalar_type;
    slot = slot ? promoteTypes(*slot, p->dtype) : p->dtype;
  }
  if (!tensor_type) return *scalar_type;
  if (!scalar_type || category(*scalar_type) <= category(*tensor_type)) return *tensor_type;
  return category(*scalar_type) == TypeCategory::Floating ? DataType::Float : DataType::Int64;
}

DataType resultType(std::initializer_list<PromotionOperand> operands) {
  FUSEBOX_CHECK(operands.size() > 0, "resultType needs an operand");
  return resultType(operands.begin(), operands.end());
}

}  // namespace fusebox
