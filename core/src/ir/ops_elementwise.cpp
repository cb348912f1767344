// Elementwise ops (unary, binary, ternary, cast): PyTorch's type promotion and
// right-aligned broadcasting. Ops on scalars only produce scalars.
#include <fmt/format.h>
#include <algorithm>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// Integral operands of these are computed in floating point (torch's "int to
// float" unary ops).
bool isFloatingMath(UnaryOpType op) {
  switch (op) {
    case UnaryOpType::Exp:
    case UnaryOpType::Exp2:
    case UnaryOpType::Expm1:
    case UnaryOpType::Log:
    case UnaryOpType::Log2:
    case UnaryOpType::Log10:
    case UnaryOpType::Log1p:
    case UnaryOpType::Sqrt:
    case UnaryOpType::Rsqrt:
    case UnaryOpType::Reciprocal:
    case UnaryOpType::Sin:
    case UnaryOpType::Cos:
    case UnaryOpType::Tan:
    case UnaryOpType::Asin:
    case UnaryOpType::Acos:
    case UnaryOpType::Atan:
    case UnaryOpType::Sinh:
    case UnaryOpType::Cosh:
    case UnaryOpType::Tanh:
    case UnaryOpType::Asinh:
    case UnaryOpType::Acosh:
    case UnaryOpType::Atanh:
    case UnaryOpType::Sigmoid:
    case UnaryOpType::Silu:
    case UnaryOpType::Erf:
    case UnaryOpType::Erfc:
    case UnaryOpType::Erfinv:
    case UnaryOpType::Erfcinv:
    case UnaryOpType::Lgamma:
      return true;
    default:
      return false;
  }
}

// torch's default float type for tensors; scalars compute in double as nvFuser's do.
DataType defaultFloat(bool tensor_result) {
  return tensor_result ? DataType::Float : DataType::Double;
}

DataType unaryResultType(UnaryOpType op, DataType in, bool tensor, const std::string& name) {
  if (isFloatingMath(op)) return isFloatingType(in) ? in : defaultFloat(tensor);
  switch (op) {
    case UnaryOpType::LogicalNot:
    case UnaryOpType::IsFinite:
    case UnaryOpType::IsInf:
    case UnaryOpType::IsNan:
    case UnaryOpType::IsNegInf:
    case UnaryOpType::IsPosInf:
    case UnaryOpType::Signbit:
      return DataType::Bool;
    case UnaryOpType::Neg:
      FUSEBOX_USER_CHECK(!isBoolType(in),
                         "{}: negation of a Bool operand is not supported; use "
                         "fd.ops.logical_not",
                         name);
      return in;
    case UnaryOpType::Frac:
      FUSEBOX_USER_CHECK(isFloatingType(in), "{}: expects a floating-point operand, got {}", name,
                         pythonName(in));
      return in;
    case UnaryOpType::BitwiseNot:
      FUSEBOX_USER_CHECK(!isFloatingType(in), "{}: expects a Bool or integer operand, got {}", name,
                         pythonName(in));
      return in;
    default:
      return in;  // abs, relu, sign, floor, ceil, round, trunc keep the type
  }
}

DataType binaryResultType(BinaryOpType op, const Val* a, const Val* b, const std::string& name) {
  const bool tensor = a->isTensor() || b->isTensor();
  const DataType common = resultType({{a->dtype(), a->isTensor()}, {b->dtype(), b->isTensor()}});
  auto both = [&](auto pred) { return pred(a->dtype()) && pred(b->dtype()); };
  auto types = [&] {
    return fmt::format("{} and {}", pythonName(a->dtype()), pythonName(b->dtype()));
  };
  switch (op) {
    case BinaryOpType::Sub:
      FUSEBOX_USER_CHECK(!isBoolType(a->dtype()) && !isBoolType(b->dtype()),
                         "{}: subtraction with a Bool operand is not supported (got {}); use "
                         "fd.ops.logical_not or bitwise_xor",
                         name, types());
      return common;
    case BinaryOpType::TrueDiv:
    case BinaryOpType::Atan2:
      return isFloatingType(common) ? common : defaultFloat(tensor);
    case BinaryOpType::CeilDiv:
    case BinaryOpType::BitwiseLeftShift:
    case BinaryOpType::BitwiseRightShift:
    case BinaryOpType::LogicalRightShift:
    case BinaryOpType::Gcd:
      FUSEBOX_USER_CHECK(both(isIntegralType), "{}: expects integer operands, got {}", name,
                         types());
      return common;
    case BinaryOpType::Nextafter:
      // Steps on the grid of the common dtype, which must have one.
      FUSEBOX_USER_CHECK(isFloatingType(common),
                         "{}: expects floating-point operands (torch.nextafter), got {}", name,
                         types());
      return common;
    case BinaryOpType::BitwiseAnd:
    case BinaryOpType::BitwiseOr:
    case BinaryOpType::BitwiseXor:
      FUSEBOX_USER_CHECK(both([](DataType t) { return !isFloatingType(t); }),
                         "{}: expects Bool or integer operands, got {}", name, types());
      return common;
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      return DataType::Bool;
    default:
      return common;  // add, mul, div, pow, fmod, remainder, maximum, minimum
  }
}

