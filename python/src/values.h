// Python objects to definition values and back: what a FusionDefinition
// method or an fd.ops call receives from Python, and the handles it returns.
#pragma once

#include <fusebox/frontend/definition_builder.h>
#include <pybind11/pybind11.h>

#include <string>

namespace fusebox::python {

namespace py = pybind11;

// None, bool, int, float, str, list, tuple, a handle (a _Value, or an object
// with a `_value` attribute holding one: the module's Tensor, Scalar and
// Vector) and a DataType (an object with a `_fusebox_dtype` name). Anything
// else is a UserError at `where` naming `what` ("argument 2 of fd.ops.add")
// and the Python type. Integers beyond int64 are UserErrors too.
DefinitionValue toDefinitionValue(py::handle object, const std::string& what,
                                  const SourceLocation& where);

// The call's positional and keyword arguments.
DefinitionCall toDefinitionCall(const std::string& function, py::tuple args, py::dict kwargs,
                                const SourceLocation& where);

// A result: None, a handle (_Value) or a tuple of handles.
py::object fromDefinitionValue(const DefinitionValue& value);

}  // namespace fusebox::python
