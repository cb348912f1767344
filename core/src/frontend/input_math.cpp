// Elementwise math on the inputs list's torch tensors (input_views.h): `x +
// 0.5`, `2 * x`, `-x`, `x ** 2`, `x.abs()`, `x.exp()`, `x.clamp(0, 1)`, the
// arithmetic repro scripts use to keep values in a domain. Each op is a copy
// with torch's result dtype (an integer tensor with a float number, or a
// float function of it, becomes float32) and the layout torch gives an
// elementwise result (the view's strides when dense, else row-major).
#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>

#include <cmath>
#include <cstring>

#include "frontend/input_views.h"
#include "frontend/op_table.h"
#include "strided_walk.h"

namespace fusebox::frontend {
namespace {

using Op = InputMath::Op;

struct MethodName {
  std::string_view name;
  Op op;
};
// Methods of one tensor and no argument, and the tensor-and-number ones.
constexpr MethodName kUnaryMethods[] = {
    {"neg", Op::Neg},
    {"abs", Op::Abs},
    {"exp", Op::Exp},
    {"log", Op::Log},
    {"log1p", Op::Log1p},
    {"expm1", Op::Expm1},
    {"sqrt", Op::Sqrt},
    {"rsqrt", Op::Rsqrt},
    {"sin", Op::Sin},
    {"cos", Op::Cos},
    {"tanh", Op::Tanh},
    {"sigmoid", Op::Sigmoid},
    {"reciprocal", Op::Reciprocal},
};
constexpr MethodName kBinaryMethods[] = {
    {"add", Op::Add}, {"sub", Op::Sub}, {"mul", Op::Mul}, {"div", Op::Div}, {"pow", Op::Pow},
};

std::string_view methodName(Op op) {
  for (const auto& m : kUnaryMethods)
    if (m.op == op) return m.name;
  for (const auto& m : kBinaryMethods)
    if (m.op == op) return m.name;
  return "clamp";
}

std::string_view operatorText(Op op) {
  switch (op) {
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    default:
      return "**";
  }
}

bool isFloatNumber(const ScalarValue& v) {
  return std::holds_alternative<double>(v);
}

// torch's result dtype of the op on a tensor of `dtype`: floating tensors
// keep theirs; integer ones stay integers with integer numbers (+ - * **,
// neg, abs, clamp) and become the default float32 otherwise.
DataType resultDType(DataType dtype, const InputMath& m) {
  if (isFloatingType(dtype)) return dtype;
  switch (m.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Pow:
      return isFloatNumber(m.operand) ? DataType::Float : dtype;
    case Op::Neg:
    case Op::Abs:
      return dtype;
    case Op::Clamp:
      return (m.low && isFloatNumber(*m.low)) || (m.high && isFloatNumber(*m.high))
                 ? DataType::Float
                 : dtype;
    default:
      return DataType::Float;  // true division and the float functions
  }
}

PyValue withMath(const PyValue& self, InputMath m, const SourceLocation& where) {
  const InputSpec& spec = *self.input;
  if (isBoolType(spec.dtype))
    throw UserError(where, fmt::format("{} of a bool tensor is not supported in the inputs list; "
                                       "convert it first, e.g. .to(torch.int64)",
                                       methodName(m.op)));
  if (isIntegralType(resultDType(spec.dtype, m)) && m.op == Op::Pow && !m.operand_first &&
      toInt(m.operand) < 0)
    throw UserError(where, "integers to negative integer powers are not allowed (as in torch)");
  InputSpec made = copyOf(spec, resultDType(spec.dtype, m), InputCopy::Layout::Preserve);
  made.copies.back().math = std::move(m);
  PyValue out = PyValue::make(PyValue::Kind::Input, self.where);
  out.input = std::make_shared<InputSpec>(std::move(made));
  return out;
}

ScalarValue numberOf(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Float) return v.f;
  if (v.kind == PyValue::Kind::Int) return v.i;
  throwWrongKind(v, "an int or float number", context);
}

double applyFloat(const InputMath& m, double x) {
  const double c = toDouble(m.operand);
  switch (m.op) {
    case Op::Add:
      return x + c;
    case Op::Sub:
      return m.operand_first ? c - x : x - c;
    case Op::Mul:
      return x * c;
    case Op::Div:
      return m.operand_first ? c / x : x / c;
    case Op::Pow:
      return m.operand_first ? std::pow(c, x) : std::pow(x, c);
    case Op::Neg:
      return -x;
    case Op::Abs:
      return std::fabs(x);
    case Op::Exp:
      return std::exp(x);
    case Op::Log:
      return std::log(x);
    case Op::Log1p:
      return std::log1p(x);
    case Op::Expm1:
      return std::expm1(x);
    case Op::Sqrt:
      return std::sqrt(x);
    case Op::Rsqrt:
      return 1 / std::sqrt(x);
    case Op::Sin:
      return std::sin(x);
    case Op::Cos:
      return std::cos(x);
    case Op::Tanh:
      return std::tanh(x);
    case Op::Sigmoid:
      return 1 / (1 + std::exp(-x));
    case Op::Reciprocal:
      return 1 / x;
    case Op::Clamp:
      if (m.low) x = std::isnan(x) ? x : std::max(x, toDouble(*m.low));
      if (m.high) x = std::isnan(x) ? x : std::min(x, toDouble(*m.high));
      return x;
  }
  return x;
}

// Integer results wrap as torch's integer arithmetic does.
int64_t applyInt(const InputMath& m, int64_t x) {
  auto wrap = [](uint64_t v) {
    int64_t r;
    std::memcpy(&r, &v, sizeof r);
    return r;
  };
  const auto ux = static_cast<uint64_t>(x);
  const int64_t c = std::holds_alternative<double>(m.operand) ? 0 : toInt(m.operand);
  const auto uc = static_cast<uint64_t>(c);
  switch (m.op) {
    case Op::Add:
      return wrap(ux + uc);
    case Op::Sub:
      return m.operand_first ? wrap(uc - ux) : wrap(ux - uc);
    case Op::Mul:
      return wrap(ux * uc);
    case Op::Neg:
      return wrap(0 - ux);
    case Op::Abs:
      return x < 0 ? wrap(0 - ux) : x;
    case Op::Pow: {
      const int64_t base = m.operand_first ? c : x, exponent = m.operand_first ? x : c;
      FUSEBOX_USER_CHECK(exponent >= 0,
                         "an inputs-list tensor: integers to negative integer powers are not "
                         "allowed (as in torch), got {} ** {}",
                         base, exponent);
      uint64_t r = 1, b = static_cast<uint64_t>(base);
      for (uint64_t e = static_cast<uint64_t>(exponent); e != 0; e >>= 1, b *= b)
        if (e & 1) r *= b;
      return wrap(r);
    }
    case Op::Clamp:
      if (m.low) x = std::max(x, toInt(*m.low));
      if (m.high) x = std::min(x, toInt(*m.high));
      return x;
    default:
      return x;  // resultDType made every other op floating
  }
}

}  // namespace

