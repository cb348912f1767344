// The FusionDefinition methods other than ops: define_tensor, define_scalar,
// define_vector and add_output.
#include "frontend/fd_methods.h"

#include <fmt/format.h>
#include <fusebox/ir/ops.h>

#include "frontend/op_table.h"

namespace fusebox::frontend {
namespace {

PyValue defineTensorCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(
      fn,
      {OpParam{{"shape", "symbolic_sizes"}, true}, OpParam{{"contiguity"}, false},
       OpParam{{"dtype"}, false}, OpParam{{"is_cpu"}, false}, OpParam{{"stride_order"}, false}},
      args);
  std::vector<int64_t> shape = asIntList(a.at(0), a.context(0));
  if (!a.at(0).isSequence()) throwWrongKind(a.at(0), "a list of sizes", a.context(0));
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < -1)
      throw UserError(
          a.at(0).items[i].where,
          fmt::format("size {} in {} must be -1 (symbolic) or >= 0", shape[i], a.context(0)));
  std::vector<int64_t> stride_order;
  if (a.has(4)) {
    stride_order = asIntList(a.at(4), a.context(4));
    if (!stride_order.empty() &&
        (stride_order.size() != shape.size() || !isPermutation(stride_order)))
      throw UserError(a.at(4).where,
                      fmt::format("stride_order must be a permutation of 0..{} (one entry per dim)",
                                  static_cast<int64_t>(shape.size()) - 1));
  }
  // Contiguity follows the allocation order (outermost first), as in nvFuser.
  std::vector<std::optional<bool>> contiguity;
  if (a.has(1)) {
    const PyValue& c = a.at(1);
    if (c.kind == PyValue::Kind::Bool) {
      std::vector<int64_t> perm = stride_order;
      if (stride_order.empty())
        for (size_t i = 0; i < shape.size(); ++i) perm.push_back(static_cast<int64_t>(i));
      else
        perm = strideOrderToAllocationPermutation(stride_order);
      for (int64_t d : perm)
        contiguity.push_back(shape[d] == 1 ? std::nullopt : std::optional<bool>(c.b));
    } else {
      if (!c.isSequence()) throwWrongKind(c, "a list of True/False/None or a bool", a.context(1));
      for (const PyValue& item : c.items) {
        if (item.kind == PyValue::Kind::None)
          contiguity.push_back(std::nullopt);
        else
          contiguity.push_back(asBool(item, a.context(1)));
      }
      if (!contiguity.empty() && contiguity.size() != shape.size())
        throw UserError(c.where,
                        fmt::format("contiguity has {} entries, expected {} (one per dim of shape)",
                                    contiguity.size(), shape.size()));
    }
  }
  DataType dtype = a.has(2) ? *asDataType(a.at(2), a.context(2), false) : DataType::Float;
  if (a.has(3)) asBool(a.at(3), a.context(3));  // is_cpu: accepted, tensors live on the host anyway
  return fromVal(defineTensor(f, shape, dtype, contiguity, stride_order), args.where);
}

PyValue defineScalarCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn, {OpParam{{"value"}, false}, OpParam{{"dtype"}, false}}, args);
  std::optional<DataType> dtype;
  if (a.has(1)) dtype = asDataType(a.at(1), a.context(1), false);
  if (!a.has(0)) {
    if (!dtype)
      throw UserError(args.where, fmt::format("{} needs a value or a dtype (a symbolic input needs "
                                              "dtype=DataType.X)",
                                              fn));
    return fromVal(defineScalar(f, *dtype), args.where);
  }
  const PyValue& v = a.at(0);
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
  f.addOutput(out.val);
  if (order) f.setRequiredStrideOrder(out.val->as<TensorView>(), stride_order);
  if (alias) f.aliasOutputToInput(out.val, alias->val);
  return PyValue::none(args.where);
}

}  // namespace

PyValue callFdMethod(Fusion& f, const std::string& fd_name, const Token& name,
                     const CallArgs& args) {
  std::string fn = fmt::format("{}.{}", fd_name, displayText(name.text));
  try {
    if (name.text == "define_tensor") return defineTensorCall(f, fn, args);
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
                      "define_tensor, define_vector, ops.<op>)",
                      fn));
}

}  // namespace fusebox::frontend
