// Elementwise op text (codegen_ops.h). The compute-type rules mirror
// core/src/eval/eval_math.cpp: an op computes in floating point when an operand
// or its result is floating, else in int64 (wrapping), and bools keep their own
// overloads where the evaluator keeps them boolean.
#include "kernelgen/codegen_ops.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

namespace fusebox::kernelgen {

std::string storageType(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "bool";
    case DataType::Int32:
      return "int32_t";
    case DataType::Int64:
      return "int64_t";
    case DataType::Half:
      return "fusebox::Half";
    case DataType::BFloat16:
      return "fusebox::BFloat16";
    case DataType::Float:
      return "float";
    case DataType::Double:
      return "double";
  }
  return "void";
}

std::string computeTypeName(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "bool";
    case DataType::Int32:
    case DataType::Int64:
      return "int64_t";
    case DataType::Double:
      return "double";
    default:
      return "float";
  }
}

std::string roundTo(DataType t, const std::string& expr) {
  const std::string ct = computeTypeName(t), st = storageType(t);
  if (ct == st) return fmt::format("fusebox::Cast<{}>::from({})", ct, expr);
  return fmt::format("fusebox::Cast<{}>::from(fusebox::Cast<{}>::from({}))", ct, st, expr);
}

namespace {

std::string doubleLiteral(double d) {
  if (std::isfinite(d)) {
    std::string s = fmt::format("{:.17g}", d);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return fmt::format("fusebox::bitCast<double>({:#x}ull)", bits);
}

// The type an op computes in, from its operands' and result's dtypes.
bool anyFloating(const std::vector<DataType>& ts) {
  for (DataType t : ts)
    if (isFloatingType(t)) return true;
  return false;
}
bool anyDouble(const std::vector<DataType>& ts) {
  for (DataType t : ts)
    if (t == DataType::Double) return true;
  return false;
}
bool allBool(const std::vector<DataType>& ts) {
  for (DataType t : ts)
    if (t != DataType::Bool) return false;
  return true;
}
// Operands compared (or tested for truth) in their promoted compute type.
std::string operandMathType(const std::vector<DataType>& ts) {
  if (anyFloating(ts)) return anyDouble(ts) ? "double" : "float";
  return "int64_t";
}

std::string as(const std::string& type, const OperandText& x) {
  if (computeTypeName(x.dtype) == type) return x.value;
  return fmt::format("fusebox::Cast<{}>::from({})", type, x.value);
}

// Ops on the bits of their dtype compute in a wider type (float for the
// 16-bit floats, int64_t for int32): the runtime's variant for the narrower
// dtype (fusebox_runtime/bit_ops.cuh).
std::string widthSuffix(BinaryOpType op, DataType out) {
  switch (op) {
    case BinaryOpType::Nextafter:
      if (out == DataType::Half) return "_half";
      if (out == DataType::BFloat16) return "_bfloat16";
      return "";
    case BinaryOpType::Gcd:
    case BinaryOpType::LogicalRightShift:
      return out == DataType::Int32 ? "_int32" : "";
    default:
      return "";
  }
}

}  // namespace

std::string literal(const ScalarValue& v, DataType t) {
  switch (t) {
    case DataType::Bool:
      return toBool(v) ? "true" : "false";
    case DataType::Int32:
    case DataType::Int64: {
      const int64_t i = toInt(v);
      // 9223372036854775808ll is no literal; the cast keeps the type int64_t
      // (a bare long long would make fusebox::cast's overloads ambiguous).
      if (i == INT64_MIN) return "int64_t(-9223372036854775807ll - 1)";
      return fmt::format("int64_t({}ll)", i);
    }
    case DataType::Double:
      return doubleLiteral(toDouble(v));
    default:
      return roundTo(t, doubleLiteral(toDouble(v)));
  }
}

std::string unaryText(UnaryOpType op, const OperandText& x, DataType out, bool approximate) {
  std::string mt;
  if (isFloatingType(out))
    mt = computeTypeName(out);
  else if (isFloatingType(x.dtype))
    mt = computeTypeName(x.dtype);
  else if (x.dtype == DataType::Bool &&
           (op == UnaryOpType::Abs || op == UnaryOpType::Relu || op == UnaryOpType::LogicalNot ||
            op == UnaryOpType::BitwiseNot || op == UnaryOpType::IsFinite ||
            op == UnaryOpType::IsInf || op == UnaryOpType::IsNan || op == UnaryOpType::IsNegInf ||
            op == UnaryOpType::IsPosInf))
    mt = "bool";
  else
    mt = "int64_t";
  if (approximate && op == UnaryOpType::Exp && mt == "float")
    return roundTo(out, fmt::format("fusebox::op::exp_approx({})", as(mt, x)));
  return roundTo(out, fmt::format("fusebox::op::{}({})", toString(op), as(mt, x)));
}

std::string binaryText(BinaryOpType op, const OperandText& a, const OperandText& b, DataType out,
                       bool approximate) {
  const std::vector<DataType> ts{a.dtype, b.dtype};
  std::string mt;
  switch (op) {
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      mt = operandMathType(ts);
      break;
    case BinaryOpType::Maximum:
    case BinaryOpType::Minimum:
    case BinaryOpType::BitwiseAnd:
    case BinaryOpType::BitwiseOr:
    case BinaryOpType::BitwiseXor:
      if (isFloatingType(out) || anyFloating(ts))
        mt = operandMathType({out, a.dtype, b.dtype});
      else
        mt = allBool(ts) ? "bool" : "int64_t";
      break;
    default:
      if (isFloatingType(out))
        mt = computeTypeName(out);
      else if (anyFloating(ts))
        mt = operandMathType(ts);
      else
        mt = "int64_t";
      break;
  }
  if (approximate && (op == BinaryOpType::Div || op == BinaryOpType::TrueDiv) && mt == "float")
    return roundTo(out, fmt::format("fusebox::op::div_approx({}, {})", as(mt, a), as(mt, b)));
  return roundTo(out, fmt::format("fusebox::op::{}{}({}, {})", toString(op), widthSuffix(op, out),
                                  as(mt, a), as(mt, b)));
}

std::string ternaryText(TernaryOpType op, const OperandText& a, const OperandText& b,
                        const OperandText& c, DataType out) {
  std::string mt;
  if (isFloatingType(out))
    mt = computeTypeName(out);
  else if (out == DataType::Bool && op == TernaryOpType::Where)
    mt = "bool";
  else
    mt = "int64_t";
  if (op == TernaryOpType::Where)
    return roundTo(
        out, fmt::format("fusebox::op::where({}, {}, {})", as("bool", a), as(mt, b), as(mt, c)));
  if (op == TernaryOpType::Threshold && !isFloatingType(out) &&
      (isFloatingType(a.dtype) || isFloatingType(b.dtype)))
    mt = "double";  // compare as the evaluator does, then store
  return roundTo(out, fmt::format("fusebox::op::{}({}, {}, {})", toString(op), as(mt, a), as(mt, b),
                                  as(mt, c)));
}

}  // namespace fusebox::kernelgen
