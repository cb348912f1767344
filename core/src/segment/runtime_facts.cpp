// FusionRuntimeFacts: the complete fusion's run-time facts, from which every
// candidate segment's RuntimeInfo comes, and the boundary views between
// segments (segmenter.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include <fusebox/checked_math.h>
#include <fusebox/ir/shape_scalars.h>
#include <fusebox/runtime.h>
#include <fusebox/segmenter.h>

#include "scheduler/argument_binding.h"

namespace fusebox {

namespace {

// Strides with 0 on the expanded broadcast dims of `tv`; true when any changed.
// `sizes`: the value's, for the message (every segment boundary of every call
// passes here, so nothing is formatted unless it fails).
bool zeroExpandedStrides(const TensorView* tv, std::vector<int64_t>& strides,
                         const std::vector<int64_t>& sizes) {
  const auto dims = tv->logicalNoReductions();
  FUSEBOX_CHECK(dims.size() == strides.size(), "{} has {} dims, its value sizes [{}]",
                tv->toString(), dims.size(), fmt::join(sizes, ", "));
  bool changed = false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d]->hasExpandedExtent() && strides[d] != 0) {
      strides[d] = 0;
      changed = true;
    }
  return changed;
}

}  // namespace

Tensor boundaryView(const TensorView* tv, const Tensor& value) {
  // The common case, no expanded dim, without copies (every call's every
  // segment output passes here).
  bool expanded = false;
  int64_t rank = 0;
  for (const IterDomain* id : tv->logical()) {
    if (id->isReduction()) continue;
    expanded = expanded || id->hasExpandedExtent();
    ++rank;
  }
  if (!expanded && rank == value.dim()) return value;
  std::vector<int64_t> strides = value.strides();
  if (!zeroExpandedStrides(tv, strides, value.sizes())) return value;
  return value.asStrided(value.sizes(), strides, value.storageOffset());
}

TensorArgInfo boundaryInfo(const TensorView* tv, TensorArgInfo info) {
  zeroExpandedStrides(tv, info.strides, info.sizes);
  return info;
}

// ---- FusionRuntimeFacts ---------------------------------------------------------------------

FusionRuntimeFacts::FusionRuntimeFacts(const Fusion& complete, std::vector<ArgumentInfo> inputs,
                                       DeviceProperties device, ShapeMode shape_mode)
    : complete_(&complete),
      inputs_(std::move(inputs)),
      device_(std::move(device)),
      shape_mode_(shape_mode) {
  bindArgumentInfos(complete, inputs_, evaluator_, "fusion");
}

ScalarValue FusionRuntimeFacts::scalarValue(const Val* complete_scalar) {
  auto value = evaluator_.evaluate(complete_scalar);
  FUSEBOX_CHECK(value.has_value(),
                "the value of {} cannot be computed from the fusion's inputs (its extents and "
                "scalar inputs)",
                complete_scalar->as<Scalar>()->inlineString());
  return *value;
}

ArgumentInfo FusionRuntimeFacts::argumentInfo(const Val* v) {
  const auto& fusion_inputs = complete_->inputs();
  auto pos = std::find(fusion_inputs.begin(), fusion_inputs.end(), v);
  if (pos != fusion_inputs.end()) return inputs_[pos - fusion_inputs.begin()];
  if (!v->isTensor()) return scalarValue(v);
  // An intermediate: a fresh dense allocation in its allocation order. An
  // expanded broadcast repeats one value, so it takes no memory (stride 0).
  const auto* tv = v->as<TensorView>();
  TensorArgInfo info;
  info.dtype = tv->dtype();
  std::vector<int64_t> storage_sizes;
  for (const IterDomain* id : tv->logicalNoReductions()) {
    const bool plain_broadcast = id->isBroadcast() && !id->hasExpandedExtent();
    info.sizes.push_back(plain_broadcast ? 1 : toInt(scalarValue(id->logicalExtent())));
    storage_sizes.push_back(id->isBroadcast() ? 1 : info.sizes.back());
  }
  // Each extent was checked as it was computed; their product may still overflow.
  std::vector<int64_t> strided_sizes;
  for (int64_t s : storage_sizes) strided_sizes.push_back(std::max<int64_t>(s, 1));
  if (!checked::product(info.sizes) || !checked::product(strided_sizes)) {
    const Expr* def = tv->definition();
    throw UserError(fmt::format(
        "{}: its output {} of sizes [{}] is too large: its number of "
        "elements or its strides overflow int64",
        def ? describeShapeOp(def) : tv->toString(), tv->toString(), fmt::join(info.sizes, ", ")));
  }
  std::vector<int64_t> order;
  if (const auto* required = complete_->requiredStrideOrder(tv))
    order = *required;
  else if (tv->hasAllocation())
    order = tv->strideOrder();
  info.strides =
      order.empty() ? contiguousStrides(storage_sizes) : stridesForOrder(storage_sizes, order);
  auto dims = tv->logicalNoReductions();
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d]->hasExpandedExtent()) info.strides[d] = 0;
  // As the runtime records a fresh allocation's: so that the proposals made
  // while segmenting are made for the inputs the segments will see.
  info.alignment = kMaxRecordedAlignment;
  return info;
}

RuntimeInfo FusionRuntimeFacts::forSegment(const Fusion& segment,
                                           const std::vector<Val*>& complete_inputs) {
  std::vector<ArgumentInfo> infos;
  infos.reserve(complete_inputs.size());
  for (const Val* v : complete_inputs) infos.push_back(argumentInfo(v));
  return RuntimeInfo(segment, std::move(infos), device_, shape_mode_);
}

}  // namespace fusebox
