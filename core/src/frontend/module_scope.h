// What a fusion body sees of the module around it. The definition runs after
// the whole script is read (nvFuser's tests assign `inputs` after the `with`
// block that runs it), so it reads module-level values as the script leaves
// them: constants (`LOW_VAL = -1`, `dims = [0, 1]`) and the inputs list.
#pragma once

#include "frontend/python_expr.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fusebox::frontend {

// The names a function body assigns (`NAME = ...`, `A, B = ...` at the start
// of a statement): as in Python, they are the function's own throughout it,
// and reading one before its assignment is an error, not the module's value.
// `body_start` is the token just after the body's INDENT.
std::set<std::string> assignedNames(const std::vector<Token>& tokens, size_t body_start);

// A function body reads the module-level `name` at `where`: an error when the
// function assigns the name itself (it is its own, as in Python), or when the
// module assigns it more than once (`assignments`): the definition runs after
// the whole module, so which value Python would read depends on where the
// call is, and fusebox does not guess.
void checkModuleRead(const Token& name, const SourceLocation& where,
                     const std::set<std::string>& function_locals,
                     const std::vector<Token>& assignments);

// One `fd.from_pytorch(t)`: the fusion input it defined and the tensor it read.
struct FromPytorchUse {
  size_t input_index = 0;
  std::shared_ptr<InputSpec> tensor;
  SourceLocation where;
};

// fd.execute passes the inputs list positionally: a from_pytorch of an entry
// of that list must define the fusion input at that entry's position. An
// error names the call and both positions.
void checkFromPytorchPositions(const std::vector<FromPytorchUse>& uses, const PyValue& list,
                               const std::string& list_name);

}  // namespace fusebox::frontend
