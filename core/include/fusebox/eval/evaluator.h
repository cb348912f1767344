// The reference evaluator: runs any Fusion on host tensors, accumulating in
// float64 (float64 for every floating computation; int64 for integers). It is
// the oracle for every test and the engine of the expr_eval scheduler.
#pragma once

#include <fusebox/ir/fusion.h>
#include <fusebox/tensor.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace fusebox {

// A fusion input or output: a tensor or a scalar.
using Argument = std::variant<Tensor, ScalarValue>;
std::string describe(const Argument& a);

// Evaluates scalar values (extents, scalar inputs and scalar arithmetic) once
// fusion inputs are bound.
class ExpressionEvaluator {
 public:
  void bind(const Val* v, ScalarValue value);
  // Binds a tensor input's extents (and checks constant extents and broadcast
  // dims against the tensor's sizes).
  void bindTensor(const TensorView* tv, const Tensor& t, const std::string& name);
  // The value of a scalar, or nullopt when it depends on something unbound.
  std::optional<ScalarValue> evaluate(const Val* v);
  // Like evaluate, but throws InternalError naming the value when unbound.
  ScalarValue evaluateOrThrow(const Val* v);
  int64_t evaluateInt(const Val* v) { return toInt(evaluateOrThrow(v)); }

 private:
  std::unordered_map<const Val*, ScalarValue> values_;
};

struct EvaluatorOptions {
  // Names of the fusion inputs for error messages (e.g. the script's variables).
  // Empty: inputs are named "#i (T0_g)".
  std::vector<std::string> input_names;
};

// Checks `inputs` against the fusion's inputs: count, kind, dtype, rank,
// constant extents, broadcast dims of size 1, extents that must agree. Throws
// UserError naming the input and what was expected.
void validateInputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                    const EvaluatorOptions& options = {});

// Runs the fusion. Outputs with a required stride order (or an allocation
// domain) are allocated in that order; others are row-major.
std::vector<Argument> evaluateFusion(const Fusion& fusion, const std::vector<Argument>& inputs,
                                     const EvaluatorOptions& options = {});

}  // namespace fusebox
