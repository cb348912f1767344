// Number: loading from and storing to tensors and scalars of every dtype.
#include <fusebox/half.h>

#include "element_access.h"
#include "eval/eval_internal.h"

namespace fusebox::eval_detail {

int64_t Number::asInt() const {
  return isFloat() ? detail::doubleToInteger<int64_t>(d) : i;
}

Number loadNumber(const void* base, DataType t, int64_t offset) {
  const char* p = static_cast<const char*>(base) + offset * dataTypeSize(t);
  switch (t) {
    case DataType::Bool:
      return Number::ofBool(detail::loadRaw<uint8_t>(p) != 0);
    case DataType::Int32:
    case DataType::Int64:
      return Number::ofInt(detail::loadInt(p, t));
    default:
      return Number::ofFloat(detail::loadDouble(p, t));
  }
}

void storeNumber(void* base, DataType t, int64_t offset, const Number& v) {
  char* p = static_cast<char*>(base) + offset * dataTypeSize(t);
  if (v.isFloat())
    detail::storeDouble(p, t, v.d);
  else
    detail::storeInt(p, t, v.i);
}

Number numberFromScalar(const ScalarValue& v, DataType t) {
  ScalarValue c = castScalar(v, t);
  if (auto* b = std::get_if<bool>(&c)) return Number::ofBool(*b);
  if (auto* i = std::get_if<int64_t>(&c)) return Number::ofInt(*i);
  return Number::ofFloat(std::get<double>(c));
}

ScalarValue scalarFromNumber(const Number& v, DataType t) {
  switch (t) {
    case DataType::Bool:
      return v.asBool();
    case DataType::Int32:
      return static_cast<int64_t>(v.isFloat() ? detail::doubleToInteger<int32_t>(v.d)
                                              : static_cast<int32_t>(v.i));
    case DataType::Int64:
      return v.asInt();
    case DataType::Half:
      return static_cast<double>(halfToFloat(doubleToHalf(v.asDouble())));
    case DataType::BFloat16:
      return static_cast<double>(bfloat16ToFloat(doubleToBfloat16(v.asDouble())));
    case DataType::Float:
      return static_cast<double>(v.isFloat() ? static_cast<float>(v.d) : static_cast<float>(v.i));
    case DataType::Double:
      return v.asDouble();
  }
  return v.asDouble();
}

}  // namespace fusebox::eval_detail
