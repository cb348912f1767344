// Number: conversions from and to scalar values of every dtype.
#include <fusebox/half.h>

#include "element_access.h"
#include "eval/eval_internal.h"

namespace fusebox::eval_detail {

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
