// evaluateFusion: binds the inputs, runs every tensor expression in
// topological order on host tensors, and hands back the outputs.
#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "eval/eval_internal.h"

namespace fusebox {
namespace eval_detail {

std::string joinInts(const std::vector<int64_t>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string describeExpr(const Expr* e) {
  std::vector<std::string> outs, ins;
  for (const Val* v : e->outputs()) outs.push_back(v->toString());
  for (const Val* v : e->inputs()) ins.push_back(v->toString());
  return fmt::format("{} = {}({})", fmt::join(outs, ", "), e->opName(), fmt::join(ins, ", "));
}

std::vector<int64_t> outputStrideOrder(const Fusion& fusion, const TensorView* tv) {
  if (const auto* required = fusion.requiredStrideOrder(tv)) return *required;
  if (tv->hasAllocation()) return tv->strideOrder();
  return {};
}

const Tensor& EvalContext::tensor(const Val* v) const {
  auto it = tensors_.find(v);
  FUSEBOX_CHECK(it != tensors_.end(), "tensor {} has not been computed", v->toString());
  return it->second;
}

Number EvalContext::number(const Val* v) {
  return numberFromScalar(ee_.evaluateOrThrow(v), v->dtype());
}

int64_t EvalContext::integer(const Val* v) {
  return number(v).asInt();
}

Tensor EvalContext::allocate(const TensorView* out, const std::vector<int64_t>& sizes) {
  const auto dims = out->logicalNoReductions();
  FUSEBOX_CHECK(dims.size() == sizes.size(), "{} has {} dims but the kernel computed sizes [{}]",
                out->toString(), dims.size(), joinInts(sizes));
  for (size_t d = 0; d < dims.size(); ++d) {
    const IterDomain* id = dims[d];
    if (id->isBroadcast() && !id->hasExpandedExtent()) {
      FUSEBOX_USER_CHECK(sizes[d] == 1,
                         "output {} dim {} has size {}, expected 1 (a broadcast dim)",
                         out->toString(), d, sizes[d]);
      continue;
    }
    std::string expected = ee_.bindExtent(id->logicalExtent(), sizes[d], out->toString());
    FUSEBOX_USER_CHECK(expected.empty(), "output {} dim {} has size {}, expected {}",
                       out->toString(), d, sizes[d], expected);
  }
  auto order = outputStrideOrder(fusion_, out);
  if (order.empty()) return Tensor::empty(out->dtype(), sizes);
  return Tensor::emptyWithStrideOrder(out->dtype(), sizes, order);
}

namespace {

void evalTensorExpr(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Set:
    case OpType::SegmentSet:
    case OpType::Unary:
    case OpType::Binary:
    case OpType::Ternary:
    case OpType::Cast:
      evalElementwise(ctx, e);
      return;
    case OpType::Broadcast:
    case OpType::Squeeze:
    case OpType::Expand:
    case OpType::Reshape:
    case OpType::Permute:
      evalMovement(ctx, e);
      return;
    case OpType::Reduction:
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford:
      evalReduction(ctx, e);
      return;
    case OpType::Slice:
    case OpType::Pad:
    case OpType::Cat:
      evalResize(ctx, e);
      return;
    case OpType::Full:
    case OpType::Iota:
    case OpType::Rand:
      evalCreation(ctx, e);
      return;
    case OpType::Matmul:
    case OpType::Linear:
      evalMatmul(ctx, e);
      return;
  }
  throw InternalError(fmt::format("no evaluator for {}", describeExpr(e)));
}

// A fresh copy in the layout the output asks for.
Tensor freshCopy(const Fusion& fusion, const TensorView* tv, const Tensor& t) {
  auto order = outputStrideOrder(fusion, tv);
  Tensor out = order.empty() ? Tensor::empty(t.dtype(), t.sizes())
                             : Tensor::emptyWithStrideOrder(t.dtype(), t.sizes(), order);
  copyInto(t, out);
  return out;
}

// Writes an aliased output's values into its input, which must be able to hold
// them: same sizes and no two elements sharing memory.
Tensor writeIntoAliasedInput(const Tensor& value, const Tensor& input, const std::string& out_name,
                             const std::string& in_name) {
  FUSEBOX_USER_CHECK(value.sizes() == input.sizes(),
                     "output {} aliases input {}, but it has shape [{}] and the input [{}]",
                     out_name, in_name, joinInts(value.sizes()), joinInts(input.sizes()));
  for (int64_t d = 0; d < input.dim(); ++d)
    FUSEBOX_USER_CHECK(input.strides()[d] != 0 || input.sizes()[d] <= 1,
                       "output {} aliases input {}, which is expanded (stride 0 in dim {}) and "
                       "cannot be written in place ({})",
                       out_name, in_name, d, input.describe());
  Tensor target = input;
  copyInto(value, target);
  return target;
}

}  // namespace
}  // namespace eval_detail

using namespace eval_detail;

std::vector<Argument> evaluateFusion(const Fusion& fusion, const std::vector<Argument>& inputs,
                                     const EvaluatorOptions& options) {
  ExpressionEvaluator ee;
  bindInputs(fusion, inputs, options, ee);
  EvalContext ctx(fusion, ee);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (fusion.inputs()[i]->isTensor())
      ctx.setTensor(fusion.inputs()[i], std::get<Tensor>(inputs[i]));

  std::vector<const Expr*> tensor_exprs;
  for (const Expr* e : fusion.exprs())
    if (e->isTensorOp()) tensor_exprs.push_back(e);  // scalars are evaluated on demand
  // The last expression that reads each intermediate tensor: after it runs, the
  // tensor is dropped, so memory holds only what later expressions still need.
  std::unordered_map<const Val*, size_t> last_use;
  for (size_t k = 0; k < tensor_exprs.size(); ++k)
    for (const Val* in : tensor_exprs[k]->inputs())
      if (in->isTensor()) last_use[in] = k;

  for (size_t k = 0; k < tensor_exprs.size(); ++k) {
    const Expr* e = tensor_exprs[k];
    try {
      evalTensorExpr(ctx, e);
    } catch (const UserError& err) {
      throw UserError(fmt::format("{}: {}", describeExpr(e), err.what()));
    }
    for (const Val* in : e->inputs())
      if (in->isTensor() && last_use[in] == k && !in->isFusionInput() && !in->isFusionOutput())
        ctx.releaseTensor(in);
  }

  std::vector<Argument> outputs;
  std::set<const Val*> returned;
  const auto& fusion_inputs = fusion.inputs();
  for (size_t k = 0; k < fusion.outputs().size(); ++k) {
    const Val* out = fusion.outputs()[k];
    if (out->isScalar()) {
      outputs.emplace_back(ee.evaluateOrThrow(out));
      continue;
    }
    const auto* tv = out->as<TensorView>();
    Tensor value = ctx.tensor(out);
    if (const Val* in = fusion.aliasedInput(out)) {
      auto pos = std::find(fusion_inputs.begin(), fusion_inputs.end(), in);
      FUSEBOX_CHECK(pos != fusion_inputs.end(), "output {} aliases {}, not a fusion input",
                    out->toString(), in->toString());
      size_t i = static_cast<size_t>(pos - fusion_inputs.begin());
      outputs.emplace_back(writeIntoAliasedInput(value, std::get<Tensor>(inputs[i]),
                                                 fmt::format("#{} ({})", k, out->toString()),
                                                 inputName(fusion, options, i)));
      continue;
    }
    // Inputs passed through and outputs listed twice are copied, so each
    // returned tensor is one the caller owns alone.
    if (out->isFusionInput() || returned.count(out)) value = freshCopy(fusion, tv, value);
    returned.insert(out);
    outputs.emplace_back(std::move(value));
  }
  return outputs;
}

}  // namespace fusebox
