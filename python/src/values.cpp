#include "values.h"

#include <fmt/format.h>

namespace fusebox::python {

DefinitionValue toDefinitionValue(py::handle object, const std::string& what,
                                  const SourceLocation& where) {
  using K = DefinitionValue::Kind;
  DefinitionValue v;
  if (object.is_none()) return v;
  // bool first: Python's bool is an int.
  if (py::isinstance<py::bool_>(object)) {
    v.kind = K::Bool;
    v.b = object.cast<bool>();
    return v;
  }
  if (py::isinstance<py::int_>(object)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(object.ptr(), &overflow);
    if (overflow != 0)
      throw UserError(where, fmt::format("{}: integer {} does not fit in int64", what,
                                         py::str(object).cast<std::string>()));
    v.kind = K::Int;
    v.i = static_cast<int64_t>(i);
    return v;
  }
  if (py::isinstance<py::float_>(object)) {
    v.kind = K::Float;
    v.f = object.cast<double>();
    return v;
  }
  if (py::isinstance<py::str>(object)) {
    v.kind = K::String;
    v.s = object.cast<std::string>();
    return v;
  }
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    v.kind = py::isinstance<py::list>(object) ? K::List : K::Tuple;
    int64_t k = 0;
    for (py::handle item : object)
      v.items.push_back(toDefinitionValue(item, fmt::format("item {} of {}", k++, what), where));
    return v;
  }
  if (py::isinstance<DefinitionValue>(object)) return object.cast<DefinitionValue>();
  if (py::hasattr(object, "_value")) {
    py::object inner = object.attr("_value");
    if (py::isinstance<DefinitionValue>(inner)) return inner.cast<DefinitionValue>();
  }
  if (py::hasattr(object, "_fusebox_dtype")) {
    v.kind = K::DType;
    v.s = object.attr("_fusebox_dtype").cast<std::string>();
    return v;
  }
  std::string type = py::str(py::type::of(object).attr("__qualname__")).cast<std::string>();
  throw UserError(where, fmt::format("{} is a Python {}; a definition takes numbers, lists, "
                                     "DataType members and the tensors, scalars and vectors "
                                     "it defined",
                                     what, type));
}

DefinitionCall toDefinitionCall(const std::string& function, py::tuple args, py::dict kwargs,
                                const SourceLocation& where) {
  DefinitionCall call;
  call.where = where;
  for (size_t i = 0; i < args.size(); ++i)
    call.positional.push_back(
        toDefinitionValue(args[i], fmt::format("argument {} of {}", i + 1, function), where));
  for (auto [key, value] : kwargs) {
    std::string name = key.cast<std::string>();
    call.keywords.emplace_back(
        name, toDefinitionValue(value, fmt::format("argument '{}' of {}", name, function), where));
  }
  return call;
}

py::object fromDefinitionValue(const DefinitionValue& value) {
  using K = DefinitionValue::Kind;
  switch (value.kind) {
    case K::None:
      return py::none();
    case K::Tuple:
    case K::List: {
      py::list items;
      for (const DefinitionValue& item : value.items) items.append(fromDefinitionValue(item));
      if (value.kind == K::List) return items;
      return py::tuple(items);
    }
    default:
      return py::cast(value);
  }
}

}  // namespace fusebox::python
