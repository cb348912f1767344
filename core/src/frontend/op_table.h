// fd.ops.<name>(...): binds positional and keyword arguments the way nvFuser's
// Python frontend names them and calls the builder API (ir/ops.h).
#pragma once

#include "frontend/python_expr.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusebox::frontend {

// One parameter of an fd.ops function: its nvFuser name, accepted aliases
// (older nvFuser spellings such as `axes` for `dims`), whether it is required.
struct OpParam {
  std::vector<std::string_view> names;
  bool required = true;
};

// Arguments bound to an OpParam list: positional first, then keywords by name
// or alias. Binding fails with "fd.ops.add takes 2 arguments, got 3",
// "unexpected keyword 'dimz' for fd.ops.sum (expected: dims, axes, dim,
// keepdim, keep_dim, dtype)", a missing or a doubly given argument.
class BoundArgs {
 public:
  BoundArgs(std::string function, std::vector<OpParam> params, const CallArgs& args);
  // Given and not None.
  bool has(size_t i) const {
    return slots_.at(i) != nullptr && slots_[i]->kind != PyValue::Kind::None;
  }
  const PyValue& at(size_t i) const;
  // "argument 'dims' of fd.ops.sum"
  std::string context(size_t i) const;
  const SourceLocation& where() const { return where_; }
  const std::string& function() const { return function_; }

 private:
  std::string function_;
  std::vector<OpParam> params_;
  std::vector<const PyValue*> slots_;
  SourceLocation where_;
};

// Calls fd.ops.<op.text>. Errors name file:line:col of the op, the argument or
// the keyword at fault; UserErrors from the builder (shape mismatches, bad
// dims) are re-thrown with the call's location.
PyValue callFdOp(Fusion& fusion, const Token& op, const CallArgs& args);

// The message of a UserError the builder raised (without a location),
// prefixed with `function` unless it already starts with it.
std::string builderErrorDetail(const UserError& e, const std::string& function);

// The stride order fd.ops.stride_order gave the tensor value `v` (empty for
// any other value). add_output makes it the output's required stride order,
// row-major included, which an allocation domain cannot record.
std::vector<int64_t> strideOrderOf(const PyValue& v);

// Every fd.ops name this frontend knows, sorted.
std::vector<std::string> knownOpNames();
// The parameters of fd.ops.<name> (empty when unknown), for documentation tests.
std::vector<OpParam> opParams(std::string_view name);

}  // namespace fusebox::frontend
