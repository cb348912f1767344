// Compile-time acceptance and run-time shape facts (analysis.h).
#include "analysis.h"

#include <fmt/format.h>
#include <fusebox/backend/kernel.h>
#include <fusebox/checked_math.h>

namespace fusebox::pointwise {

int64_t product(const std::vector<int64_t>& v) {
  return checked::orThrow(checked::product(v), "pointwise: the number of elements");
}

bool scalarGoesToDouble(DataType t) {
  return isFloatingType(t);
}

Decision checkCompileTime(const Fusion& segment) {
  bool has_tensor_output = false;
  for (const Val* out : segment.outputs()) has_tensor_output |= out->isTensor();
  if (!has_tensor_output) return Decision::reject("the segment has no tensor output");
  for (const Expr* e : segment.exprs()) {
    switch (e->op()) {
      case OpType::Reduction:
      case OpType::Var:
      case OpType::VarMean:
      case OpType::Welford:
        return Decision::reject(fmt::format(
            "{} (expr {}) is a reduction; pointwise kernels only map elements one to one",
            e->opName(), e->name()));
      case OpType::Matmul:
      case OpType::Linear:
        return Decision::reject(
            fmt::format("{} (expr {}) is a matmul; pointwise does not schedule matmuls",
                        e->opName(), e->name()));
      default:
        break;
    }
    for (const Val* v : e->outputs())
      if (v->isTensor() && v->as<TensorView>()->hasReduction())
        return Decision::reject(fmt::format("{} has a reduction axis", v->toString()));
  }
  for (const Val* out : segment.outputs())
    if (segment.aliasedInput(out) != nullptr)
      return Decision::reject(fmt::format(
          "output {} aliases an input (written in place); pointwise allocates fresh outputs",
          out->toString()));
  SlotCounts slots;
  for (const Val* in : segment.inputs()) {
    if (in->isTensor())
      ++slots.pointers;
    else if (scalarGoesToDouble(in->dtype()))
      ++slots.doubles;
    else
      ++slots.ints;
  }
  for (const Val* out : segment.outputs()) slots.pointers += out->isTensor() ? 1 : 0;
  if (slots.pointers > KernelParams::kMaxPointers || slots.ints > KernelParams::kMaxInts ||
      slots.doubles > KernelParams::kMaxDoubles)
    return Decision::reject(fmt::format(
        "the kernel would need {} pointers, {} integer and {} double scalars; KernelParams holds "
        "{}, {} and {}",
        slots.pointers, slots.ints, slots.doubles, KernelParams::kMaxPointers,
        KernelParams::kMaxInts, KernelParams::kMaxDoubles));
  for (const Val* out : segment.outputs())
    if (!out->isTensor())
      return Decision::reject(fmt::format(
          "output {} is a scalar; pointwise kernels only produce tensors", out->toString()));
  return Decision::accept();
}

int64_t evaluateShapeScalar(RuntimeInfo& info, const Val* v, const char* what) {
  auto value = info.evaluator().evaluate(v);
  FUSEBOX_USER_CHECK(value.has_value(), "pointwise: the {} {} is not known at run time", what,
                     v->toString());
  return toInt(*value);
}

SegmentFacts computeFacts(const Fusion& segment, RuntimeInfo& info) {
  SegmentFacts facts;
  const auto& args = info.inputs();
  FUSEBOX_CHECK(args.size() == segment.inputs().size(), "runtime info has {} inputs, segment {}",
                args.size(), segment.inputs().size());
  for (size_t k = 0; k < args.size(); ++k) {
    const Val* in = segment.inputs()[k];
    if (!in->isTensor()) continue;
    const auto* arg = std::get_if<TensorArgInfo>(&args[k]);
    FUSEBOX_USER_CHECK(arg != nullptr, "pointwise: input {} ({}) must be a tensor", k,
                       in->toString());
    const auto* tv = in->as<TensorView>();
    FUSEBOX_USER_CHECK(static_cast<int64_t>(arg->sizes.size()) == tv->nDims(),
                       "pointwise: input {} ({}) has rank {}, expected {}", k, in->toString(),
                       arg->sizes.size(), tv->nDims());
    facts.inputs[tv] = *arg;
  }
  for (const Val* in : segment.inputs())
    if (in->isTensor()) facts.sizes[in->as<TensorView>()] = info.sizes(in->as<TensorView>());
  for (const Expr* e : segment.exprs())
    for (const Val* out : e->outputs())
      if (out->isTensor()) facts.sizes[out->as<TensorView>()] = info.sizes(out->as<TensorView>());
  int64_t best = -1;
  for (size_t k = 0; k < segment.outputs().size(); ++k) {
    const auto* tv = segment.outputs()[k]->as<TensorView>();
    const int64_t n = product(facts.sizes.at(tv));
    if (n > best) {
      best = n;
      facts.reference_output = static_cast<int>(k);
    }
  }
  const auto* ref =
      segment.outputs()[static_cast<size_t>(facts.reference_output)]->as<TensorView>();
  facts.iter_sizes = facts.sizes.at(ref);
  facts.numel = best;
  for (const Val* out : segment.outputs()) {
    const auto* tv = out->as<TensorView>();
    const auto& sizes = facts.sizes.at(tv);
    std::vector<int64_t> order;
    if (const auto* required = segment.requiredStrideOrder(tv))
      order = *required;
    else if (tv->hasAllocation())
      order = tv->strideOrder();
    facts.output_strides.push_back(order.empty() ? contiguousStrides(sizes)
                                                 : stridesForOrder(sizes, order));
  }
  return facts;
}

}  // namespace fusebox::pointwise
