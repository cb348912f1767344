// fd.define_tensor / define_scalar / define_vector / add_output.
#pragma once

#include "frontend/python_expr.h"

#include <string>

namespace fusebox::frontend {

// Calls `<fd_name>.<name>(...)` on the fusion being built. Unknown methods and
// bad arguments are UserErrors at the method name or the argument at fault.
PyValue callFdMethod(Fusion& fusion, const std::string& fd_name, const Token& name,
                     const CallArgs& args);

// `<value>.<name>(...)` on a value of the fusion body: a tensor's size(dim)
// and shape(). Anything else is a UserError at the method name.
PyValue callValueMethod(const PyValue& self, const Token& name, const CallArgs& args);

}  // namespace fusebox::frontend
