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
    case PyValue::Kind::Complex:
      return "a complex number";
    case PyValue::Kind::Slice:
      return "a slice";
    case PyValue::Kind::Ellipsis:
      return "an Ellipsis";
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
    case PyValue::Kind::Complex:
      return fmt::format("({}{:+}j)", v.f, v.imag);
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

PyValue dataTypeNamed(const std::string& name, const SourceLocation& where,
                      const SourceLocation& name_where) {
  PyValue v = PyValue::make(PyValue::Kind::DType, where);
  if (name == "Null") return v;
  if (name == "ComplexFloat" || name == "ComplexDouble")
    throw UserError(name_where, fmt::format("DataType.{}: complex dtypes are not supported "
                                            "(fusebox has no complex dtypes)",
                                            displayText(name)));
  std::optional<DataType> d = parseDataType(name);
  // Only nvFuser's spellings: DataType.Float, not DataType.float32.
  if (!d || pythonName(*d) != name) {
    std::string known;
    for (DataType t : kAllDataTypes)
      known += fmt::format("{}DataType.{}", known.empty() ? "" : ", ", pythonName(t));
    throw UserError(name_where, fmt::format("unsupported dtype DataType.{} (supported: {}, "
                                            "DataType.Null)",
                                            displayText(name), known));
  }
  v.dtype = d;
  return v;
}

void throwComplexUnsupported(const PyValue& v) {
  throw UserError(v.where, fmt::format("{} is a complex number; complex numbers and dtypes are not "
                                       "supported (fusebox has no complex dtypes)",
                                       describeValue(v)));
}

SliceBounds normalizeSlice(const PyValue& slice, int64_t n) {
  auto bound = [](const PyValue& p) {
    return p.kind == PyValue::Kind::Int ? std::optional<int64_t>(p.i) : std::nullopt;
  };
  SliceBounds b;
  if (auto step = bound(slice.items.at(2))) b.step = *step;
  if (b.step == 0) throw UserError(slice.items[2].where, "slice step cannot be zero");
  // Bounds past either end clamp; with a negative step "before the start" is -1.
  auto clamp = [&](std::optional<int64_t> v, int64_t if_missing) {
    if (!v) return if_missing;
    int64_t x = *v < 0 ? *v + n : *v;
    if (x < 0) return b.step < 0 ? int64_t{-1} : int64_t{0};
    if (x >= n) return b.step < 0 ? n - 1 : n;
    return x;
  };
  b.start = clamp(bound(slice.items[0]), b.step < 0 ? n - 1 : 0);
  const int64_t stop = clamp(bound(slice.items[1]), b.step < 0 ? -1 : n);
  if (b.step > 0 && stop > b.start) b.length = (stop - b.start - 1) / b.step + 1;
  if (b.step < 0 && b.start > stop) b.length = (b.start - stop - 1) / (-b.step) + 1;
  return b;
}

PyValue sliceOf(const PyValue& seq, const PyValue& slice) {
  const SliceBounds b = normalizeSlice(slice, static_cast<int64_t>(seq.items.size()));
  PyValue out = PyValue::make(seq.kind, seq.where);
  for (int64_t k = 0; k < b.length; ++k) out.items.push_back(seq.items[b.start + k * b.step]);
  return out;
}

PyValue complexArithmetic(const std::string& op, const PyValue& a, const PyValue& b,
                          const SourceLocation& op_where) {
  auto part = [&](const PyValue& v, bool imaginary) {
    if (v.kind == PyValue::Kind::Complex) return imaginary ? v.imag : v.f;
    if (!v.isNumber())
      throwWrongKind(v, "a number", fmt::format("operator '{}' on a complex number", op));
    if (imaginary) return 0.0;
    return v.kind == PyValue::Kind::Float  ? v.f
           : v.kind == PyValue::Kind::Bool ? (v.b ? 1.0 : 0.0)
                                           : static_cast<double>(v.i);
  };
  const double ar = part(a, false), ai = part(a, true), br = part(b, false), bi = part(b, true);
  PyValue r = PyValue::make(PyValue::Kind::Complex, a.where);
  if (op == "+" || op == "-") {
    const double sign = op == "+" ? 1 : -1;
    r.f = ar + sign * br;
    r.imag = ai + sign * bi;
  } else if (op == "*") {
    r.f = ar * br - ai * bi;
    r.imag = ar * bi + ai * br;
  } else {
    throw UserError(op_where, fmt::format("operator '{}' on complex numbers is not supported "
                                          "(complex numbers are only read; fusebox has no "
                                          "complex dtypes)",
                                          op));
  }
  return r;
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
    case PyValue::Kind::Complex:
      throwComplexUnsupported(v);
    default:
      throwWrongKind(v, "a scalar or a number", context);
  }
}

Val* asOperand(Fusion& f, const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Tensor) return v.val;
  if (v.kind == PyValue::Kind::Scalar || v.isNumber() || v.kind == PyValue::Kind::Complex)
    return asScalar(f, v, context);
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
