#include "frontend/py_value.h"

#include <fmt/format.h>

#include <fusebox/ir/fusion.h>
#include <cmath>

namespace fusebox::frontend {

PyValue PyValue::boolean(bool v, SourceLocation w) {
  PyValue p = make(Kind::Bool, std::move(w));
  p.b = v;
  return p;
}

PyValue PyValue::integer(int64_t v, SourceLocation w) {
  PyValue p = make(Kind::Int, std::move(w));
  p.i = v;
  return p;
}

PyValue PyValue::floating(double v, SourceLocation w) {
  PyValue p = make(Kind::Float, std::move(w));
  p.f = v;
  return p;
}

std::string kindPhrase(PyValue::Kind kind) {
  switch (kind) {
    case PyValue::Kind::None:
      return "None";
    case PyValue::Kind::Bool:
      return "a bool";
    case PyValue::Kind::Int:
      return "an int";
    case PyValue::Kind::Float:
      return "a float";
    case PyValue::Kind::String:
      return "a string";
    case PyValue::Kind::DType:
      return "an nvFuser DataType";
    case PyValue::Kind::TorchDType:
      return "a torch dtype";
    case PyValue::Kind::List:
      return "a list";
    case PyValue::Kind::Tuple:
      return "a tuple";
    case PyValue::Kind::Tensor:
      return "a tensor";
    case PyValue::Kind::Scalar:
      return "a scalar";
    case PyValue::Kind::Vector:
      return "a vector";
    case PyValue::Kind::Input:
      return "a torch tensor constructor";
    case PyValue::Kind::Opaque:
      return "an object this frontend does not model";
  }
  return "a value";
}

std::string describeValue(const PyValue& v) {
  if (!v.var.empty()) return displayText(v.var);
  switch (v.kind) {
    case PyValue::Kind::Bool:
      return v.b ? "True" : "False";
    case PyValue::Kind::Int:
      return std::to_string(v.i);
    case PyValue::Kind::Float:
      return fmt::format("{}", v.f);
    case PyValue::Kind::String:
      return fmt::format("'{}'", displayText(v.s));
    case PyValue::Kind::None:
      return "None";
    default:
      return "the argument";
  }
}

void throwWrongKind(const PyValue& v, const std::string& expected, const std::string& context) {
  std::string msg =
      fmt::format("{} is {}, expected {}", describeValue(v), kindPhrase(v.kind), expected);
  if (!context.empty()) msg += fmt::format(" ({})", context);
  throw UserError(v.where, msg);
}

}  // namespace fusebox::frontend

namespace fusebox::frontend {

std::string pythonFloat(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  std::string s = fmt::format("{}", v);  // shortest text that reads back exactly
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string pythonLiteral(const ScalarValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return pythonFloat(std::get<double>(v));
}

std::string torchDTypeName(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "torch.bool";
    case DataType::Int32:
      return "torch.int32";
    case DataType::Int64:
      return "torch.int64";
    case DataType::Half:
      return "torch.float16";
    case DataType::BFloat16:
      return "torch.bfloat16";
    case DataType::Float:
      return "torch.float32";
    case DataType::Double:
      return "torch.float64";
  }
  return "torch.float32";
}

PyValue fromVal(Val* v, SourceLocation where) {
  PyValue p = PyValue::make(v->isTensor() ? PyValue::Kind::Tensor : PyValue::Kind::Scalar,
                            std::move(where));
  p.val = v;
  return p;
}

TensorView* asTensor(const PyValue& v, const std::string& context) {
  if (v.kind != PyValue::Kind::Tensor) throwWrongKind(v, "a tensor", context);
  return v.val->as<TensorView>();
}

Scalar* asScalar(Fusion& f, const PyValue& v, const std::string& context) {
  switch (v.kind) {
    case PyValue::Kind::Scalar:
      return v.val->as<Scalar>();
    case PyValue::Kind::Int:
      return f.constantInt(v.i);
    case PyValue::Kind::Float:
      return f.constantDouble(v.f);
    case PyValue::Kind::Bool:
      return f.constantBool(v.b);
    default:
      throwWrongKind(v, "a scalar or a number", context);
  }
}

Val* asOperand(Fusion& f, const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Tensor) return v.val;
  if (v.kind == PyValue::Kind::Scalar || v.isNumber()) return asScalar(f, v, context);
  throwWrongKind(v, "a tensor, a scalar or a number", context);
}

int64_t asInt(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Int) return v.i;
  // A constant integral scalar (fd.define_scalar(2, dtype=DataType.Int)) works too.
  if (v.kind == PyValue::Kind::Scalar) {
    const auto* s = v.val->as<Scalar>();
    if (s->isConst() && isIntegralType(s->dtype())) return toInt(*s->value());
  }
  throwWrongKind(v, "an int", context);
}

bool asBool(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Bool) return v.b;
  throwWrongKind(v, "True or False", context);
}

double asDouble(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Float) return v.f;
  if (v.kind == PyValue::Kind::Int) return static_cast<double>(v.i);
  throwWrongKind(v, "a number", context);
}

std::vector<int64_t> asIntList(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Int) return {v.i};
  if (!v.isSequence()) throwWrongKind(v, "a list of ints", context);
  std::vector<int64_t> out;
  for (const PyValue& item : v.items) out.push_back(asInt(item, context));
  return out;
}

std::vector<bool> asBoolList(const PyValue& v, const std::string& context) {
  if (!v.isSequence()) throwWrongKind(v, "a list of True/False", context);
  std::vector<bool> out;
  for (const PyValue& item : v.items) out.push_back(asBool(item, context));
  return out;
}

std::vector<Val*> asShape(Fusion& f, const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Vector) return v.vec;
  if (!v.isSequence()) throwWrongKind(v, "a list of ints and scalars, or a vector", context);
  std::vector<Val*> out;
  for (const PyValue& item : v.items) {
    if (item.kind == PyValue::Kind::Int)
      out.push_back(f.constantInt(item.i));
    else if (item.kind == PyValue::Kind::Scalar)
      out.push_back(item.val);
    else
      throwWrongKind(item, "an int or a scalar", context);
  }
  return out;
}

std::vector<TensorView*> asTensorList(const PyValue& v, const std::string& context) {
  if (!v.isSequence()) throwWrongKind(v, "a list of tensors", context);
  std::vector<TensorView*> out;
  for (const PyValue& item : v.items) out.push_back(asTensor(item, context));
  return out;
}

std::optional<DataType> asDataType(const PyValue& v, const std::string& context, bool allow_null) {
  if (v.kind != PyValue::Kind::DType)
    throwWrongKind(v, "a DataType such as DataType.Float", context);
  if (!v.dtype && !allow_null)
    throw UserError(v.where, fmt::format("DataType.Null is not allowed here ({})", context));
  return v.dtype;
}

}  // namespace fusebox::frontend
