// Compile-time acceptance and run-time shape facts (analysis.h).
#include "pointwise/analysis.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/pass_utils.h>

#include <algorithm>
#include <unordered_set>

#include "kernelgen/kernel_params.h"
#include "kernelgen/op_support.h"

namespace fusebox::pointwise {

int64_t product(const std::vector<int64_t>& v) {
  return checked::orThrow(checked::product(v), "pointwise: the number of elements");
}

bool isTrivialReduction(const Expr* e) {
  if (e->op() != OpType::Reduction) return false;
  const auto* in = e->input(0)->as<TensorView>();
  for (int64_t a : e->attr<ReductionAttr>().axes) {
    const std::optional<int64_t> extent = constantInt(in->axis(a)->logicalExtent());
    if (!extent || *extent != 1) return false;
  }
  return true;
}

Decision checkCompileTime(const Fusion& segment) {
  bool has_tensor_output = false;
  for (const Val* out : segment.outputs()) has_tensor_output |= out->isTensor();
  if (!has_tensor_output) return Decision::reject("the segment has no tensor output");
  if (std::string problem =
          kernelgen::unsupportedOpProblem(segment, kernelgen::IndirectLoads::Supported);
      !problem.empty())
    return Decision::reject(problem);
  for (const Expr* e : segment.exprs()) {
    if (isTrivialReduction(e)) continue;
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
  if (std::string problem = kernelgen::kernelSizeProblem(segment); !problem.empty())
    return Decision::reject(problem);
  if (std::string problem = kernelgen::paramLimitProblem(segment); !problem.empty())
    return Decision::reject(problem);
  for (const Val* out : segment.outputs())
    if (!out->isTensor())
      return Decision::reject(fmt::format(
          "output {} is a scalar; pointwise kernels only produce tensors", out->toString()));
  return Decision::accept();
}

SegmentFacts computeFacts(const Fusion& segment, RuntimeInfo& info) {
  SegmentFacts facts;
  const std::vector<const TensorArgInfo*> args = kernelgen::tensorInputArgs(segment, info);
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k] != nullptr) facts.inputs[segment.inputs()[k]->as<TensorView>()] = *args[k];
  facts.sizes = kernelgen::tensorSizes(segment, info);
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
    facts.output_strides.push_back(kernelgen::outputStrides(segment, tv, facts.sizes.at(tv)));
  }
  return facts;
}

namespace {

// Whether every expression that reads `in`, or anything computed from it,
// maps elements one to one (ops_types.h: isElementwise).
bool readElementwiseOnly(const Fusion& segment, const Val* in) {
  std::unordered_set<const Val*> reached{in};
  for (const Expr* e : segment.exprs()) {
    const bool reads = std::any_of(e->inputs().begin(), e->inputs().end(),
                                   [&](const Val* v) { return reached.count(v) != 0; });
    if (!reads) continue;
    if (!isElementwise(e->op())) return false;
    reached.insert(e->outputs().begin(), e->outputs().end());
  }
  return true;
}

}  // namespace

std::vector<InPlaceRequest> inPlaceWrites(const Fusion& segment, RuntimeInfo& info,
                                          const SegmentFacts& facts) {
  std::vector<InPlaceRequest> honoured;
  for (const InPlaceRequest& r : info.inPlaceRequests()) {
    if (r.input >= segment.inputs().size() || r.output >= segment.outputs().size()) continue;
    const Val* in = segment.inputs()[r.input];
    const Val* out = segment.outputs()[r.output];
    const auto* arg = std::get_if<TensorArgInfo>(&info.inputs()[r.input]);
    if (arg == nullptr || !out->isTensor() || in->dtype() != out->dtype()) continue;
    const std::vector<int64_t>& sizes = facts.sizes.at(out->as<TensorView>());
    const std::vector<int64_t>& strides = facts.output_strides[r.output];
    bool same_layout = arg->sizes == sizes;
    for (size_t d = 0; same_layout && d < sizes.size(); ++d)
      same_layout = sizes[d] == 1 || arg->strides[d] == strides[d];
    if (same_layout && readElementwiseOnly(segment, in)) honoured.push_back(r);
  }
  return honoured;
}

}  // namespace fusebox::pointwise