DataType ternaryResultType(TernaryOpType op, const std::vector<Val*>& v, const std::string& name) {
  auto operand = [&](size_t i) { return PromotionOperand{v[i]->dtype(), v[i]->isTensor()}; };
  switch (op) {
    case TernaryOpType::Where:
      FUSEBOX_USER_CHECK(isBoolType(v[0]->dtype()), "{}: the condition must be Bool, got {} {}",
                         name, pythonName(v[0]->dtype()), v[0]->toString());
      return resultType({operand(1), operand(2)});
    case TernaryOpType::Threshold:
      return v[0]->dtype();
    default:
      return resultType({operand(0), operand(1), operand(2)});  // clamp, lerp
  }
}

// Builds `op(operands)`: a scalar when every operand is a scalar; otherwise a
// tensor whose lower-rank operands are first broadcast on the left.
Val* makeElementwise(OpType op, std::vector<Val*> operands, DataType out_type, ExprAttrs attrs,
                     const std::string& name) {
  Fusion& f = fusionOf(operands, name);
  int64_t rank = -1;
  for (Val* v : operands)
    if (v->isTensor()) rank = std::max(rank, v->as<TensorView>()->nDims());
  if (rank < 0) {
    auto* out = f.newScalar(out_type);
    f.newExpr(op, std::move(operands), {out}, std::move(attrs));
    return out;
  }
  // Validate every dim before building anything, so an error leaves no trace.
  std::vector<std::string> names;
  for (size_t i = 0; i < operands.size(); ++i)
    names.push_back(fmt::format("operand {} ({})", i,
                                operands[i]->isTensor() ? describe(operands[i]->as<TensorView>())
                                                        : operands[i]->toString()));
  auto dimsAt = [&](int64_t d) {
    std::vector<IterDomain*> ids;
    for (Val* v : operands) {
      IterDomain* id = nullptr;
      if (v->isTensor()) {
        auto dims = v->as<TensorView>()->logicalNoReductions();
        int64_t k = d - (rank - static_cast<int64_t>(dims.size()));  // right-aligned
        if (k >= 0) id = dims[k];
      }
      ids.push_back(id);
    }
    return ids;
  };
  for (int64_t d = 0; d < rank; ++d) checkDimsAgree(dimsAt(d), names, name, d, true);

  for (Val*& v : operands) {
    if (!v->isTensor()) continue;
    auto* tv = v->as<TensorView>();
    int64_t missing = rank - tv->nDims();
    if (missing == 0) continue;
    std::vector<bool> is_broadcast(rank, false);
    std::fill(is_broadcast.begin(), is_broadcast.begin() + missing, true);
    v = broadcast(tv, is_broadcast);
  }
  std::vector<IterDomain*> domain;
  for (int64_t d = 0; d < rank; ++d)
    domain.push_back(unifyDims(dimsAt(d), names, name, d, /*broadcasting=*/true));
  auto* out = f.newTensor(std::move(domain), out_type);
  f.newExpr(op, std::move(operands), {out}, std::move(attrs));
  return out;
}

}  // namespace

Val* unaryOp(UnaryOpType op, Val* x) {
  const std::string name = pyOp(toString(op));
  requirePresent(x, name, "operand");
  DataType out_type = unaryResultType(op, x->dtype(), x->isTensor(), name);
  // Fold integer negation and absolute value of constants, as extents need.
  auto c = constInt(x);
  if (c && *c != INT64_MIN && (op == UnaryOpType::Neg || op == UnaryOpType::Abs) &&
      x->dtype() == DataType::Int64)
    return x->fusion()->constantInt(op == UnaryOpType::Neg ? -*c : (*c < 0 ? -*c : *c));
  return makeElementwise(OpType::Unary, {x}, out_type, op, name);
}

