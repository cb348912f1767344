// ExpressionEvaluator: scalar values of a fusion once its inputs are bound.
#include <fusebox/ir/shape_scalars.h>

#include <fmt/format.h>

#include <climits>

#include "eval/eval_internal.h"

namespace fusebox {

using namespace eval_detail;

namespace {

// What a scalar's value was expected to be, with where that expectation comes from.
std::string expectation(const Val* v, const ScalarValue& value, const std::string& bound_by) {
  const auto* s = v->as<Scalar>();
  if (s->isConst()) return fmt::format("{} (a constant extent)", toString(value));
  if (!bound_by.empty())
    return fmt::format("{} (extent {} bound by {})", toString(value), v->toString(), bound_by);
  return fmt::format("{} (extent {})", toString(value), v->toString());
}

Number evaluateScalarExpr(const Expr* def, const std::vector<Number>& in) {
  switch (def->op()) {
    case OpType::Unary:
      return applyUnary(def->attr<UnaryOpType>(), in.at(0));
    case OpType::Binary:
      return applyBinary(def->attr<BinaryOpType>(), in.at(0), in.at(1), def->output(0)->dtype());
    case OpType::Ternary:
      return applyTernary(def->attr<TernaryOpType>(), in.at(0), in.at(1), in.at(2));
    case OpType::Cast:
    case OpType::Set:
      return in.at(0);
    default:
      break;
  }
  throw InternalError(fmt::format("scalar produced by {} (not a scalar op)", describeExpr(def)));
}

// Whether evaluating `def` on `in` wrapped: an integer result outside int64,
// or outside int32 for an Int32 result.
bool wrapped(const Expr* def, const std::vector<Number>& in, const Number& result, DataType t) {
  if (def->op() == OpType::Unary && integerOverflows(def->attr<UnaryOpType>(), in.at(0)))
    return true;
  if (def->op() == OpType::Binary &&
      integerOverflows(def->attr<BinaryOpType>(), in.at(0), in.at(1)))
    return true;
  return t == DataType::Int32 && !result.isFloat() &&
         (result.i < INT32_MIN || result.i > INT32_MAX);
}

// Shape arithmetic must not wrap (shape_scalars.h): throws UserError naming
// the tensor op whose shape `v` gives. A scalar that gives no shape wraps, as
// tensor element math does. Only runs once something wrapped.
void rejectWrappedShape(const Val* v, const Expr* def, const std::vector<Number>& in) {
  const auto uses = shapeScalarUses(*v->fusion());
  auto it = uses.find(v);
  if (it == uses.end()) return;
  const ShapeUse& use = it->second;
  std::vector<std::string> operands;
  for (const Number& n : in) operands.push_back(std::to_string(n.i));
  throw UserError(fmt::format("{}: {} {} overflows {} ({}({}))", describeShapeOp(use.op),
                              use.is_output_extent ? "output size" : "shape operand",
                              use.root->as<Scalar>()->inlineString(),
                              v->dtype() == DataType::Int32 ? "int32" : "int64", def->opName(),
                              fmt::join(operands, ", ")));
}

}  // namespace

std::string describe(const Argument& a) {
  if (const auto* t = std::get_if<Tensor>(&a)) return t->describe();
  const auto& v = std::get<ScalarValue>(a);
  const char* kind = std::holds_alternative<bool>(v)      ? "bool"
                     : std::holds_alternative<int64_t>(v) ? "int64"
                                                          : "double";
  return fmt::format("{} {}", kind, toString(v));
}

void ExpressionEvaluator::bind(const Val* v, ScalarValue value, const std::string& bound_by) {
  FUSEBOX_CHECK(v->isScalar(), "bind: {} is not a scalar", v->toString());
  value = scalarFromNumber(numberFromScalar(value, v->dtype()), v->dtype());
  if (auto known = evaluate(v)) {
    FUSEBOX_USER_CHECK(*known == value, "{} has value {}, expected {}", v->toString(),
                       toString(value), expectation(v, *known, boundBy(v)));
    return;
  }
  FUSEBOX_CHECK(v->definition() == nullptr, "bind: {} is computed by an expression", v->toString());
  values_[v] = value;
  unknown_.clear();
  if (!bound_by.empty()) bound_by_[v] = bound_by;
}

std::string ExpressionEvaluator::bindExtent(const Val* extent, int64_t size,
                                            const std::string& bound_by) {
  if (auto known = evaluate(extent)) {
    if (toInt(*known) == size) return "";
    return expectation(extent, *known, boundBy(extent));
  }
  // A derived extent that cannot be computed yet has nothing to check against.
  if (extent->definition() != nullptr) return "";
  values_[extent] = size;
  unknown_.clear();
  bound_by_[extent] = bound_by;
  return "";
}

void ExpressionEvaluator::bindTensor(const TensorView* tv, const Tensor& t,
                                     const std::string& name) {
  const auto dims = tv->logicalNoReductions();
  FUSEBOX_USER_CHECK(static_cast<int64_t>(dims.size()) == t.dim(),
                     "input {}: expected {} dims, got {} ({})", name, dims.size(), t.dim(),
                     t.describe());
  for (size_t d = 0; d < dims.size(); ++d) {
    const IterDomain* id = dims[d];
    const int64_t size = t.sizes()[d];
    if (id->isBroadcast() && !id->hasExpandedExtent()) {
      FUSEBOX_USER_CHECK(size == 1, "input {}: dim {} has size {}, expected 1 (a broadcast dim)",
                         name, d, size);
      continue;
    }
    if (id->isBroadcast() && size > 1) {
      // An expanded broadcast repeats one value; a real stride would mean
      // distinct values the fusion is entitled to ignore.
      FUSEBOX_USER_CHECK(t.strides()[d] == 0,
                         "input {}: dim {} is an expanded broadcast of size {}, expected stride "
                         "0, got stride {} ({})",
                         name, d, size, t.strides()[d], t.describe());
    }
    std::string expected = bindExtent(id->logicalExtent(), size, name);
    FUSEBOX_USER_CHECK(expected.empty(), "input {}: dim {} has size {}, expected {}", name, d, size,
                       expected);
  }
}

std::optional<ScalarValue> ExpressionEvaluator::evaluate(const Val* v) {
  FUSEBOX_CHECK(v != nullptr && v->isScalar(), "evaluate: {} is not a scalar",
                v ? v->toString() : "null");
  // A post-order walk with an explicit stack (scalar chains can be as long as
  // the fusion). Computed values are kept in values_, so a subexpression
  // shared many times is computed once; the first operand that cannot be
  // known yet makes the whole value unknown.
  struct Frame {
    const Val* v;
    size_t next_input = 0;
    std::vector<Number> operands;
  };
  std::vector<Frame> stack;
  // The value of `x` when it needs no computing; nullopt inside when it
  // cannot be known. Otherwise pushes a frame for it and returns nullopt.
  auto visit = [&](const Val* x) -> std::optional<std::optional<ScalarValue>> {
    const auto* s = x->as<Scalar>();
    if (s->isConst())
      return scalarFromNumber(numberFromScalar(*s->value(), s->dtype()), s->dtype());
    if (auto it = values_.find(x); it != values_.end()) return it->second;
    if (x->definition() == nullptr || unknown_.count(x)) return std::optional<ScalarValue>();
    stack.push_back({x, 0, {}});
    return std::nullopt;
  };
  if (auto direct = visit(v)) return *direct;
  while (true) {
    Frame& top = stack.back();
    const Expr* def = top.v->definition();
    if (top.next_input < def->inputs().size()) {
      const Val* in = def->input(top.next_input++);
      if (auto direct = visit(in)) {  // else a frame for `in` was pushed: `top` is stale
        if (!*direct) {
          // Every value being computed depends on the unknown one.
          for (const Frame& f : stack) unknown_.insert(f.v);
          return std::nullopt;
        }
        top.operands.push_back(numberFromScalar(**direct, in->dtype()));
      }
      continue;
    }
    Number number;
    try {
      number = evaluateScalarExpr(def, top.operands);
    } catch (const UserError& e) {
      throw UserError(fmt::format("evaluating scalar {}: {}", describeExpr(def), e.what()));
    }
    const Val* x = top.v;
    if (wrapped(def, top.operands, number, x->dtype())) rejectWrappedShape(x, def, top.operands);
    ScalarValue value = scalarFromNumber(number, x->dtype());
    values_[x] = value;
    stack.pop_back();
    if (stack.empty()) return value;
    Frame& parent = stack.back();
    parent.operands.push_back(
        numberFromScalar(value, parent.v->definition()->input(parent.next_input - 1)->dtype()));
  }
}

ScalarValue ExpressionEvaluator::evaluateOrThrow(const Val* v) {
  auto value = evaluate(v);
  if (!value)
    throw InternalError(fmt::format(
        "cannot evaluate scalar {}: it depends on a value that is not bound", v->toString()));
  return *value;
}

std::string ExpressionEvaluator::boundBy(const Val* v) const {
  auto it = bound_by_.find(v);
  return it == bound_by_.end() ? std::string() : it->second;
}

}  // namespace fusebox
