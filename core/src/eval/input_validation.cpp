// Checking run-time inputs against a fusion's inputs and binding their sizes.
#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <cmath>
#include <limits>

#include "eval/eval_internal.h"

namespace fusebox {
namespace eval_detail {
namespace {

// "a float", "an int64".
std::string withArticle(DataType t) {
  return fmt::format("{} {}", isIntegralType(t) ? "an" : "a", dtypeName(t));
}

std::string expectedKind(const Val* v) {
  if (v->isTensor())
    return fmt::format("{} tensor of rank {}", withArticle(v->dtype()),
                       v->as<TensorView>()->nDims());
  return fmt::format("{} scalar", withArticle(v->dtype()));
}

// Whether a scalar argument can stand for a scalar input of dtype t without
// losing anything: bools for Bool; integers for the integer types (in range);
// any number for the floating types.
void checkScalar(const std::string& name, DataType t, const ScalarValue& v) {
  const bool is_bool = std::holds_alternative<bool>(v);
  const bool is_int = std::holds_alternative<int64_t>(v);
  auto got = [&] { return describe(Argument(v)); };
  switch (category(t)) {
    case TypeCategory::Bool:
      FUSEBOX_USER_CHECK(
          is_bool || (is_int && (std::get<int64_t>(v) == 0 || std::get<int64_t>(v) == 1)),
          "input {}: expected a bool scalar, got {}", name, got());
      return;
    case TypeCategory::Integral:
      FUSEBOX_USER_CHECK(is_bool || is_int, "input {}: expected an {} scalar, got {}", name,
                         dtypeName(t), got());
      if (t == DataType::Int32 && is_int) {
        int64_t i = std::get<int64_t>(v);
        FUSEBOX_USER_CHECK(
            i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max(),
            "input {}: expected an int32 scalar, got {} (out of range)", name, got());
      }
      return;
    case TypeCategory::Floating:
      return;
  }
}

}  // namespace

std::string inputName(const Fusion& fusion, const EvaluatorOptions& options, size_t i) {
  if (i < options.input_names.size() && !options.input_names[i].empty())
    return options.input_names[i];
  return fmt::format("#{} ({})", i, fusion.inputs().at(i)->toString());
}

void bindInputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                const EvaluatorOptions& options, ExpressionEvaluator& ee, InputMemory memory) {
  const auto& expected = fusion.inputs();
  if (inputs.size() != expected.size()) {
    std::vector<std::string> wanted;
    for (size_t i = 0; i < expected.size(); ++i)
      wanted.push_back(
          fmt::format("{}: {}", inputName(fusion, options, i), expectedKind(expected[i])));
    throw UserError(fmt::format(
        "expected {} inputs ({}), got {}", expected.size(),
        wanted.empty() ? "none" : fmt::format("{}", fmt::join(wanted, "; ")), inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = inputName(fusion, options, i);
    const Val* v = expected[i];
    if (v->isTensor()) {
      const auto* t = std::get_if<Tensor>(&inputs[i]);
      FUSEBOX_USER_CHECK(t != nullptr, "input {}: expected {}, got a scalar {}", name,
                         expectedKind(v), describe(inputs[i]));
      FUSEBOX_USER_CHECK(t->defined(), "input {}: expected {}, got an undefined tensor", name,
                         expectedKind(v));
      FUSEBOX_USER_CHECK(memory == InputMemory::Any || t->device() == Device::Host,
                         "input {}: expected a host tensor, got a device tensor {} (the "
                         "reference evaluator runs on the host)",
                         name, t->describe());
      FUSEBOX_USER_CHECK(t->dtype() == v->dtype(), "input {}: expected dtype {}, got {} ({})", name,
                         dtypeName(v->dtype()), dtypeName(t->dtype()), t->describe());
      ee.bindTensor(v->as<TensorView>(), *t, name);
      for (const Val* out : fusion.outputs())
        FUSEBOX_USER_CHECK(fusion.aliasedInput(out) != v || !t->mayOverlap(),
                           "input {}: output {} is written into it in place, but its elements "
                           "share memory ({}; an expanded or overlapping view); pass a tensor "
                           "with its own memory, e.g. .contiguous()",
                           name, out->toString(), t->describe());
    } else {
      const auto* s = std::get_if<ScalarValue>(&inputs[i]);
      FUSEBOX_USER_CHECK(s != nullptr, "input {}: expected {}, got a tensor {}", name,
                         expectedKind(v), describe(inputs[i]));
      checkScalar(name, v->dtype(), *s);
      try {
        ee.bind(v, *s, name);
      } catch (const UserError& e) {
        throw UserError(fmt::format("input {}: {}", name, e.what()));
      }
    }
  }
}

}  // namespace eval_detail

void validateInputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                    const EvaluatorOptions& options) {
  ExpressionEvaluator ee;
  eval_detail::bindInputs(fusion, inputs, options, ee, eval_detail::InputMemory::Any);
  eval_detail::checkShapeConstraints(fusion, ee);
}

void validateInputContiguity(const Fusion& fusion, const std::vector<Argument>& inputs,
                             const EvaluatorOptions& options) {
  for (size_t i = 0; i < inputs.size() && i < fusion.inputs().size(); ++i) {
    const auto* t = std::get_if<Tensor>(&inputs[i]);
    const Val* in = fusion.inputs()[i];
    if (t == nullptr || !in->isTensor() || t->numel() == 0) continue;
    const auto* tv = in->as<TensorView>();
    const auto& contiguity = tv->contiguity();
    // Allocation axis k is logical dim perm[k]; without an allocation domain
    // the identity, made without the two vectors (every call passes here).
    std::vector<int64_t> perm;
    if (tv->hasAllocation()) perm = strideOrderToAllocationPermutation(tv->strideOrder());
    const size_t rank = tv->hasAllocation() ? perm.size() : static_cast<size_t>(tv->nDims());
    if (rank != contiguity.size() || static_cast<int64_t>(rank) != t->dim()) continue;
    auto name = [&] {  // for the message only: every call of the module passes here
      return i < options.input_names.size() ? options.input_names[i] : fmt::format("#{}", i);
    };
    // From the innermost allocation axis outward: the stride a contiguous
    // dim must have is the extent of what lies inside it.
    int64_t expected = 1;
    for (size_t k = rank; k-- > 0;) {
      if (!contiguity[k].has_value()) continue;  // broadcast
      const auto d = perm.empty() ? k : static_cast<size_t>(perm[k]);
      const int64_t size = t->sizes()[d];
      const int64_t stride = t->strides()[d];
      if (size == 1) continue;
      FUSEBOX_USER_CHECK(
          !*contiguity[k] || stride == expected,
          "input {}: dim {} has stride {}, but the definition declares it contiguous (stride {} "
          "expected, stride order [{}]); pass a tensor in that layout (.contiguous()) or declare "
          "the dim non-contiguous",
          name(), d, stride, expected, fmt::join(tv->strideOrder(), ", "));
      expected = checked::mul(stride, size).value_or(std::numeric_limits<int64_t>::max());
    }
  }
}

}  // namespace fusebox