TensorView* unaryOp(UnaryOpType op, TensorView* x) {
  return unaryOp(op, static_cast<Val*>(x))->as<TensorView>();
}

Val* binaryOp(BinaryOpType op, Val* a, Val* b) {
  const std::string name = pyOp(toString(op));
  requirePresent(a, name, "first operand");
  requirePresent(b, name, "second operand");
  fusionOf({a, b}, name);
  DataType out_type = binaryResultType(op, a, b, name);
  if (a->isScalar() && b->isScalar())
    return scalarBinary(op, a->as<Scalar>(), b->as<Scalar>(), out_type);
  return makeElementwise(OpType::Binary, {a, b}, out_type, op, name);
}

TensorView* binaryOp(BinaryOpType op, TensorView* a, Val* b) {
  return binaryOp(op, static_cast<Val*>(a), b)->as<TensorView>();
}
TensorView* binaryOp(BinaryOpType op, Val* a, TensorView* b) {
  return binaryOp(op, a, static_cast<Val*>(b))->as<TensorView>();
}
TensorView* binaryOp(BinaryOpType op, TensorView* a, TensorView* b) {
  return binaryOp(op, static_cast<Val*>(a), static_cast<Val*>(b))->as<TensorView>();
}

Val* ternaryOp(TernaryOpType op, Val* a, Val* b, Val* c) {
  const std::string name = pyOp(toString(op));
  requirePresent(a, name, "first operand");
  requirePresent(b, name, "second operand");
  requirePresent(c, name, "third operand");
  std::vector<Val*> operands = {a, b, c};
  fusionOf(operands, name);
  DataType out_type = ternaryResultType(op, operands, name);
  return makeElementwise(OpType::Ternary, std::move(operands), out_type, op, name);
}

Val* castOp(DataType dtype, Val* x) {
  const std::string name = pyOp("cast");
  requirePresent(x, name, "operand");
  return makeElementwise(OpType::Cast, {x}, dtype, {}, name);
}

TensorView* castOp(DataType dtype, TensorView* x) {
  return castOp(dtype, static_cast<Val*>(x))->as<TensorView>();
}

#define FUSEBOX_DEFINE_BINARY(fn, op)            \
  Val* fn(Val* a, Val* b) {                      \
    return binaryOp(BinaryOpType::op, a, b);     \
  }                                              \
  TensorView* fn(TensorView* a, Val* b) {        \
    return binaryOp(BinaryOpType::op, a, b);     \
  }                                              \
  TensorView* fn(Val* a, TensorView* b) {        \
    return binaryOp(BinaryOpType::op, a, b);     \
  }                                              \
  TensorView* fn(TensorView* a, TensorView* b) { \
    return binaryOp(BinaryOpType::op, a, b);     \
  }
FUSEBOX_DEFINE_BINARY(add, Add)
FUSEBOX_DEFINE_BINARY(sub, Sub)
FUSEBOX_DEFINE_BINARY(mul, Mul)
FUSEBOX_DEFINE_BINARY(div, Div)
FUSEBOX_DEFINE_BINARY(pow, Pow)
FUSEBOX_DEFINE_BINARY(maximum, Maximum)
FUSEBOX_DEFINE_BINARY(minimum, Minimum)
FUSEBOX_DEFINE_BINARY(lt, Lt)
FUSEBOX_DEFINE_BINARY(gt, Gt)
FUSEBOX_DEFINE_BINARY(eq, Eq)
#undef FUSEBOX_DEFINE_BINARY

Val* ceilDiv(Val* a, Val* b) {
  return binaryOp(BinaryOpType::CeilDiv, a, b);
}
TensorView* neg(TensorView* x) {
  return unaryOp(UnaryOpType::Neg, x);
}
TensorView* exp(TensorView* x) {
  return unaryOp(UnaryOpType::Exp, x);
}
TensorView* tanh(TensorView* x) {
  return unaryOp(UnaryOpType::Tanh, x);
}

TensorView* where(Val* cond, Val* a, Val* b) {
  bool any_tensor = false;
  for (Val* v : {cond, a, b}) any_tensor |= v != nullptr && v->isTensor();
  FUSEBOX_USER_CHECK(any_tensor || !cond || !a || !b,
                     "fd.ops.where: where() builds a tensor, but every operand is a scalar; use "
                     "ternaryOp for scalars");
  return ternaryOp(TernaryOpType::Where, cond, a, b)->as<TensorView>();
}

}  // namespace fusebox
