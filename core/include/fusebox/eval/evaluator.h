// The reference evaluator: runs any Fusion on host tensors, accumulating in
// float64 (float64 for every floating computation; int64 for integers). It is
// the oracle for every test and the engine of the expr_eval scheduler.
#pragma once

#include <fusebox/ir/fusion.h>
#include <fusebox/tensor.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace fusebox {

// A fusion input or output: a tensor or a scalar.
using Argument = std::variant<Tensor, ScalarValue>;
std::string describe(const Argument& a);
// Host tensors copied (Tensor::clone) and scalars as they are: inputs kept
// as they were before a call that writes aliased outputs into them.
std::vector<Argument> cloneArguments(const std::vector<Argument>& arguments);
// Whether some output of `fusion` is written into an input (add_output(...,
// alias_input=...)).
bool hasAliasedOutputs(const Fusion& fusion);

// Evaluates scalar values (extents, scalar inputs and scalar arithmetic) once
// fusion inputs are bound. Remembers who bound each value, for messages.
class ExpressionEvaluator {
 public:
  // Binds a symbolic scalar (or checks a constant / already bound one); a
  // different value than the one it has throws UserError.
  void bind(const Val* v, ScalarValue value, const std::string& bound_by = {});
  // Binds a tensor input's extents (and checks constant extents and broadcast
  // dims against the tensor's sizes). `name` is the input as messages call it.
  void bindTensor(const TensorView* tv, const Tensor& t, const std::string& name);
  // Binds `extent` to a size seen at run time, or checks it against the value it
  // already has. Returns "" when consistent, else what was expected, e.g.
  // "4 (extent i1 bound by T1)" or "4 (a constant extent)".
  std::string bindExtent(const Val* extent, int64_t size, const std::string& bound_by);
  // The value of a scalar, or nullopt when it depends on something unbound.
  // Scalar expressions evaluate with the evaluator's elementwise semantics.
  std::optional<ScalarValue> evaluate(const Val* v);
  // Like evaluate, but throws InternalError naming the value when unbound.
  ScalarValue evaluateOrThrow(const Val* v);
  int64_t evaluateInt(const Val* v) { return toInt(evaluateOrThrow(v)); }
  // Who bound `v` (an input name, a tensor), or "" when nobody did.
  std::string boundBy(const Val* v) const;

 private:
  std::unordered_map<const Val*, ScalarValue> values_;
  std::unordered_map<const Val*, std::string> bound_by_;
  // Computed values found to depend on something unbound, so that a chain of
  // n extents each built on the last is walked once, not n times; forgotten
  // whenever a value is bound.
  std::unordered_set<const Val*> unknown_;
};

struct EvaluatorOptions {
  // Names of the fusion inputs for error messages (e.g. the script's variables).
  // Empty: inputs are named "#i (T0_g)".
  std::vector<std::string> input_names;
};

// Checks `inputs` against the fusion's inputs: count, kind, dtype, rank,
// constant extents, broadcast dims of size 1, extents that must agree, an
// aliased input whose elements share memory; then the run-time shape
// constraints of the fusion's ops (operands of an elementwise op, expand and
// broadcast_in_dim sizes, reshape element counts, cat and contraction
// sizes). Throws UserError naming the input or the op and what was expected.
// Reads metadata only, so device tensors are accepted (evaluateFusion itself
// needs host tensors).
void validateInputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                    const EvaluatorOptions& options = {});

// Checks each tensor input's strides against the contiguity its definition
// declares (in allocation order, as nvFuser): a dim declared contiguous must
// step exactly over the next inner non-broadcast dim (the innermost over one
// element). Size-1 dims and empty tensors are not checked, as torch gives
// them any stride. Kernels are made for the strides a call brings whatever
// the declaration says, so this is a contract check for callers that want
// the declaration kept (the Python module, as nvFuser refuses such inputs);
// a UserError names the input, the dim and the stride expected. Call after
// validateInputs (ranks and kinds are assumed right).
void validateInputContiguity(const Fusion& fusion, const std::vector<Argument>& inputs,
                             const EvaluatorOptions& options = {});

// Runs the fusion. Outputs with a required stride order (or an allocation
// domain) are allocated in that order; others are row-major. Every returned
// tensor is freshly allocated, except an output aliased to an input
// (Fusion::aliasOutputToInput): its values are written into that input tensor,
// which is returned. Bad inputs and run-time shape conflicts throw UserError.
std::vector<Argument> evaluateFusion(const Fusion& fusion, const std::vector<Argument>& inputs,
                                     const EvaluatorOptions& options = {});

}  // namespace fusebox
