// The FusionDefinition methods other than ops: define_scalar, define_vector
// and add_output here; define_tensor and from_pytorch in define_tensor.cpp.
#include "frontend/fd_methods.h"

#include <fmt/format.h>
#include <fusebox/ir/ops.h>

#include "frontend/define_tensor.h"
#include "frontend/op_table.h"

namespace fusebox::frontend {
namespace {

PyValue defineScalarCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn, {OpParam{{"value"}, false}, OpParam{{"dtype"}, false}}, args);
  std::optional<DataType> dtype;
  if (a.has(1)) dtype = asDataType(a.at(1), a.context(1), false);
  // No value: a symbolic input, a Double unless dtype= says otherwise (as in nvFuser).
  if (!a.has(0)) return fromVal(defineScalar(f, dtype.value_or(DataType::Double)), args.where);
  const PyValue& v = a.at(0);
  // define_scalar(DataType.X): a symbolic input of that dtype, as nvFuser.
  if (v.kind == PyValue::Kind::DType && !a.has(1)) {
    std::optional<DataType> d = asDataType(v, a.context(0), false);
    return fromVal(defineScalar(f, *d), args.where);
  }
  if (v.kind == PyValue::Kind::Complex) throwComplexUnsupported(v);
  ScalarValue value;
  DataType natural;
  if (v.kind == PyValue::Kind::Bool) {
    value = v.b;
    natural = DataType::Bool;
  } else if (v.kind == PyValue::Kind::Int) {
    value = v.i;
    natural = DataType::Int64;
  } else if (v.kind == PyValue::Kind::Float) {
    value = v.f;
    natural = DataType::Double;
  } else {
    throwWrongKind(v, "a number or None", a.context(0));
  }
  return fromVal(f.constant(value, dtype.value_or(natural)), args.where);
}

PyValue defineVectorCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn, {OpParam{{"values"}, true}, OpParam{{"dtype"}, false}}, args);
  if (a.has(1)) {
    std::optional<DataType> d = asDataType(a.at(1), a.context(1), false);
    if (!isIntegralType(*d))
      throw UserError(a.at(1).where, fmt::format("{} holds ints; dtype must be DataType.Int", fn));
  }
  if (a.at(0).kind == PyValue::Kind::Vector)
    throwWrongKind(a.at(0), "a list of ints and scalars", a.context(0));
  PyValue v = PyValue::make(PyValue::Kind::Vector, args.where);
  v.vec = asShape(f, a.at(0), a.context(0));
  return v;
}

PyValue addOutputCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn,
              {OpParam{{"output"}, true}, OpParam{{"alias_input"}, false},
               OpParam{{"stride_order"}, false}},
              args);
  const PyValue& out = a.at(0);
  if (out.kind != PyValue::Kind::Tensor && out.kind != PyValue::Kind::Scalar)
    throwWrongKind(out, "a tensor or a scalar", a.context(0));
  const PyValue* alias = a.has(1) ? &a.at(1) : nullptr;
  const PyValue* order = a.has(2) ? &a.at(2) : nullptr;
  if (alias && alias->isSequence() && !order) {  // add_output(T, [1, 0]): the stride_order overload
    order = alias;
    alias = nullptr;
  }
  if (alias) {
    TensorView* in = asTensor(*alias, a.context(1));
    if (!in->isFusionInput())
      throw UserError(alias->where,
                      fmt::format("alias_input {} is not a fusion input", describeValue(*alias)));
  }
  std::vector<int64_t> stride_order;
  if (order) {
    TensorView* tv = asTensor(out, a.context(0));
    stride_order = asIntList(*order, a.context(2));
    if (static_cast<int64_t>(stride_order.size()) != tv->nDims() || !isPermutation(stride_order))
      throw UserError(order->where,
                      fmt::format("stride_order must be a permutation of 0..{} ({} has {} dims)",
                                  tv->nDims() - 1, describeValue(out), tv->nDims()));
  }
  // A tensor fd.ops.stride_order made keeps that layout as an output (unless
  // it is written into an input it aliases), as nvFuser's allocation domain.
  bool required = order != nullptr;
  if (!order && !alias) {
    stride_order = strideOrderOf(out);
    required = !stride_order.empty();
  }
  f.addOutput(out.val);
  if (required) f.setRequiredStrideOrder(out.val->as<TensorView>(), stride_order);
  if (alias) f.aliasOutputToInput(out.val, alias->val);
  return PyValue::none(args.where);
}

}  // namespace

PyValue callFdMethod(Fusion& f, const std::string& fd_name, const Token& name,
                     const CallArgs& args) {
  std::string fn = fmt::format("{}.{}", fd_name, displayText(name.text));
  try {
    if (name.text == "define_tensor") return defineTensorCall(f, fn, args);
    if (name.text == "from_pytorch") return fromPytorchCall(f, fn, args);
    if (name.text == "define_scalar" || name.text == "define_constant")
      return defineScalarCall(f, fn, args);
    if (name.text == "define_vector") return defineVectorCall(f, fn, args);
    if (name.text == "add_output") return addOutputCall(f, fn, args);
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw UserError(args.where, builderErrorDetail(e, fn));
  }
  SourceLocation at{args.where.file, name.line, name.column};
  if (name.text == "execute")
    throw UserError(
        at, fmt::format("{}.execute belongs after the `with FusionDefinition()` block", fd_name));
  throw UserError(
      at, fmt::format("unknown FusionDefinition method {} (known: add_output, define_scalar, "
                      "define_tensor, define_vector, from_pytorch, ops.<op>)",
                      fn));
}

PyValue callValueMethod(const PyValue& self, const Token& name, const CallArgs& args) {
  if (self.kind == PyValue::Kind::Tensor) {
    auto* tv = self.val->as<TensorView>();
    std::string fn = fmt::format("{}.{}", describeValue(self), displayText(name.text));
    if (name.text == "size") {
      BoundArgs a(fn, {OpParam{{"dim"}, true}}, args);
      int64_t dim = asInt(a.at(0), a.context(0));
      int64_t nd = tv->nDims();
      if (dim < -nd || dim >= nd)
        throw UserError(a.at(0).where, fmt::format("dim {} is out of range for {} of rank {}", dim,
                                                   describeValue(self), nd));
      return fromVal(tv->axis(dim < 0 ? dim + nd : dim)->logicalExtent(), args.where);
    }
    if (name.text == "shape") {
      BoundArgs a(fn, {}, args);
      PyValue v = PyValue::make(PyValue::Kind::Vector, args.where);
      for (IterDomain* id : tv->logicalNoReductions()) v.vec.push_back(id->logicalExtent());
      return v;
    }
  }
  throw UserError(SourceLocation{args.where.file, name.line, name.column},
                  fmt::format("{} ({}) has no method '{}' (tensors have size(dim) and shape())",
                              describeValue(self), kindPhrase(self.kind), displayText(name.text)));
}

}  // namespace fusebox::frontend
