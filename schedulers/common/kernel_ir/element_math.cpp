// The element math as kernel IR values (element_math.h). The compute-type
// rules mirror core/src/eval/eval_math.cpp: an op computes in floating point
// when an operand or its result is floating, else in int64 (wrapping), and
// bools keep their own overloads where the evaluator keeps them boolean.
#include "kernel_ir/element_math.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace fusebox::kir {

namespace {

std::string storageSpelling(DataType t) {
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

std::string computeSpelling(DataType t) {
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

// The operand in compute type `type`.
Value as(const std::string& type, const Operand& x) {
  if (computeSpelling(x.dtype) == type) return x.value;
  return castFrom(named(type), x.value);
}

Value op(const std::string& name, std::vector<Value> args) {
  return call("fusebox::op::" + name, std::move(args));
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

// The type a binary op computes in.
std::string binaryMathType(BinaryOpType op, DataType a, DataType b, DataType out) {
  const std::vector<DataType> ts{a, b};
  switch (op) {
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      return operandMathType(ts);
    case BinaryOpType::Maximum:
    case BinaryOpType::Minimum:
    case BinaryOpType::BitwiseAnd:
    case BinaryOpType::BitwiseOr:
    case BinaryOpType::BitwiseXor:
      if (isFloatingType(out) || anyFloating(ts)) return operandMathType({out, a, b});
      return allBool(ts) ? "bool" : "int64_t";
    default:
      if (isFloatingType(out)) return computeSpelling(out);
      if (anyFloating(ts)) return operandMathType(ts);
      return "int64_t";
  }
}

}  // namespace

Type storageTypeFor(DataType t) {
  return named(storageSpelling(t));
}

Type computeTypeFor(DataType t) {
  return named(computeSpelling(t));
}

Value castFrom(const Type& t, Value x) {
  return call(fmt::format("fusebox::Cast<{}>::from", t.spelling), {std::move(x)});
}

Value roundTo(DataType t, Value x) {
  const Type ct = computeTypeFor(t), st = storageTypeFor(t);
  if (ct == st) return castFrom(ct, std::move(x));
  return castFrom(ct, castFrom(st, std::move(x)));
}

Value storedAs(DataType t, Value x) {
  if (t == DataType::BFloat16) return call("fusebox::BFloat16::fromExact", {std::move(x)});
  return castFrom(storageTypeFor(t), std::move(x));
}

Value vectorElement(DataType t, Value vector, Value index) {
  if (t == DataType::BFloat16)
    return call("fusebox::widenLane", {std::move(vector), std::move(index)});
  return castFrom(computeTypeFor(t), subscript(std::move(vector), std::move(index)));
}

Value literal(const ScalarValue& v, DataType t) {
  switch (t) {
    case DataType::Bool:
      return text(toBool(v) ? "true" : "false");
    case DataType::Int32:
    case DataType::Int64: {
      const int64_t i = toInt(v);
      // 9223372036854775808ll is no literal; the cast keeps the type int64_t
      // (a bare long long would make fusebox::cast's overloads ambiguous).
      if (i == INT64_MIN) return text("int64_t(-9223372036854775807ll - 1)");
      return text(fmt::format("int64_t({}ll)", i));
    }
    case DataType::Double:
      return text(doubleLiteral(toDouble(v)));
    default:
      return roundTo(t, text(doubleLiteral(toDouble(v))));
  }
}

Value unaryOp(UnaryOpType o, const Operand& x, DataType out, bool approximate) {
  std::string mt;
  if (isFloatingType(out))
    mt = computeSpelling(out);
  else if (isFloatingType(x.dtype))
    mt = computeSpelling(x.dtype);
  else if (x.dtype == DataType::Bool &&
           (o == UnaryOpType::Abs || o == UnaryOpType::Relu || o == UnaryOpType::LogicalNot ||
            o == UnaryOpType::BitwiseNot || o == UnaryOpType::IsFinite || o == UnaryOpType::IsInf ||
            o == UnaryOpType::IsNan || o == UnaryOpType::IsNegInf || o == UnaryOpType::IsPosInf))
    mt = "bool";
  else
    mt = "int64_t";
  const bool approx = approximate && o == UnaryOpType::Exp && mt == "float";
  return roundTo(out, op(approx ? "exp_approx" : std::string(toString(o)), {as(mt, x)}));
}

bool dividesApproximately(BinaryOpType o, const Operand& a, const Operand& b, DataType out) {
  return (o == BinaryOpType::Div || o == BinaryOpType::TrueDiv) &&
         binaryMathType(o, a.dtype, b.dtype, out) == "float";
}

Value prepareDivisor(const Operand& b) {
  return op("approx_divisor", {as("float", b)});
}

Value divideByPrepared(const Value& prepared, const Operand& a, DataType out) {
  return roundTo(out, op("div_approx", {as("float", a), prepared}));
}

Value binaryOp(BinaryOpType o, const Operand& a, const Operand& b, DataType out, bool approximate) {
  const std::string mt = binaryMathType(o, a.dtype, b.dtype, out);
  if (approximate && dividesApproximately(o, a, b, out))
    return roundTo(out, op("div_approx", {as(mt, a), as(mt, b)}));
  return roundTo(out, op(std::string(toString(o)) + widthSuffix(o, out), {as(mt, a), as(mt, b)}));
}

Value ternaryOp(TernaryOpType o, const Operand& a, const Operand& b, const Operand& c,
                DataType out) {
  std::string mt;
  if (isFloatingType(out))
    mt = computeSpelling(out);
  else if (out == DataType::Bool && o == TernaryOpType::Where)
    mt = "bool";
  else
    mt = "int64_t";
  if (o == TernaryOpType::Where)
    return roundTo(out, op("where", {as("bool", a), as(mt, b), as(mt, c)}));
  if (o == TernaryOpType::Threshold && !isFloatingType(out) &&
      (isFloatingType(a.dtype) || isFloatingType(b.dtype)))
    mt = "double";  // compare as the evaluator does, then store
  return roundTo(out, op(std::string(toString(o)), {as(mt, a), as(mt, b), as(mt, c)}));
}

Value loadVector(int width, Value address, LoadHint hint) {
  if (hint == LoadHint::None)
    return call("fusebox::loadVec", {std::move(address)}, {named(std::to_string(width))});
  if (hint == LoadHint::Streamed)
    return call("fusebox::loadVecStreamed", {std::move(address)}, {named(std::to_string(width))});
  return call("fusebox::loadVecHinted", {std::move(address)},
              {named(hint == LoadHint::KeepForNextPass ? "fusebox::L2Hint::KeepForNextPass"
                                                       : "fusebox::L2Hint::LastUse"),
               named(std::to_string(width))});
}

void storeVector(Block& block, int width, Value address, Value values) {
  block.evaluate(call("fusebox::storeVec", {std::move(address), std::move(values)},
                      {named(std::to_string(width))}));
}

bool asyncCopyMoves(int64_t bytes) {
  return bytes == 4 || bytes == 8 || bytes == 16;
}

void asyncCopy(Block& block, int bytes, Value shared_dst, Value global_src) {
  FUSEBOX_CHECK(asyncCopyMoves(bytes),
                "kernel IR: an asynchronous copy moves 4, 8 or 16 bytes, not {}", bytes);
  block.evaluate(call("fusebox::asyncCopy", {std::move(shared_dst), std::move(global_src)},
                      {named(std::to_string(bytes))}));
}

void asyncCommit(Block& block) {
  block.evaluate(call("fusebox::asyncCommit", {}));
}

void asyncWait(Block& block, int pending) {
  FUSEBOX_CHECK(pending >= 0, "kernel IR: an asynchronous wait leaves {} groups in flight",
                pending);
  block.evaluate(call("fusebox::asyncWait", {}, {named(std::to_string(pending))}));
}

void asyncWaitPending(Block& block, int max_pending, Value pending) {
  FUSEBOX_CHECK(max_pending >= 0, "kernel IR: an asynchronous wait leaves {} groups in flight",
                max_pending);
  block.evaluate(call("fusebox::asyncWaitPending", {std::move(pending)},
                      {named(std::to_string(max_pending))}));
}

Value declarePhiloxStream(Block& block, const std::string& name, Value seed, Value offset) {
  const Value stream = var(name, named("fusebox::philox::Stream"));
  block.declare(name, named("fusebox::philox::Stream"),
                call("fusebox::philox::Stream", {std::move(seed), std::move(offset)}));
  return stream;
}

Value philoxDraw(Value stream, Value index, bool wide) {
  return call("fusebox::philox::draw",
              {std::move(stream), std::move(index), text(wide ? "true" : "false")});
}

Value philoxUniformNarrow(Value stream, Value index, Value low, Value range) {
  return call("fusebox::philox::uniformNarrow",
              {std::move(stream), std::move(index), std::move(low), std::move(range)});
}

}  // namespace fusebox::kir