PyValue inputArithmetic(const Token& op, const PyValue& a, const PyValue& b) {
  const SourceLocation where = a.where;
  const bool tensor_first = a.kind == PyValue::Kind::Input;
  const PyValue& tensor = tensor_first ? a : b;
  const PyValue& other = tensor_first ? b : a;
  if (other.kind == PyValue::Kind::Input)
    throw UserError(where, fmt::format("operator '{}' between two inputs-list tensors is not "
                                       "supported; only a tensor and a number",
                                       op.text));
  InputMath m;
  if (op.text == "+")
    m.op = Op::Add;
  else if (op.text == "-")
    m.op = Op::Sub;
  else if (op.text == "*")
    m.op = Op::Mul;
  else if (op.text == "/")
    m.op = Op::Div;
  else if (op.text == "**")
    m.op = Op::Pow;
  else
    throw UserError(where, fmt::format("operator '{}' on an inputs-list tensor is not supported "
                                       "(supported: + - * / ** with a number)",
                                       op.text));
  m.operand = numberOf(other, fmt::format("the number beside operator '{}'", op.text));
  m.operand_first = !tensor_first;
  return withMath(tensor, std::move(m), where);
}

PyValue inputNegate(const PyValue& v, const SourceLocation& where) {
  InputMath m;
  m.op = Op::Neg;
  return withMath(v, std::move(m), where);
}

std::optional<PyValue> inputMathMethod(const PyValue& self, const Token& name,
                                       const CallArgs& args) {
  const std::string& fn = name.text;
  const SourceLocation where{args.where.file, name.line, name.column};
  for (const auto& method : kUnaryMethods) {
    if (fn != method.name) continue;
    BoundArgs a(fn, {}, args);
    InputMath m;
    m.op = method.op;
    return withMath(self, std::move(m), where);
  }
  for (const auto& method : kBinaryMethods) {
    if (fn != method.name) continue;
    BoundArgs a(fn, {OpParam{{"other", "exponent"}, true}}, args);
    InputMath m;
    m.op = method.op;
    m.operand = numberOf(a.at(0), a.context(0));
    return withMath(self, std::move(m), where);
  }
  if (fn == "clamp" || fn == "clip") {
    BoundArgs a(fn, {OpParam{{"min"}, false}, OpParam{{"max"}, false}}, args);
    InputMath m;
    m.op = Op::Clamp;
    if (a.has(0)) m.low = numberOf(a.at(0), a.context(0));
    if (a.has(1)) m.high = numberOf(a.at(1), a.context(1));
    if (!m.low && !m.high)
      throw UserError(where, fmt::format(".{} needs min or max (as in torch)", fn));
    return withMath(self, std::move(m), where);
  }
  return std::nullopt;
}

void applyInputMath(const InputMath& m, Tensor& t) {
  const bool integral = !isFloatingType(t.dtype());
  // A half or bfloat16 result of torch's float32 math is rounded twice.
  const bool via_float = t.dtype() == DataType::Half || t.dtype() == DataType::BFloat16;
  for (detail::StridedWalk w(t.sizes(), {t.strides()}); !w.done(); w.next()) {
    const std::vector<int64_t>& index = w.index();
    if (integral) {
      t.setInt(index, applyInt(m, t.getInt(index)));
      continue;
    }
    double r = applyFloat(m, t.getDouble(index));
    if (via_float) r = static_cast<float>(r);
    t.setDouble(index, r);
  }
}

std::string inputMathText(const InputMath& m, const std::string& tensor) {
  switch (m.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Pow: {
      const std::string number = pythonLiteral(m.operand);
      return m.operand_first ? fmt::format("({} {} {})", number, operatorText(m.op), tensor)
                             : fmt::format("({} {} {})", tensor, operatorText(m.op), number);
    }
    case Op::Clamp: {
      std::vector<std::string> bounds;
      if (m.low) bounds.push_back("min=" + pythonLiteral(*m.low));
      if (m.high) bounds.push_back("max=" + pythonLiteral(*m.high));
      return fmt::format("{}.clamp({})", tensor, fmt::join(bounds, ", "));
    }
    default:
      return fmt::format("{}.{}()", tensor, methodName(m.op));
  }
}

}  // namespace fusebox::frontend
