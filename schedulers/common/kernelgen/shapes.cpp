// Run-time tensor sizes (shapes.h).
#include "kernelgen/shapes.h"

#include <fmt/format.h>
#include <fusebox/error.h>

namespace fusebox::kernelgen {

std::vector<const TensorArgInfo*> tensorInputArgs(const Fusion& segment, RuntimeInfo& info) {
  const auto& args = info.inputs();
  FUSEBOX_CHECK(args.size() == segment.inputs().size(), "runtime info has {} inputs, segment {}",
                args.size(), segment.inputs().size());
  std::vector<const TensorArgInfo*> out(args.size(), nullptr);
  for (size_t k = 0; k < args.size(); ++k) {
    const Val* in = segment.inputs()[k];
    if (!in->isTensor()) continue;
    out[k] = std::get_if<TensorArgInfo>(&args[k]);
    FUSEBOX_USER_CHECK(out[k] != nullptr, "input {} ({}) must be a tensor", k, in->toString());
    FUSEBOX_USER_CHECK(static_cast<int64_t>(out[k]->sizes.size()) == in->as<TensorView>()->nDims(),
                       "input {} ({}) has rank {}, expected {}", k, in->toString(),
                       out[k]->sizes.size(), in->as<TensorView>()->nDims());
  }
  return out;
}

std::string inputLayoutProblem(const Fusion& segment, RuntimeInfo& info) {
  const auto& args = info.inputs();
  for (size_t k = 0; k < args.size() && k < segment.inputs().size(); ++k)
    if (const auto* arg = std::get_if<TensorArgInfo>(&args[k]))
      for (int64_t s : arg->strides)
        if (s < 0)
          return fmt::format("input {} has a negative stride ({})", segment.inputs()[k]->toString(),
                             s);
  return "";
}

TensorSizes tensorSizes(const Fusion& segment, RuntimeInfo& info) {
  TensorSizes sizes;
  for (const Val* in : segment.inputs())
    if (in->isTensor()) sizes[in->as<TensorView>()] = info.sizes(in->as<TensorView>());
  for (const Expr* e : segment.exprs())
    for (const Val* out : e->outputs())
      if (out->isTensor()) sizes[out->as<TensorView>()] = info.sizes(out->as<TensorView>());
  return sizes;
}

std::vector<int64_t> outputStrides(const Fusion& segment, const TensorView* tv,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> order;
  if (const auto* required = segment.requiredStrideOrder(tv))
    order = *required;
  else if (tv->hasAllocation())
    order = tv->strideOrder();
  return order.empty() ? contiguousStrides(sizes) : stridesForOrder(sizes, order);
}

int64_t evaluateShapeScalar(RuntimeInfo& info, const Val* v, const char* what) {
  auto value = info.evaluator().evaluate(v);
  FUSEBOX_USER_CHECK(value.has_value(), "the {} {} is not known at run time", what, v->toString());
  return toInt(*value);
}

}  // namespace fusebox::kernelgen
