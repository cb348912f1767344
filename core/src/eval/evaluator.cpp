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
  const std::string expr =
      fmt::format("{} = {}({})", fmt::join(outs, ", "), e->opName(), fmt::join(ins, ", "));
  return e->origin().known() ? fmt::format("{}: {}", e->origin().str(), expr) : expr;
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
  const DataType dtype = error_bounds_ ? DataType::Double : out->dtype();
  auto order = outputStrideOrder(fusion_, out);
  if (order.empty()) return Tensor::empty(dtype, sizes);
  return Tensor::emptyWithStrideOrder(dtype, sizes, order);
}

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
    case OpType::IndexSelect:
    case OpType::Select:
    case OpType::Gather:
    case OpType::TakeAlongAxis:
    case OpType::Scatter:
      evalIndexing(ctx, e);
      return;
    case OpType::Scan:
      evalScan(ctx, e);
      return;
    case OpType::Argsort:
    case OpType::TopK:
      evalSort(ctx, e);
      return;
  }
  throw InternalError(fmt::format("no evaluator for {}", describeExpr(e)));
}

std::unordered_map<const Val*, size_t> lastUses(const std::vector<const Expr*>& exprs) {
  std::unordered_map<const Val*, size_t> last_use;
  for (size_t k = 0; k < exprs.size(); ++k)
    for (const Val* in : exprs[k]->inputs())
      if (in->isTensor()) last_use[in] = k;
  return last_use;
}

namespace {

// A fresh copy in the layout the output asks for.
Tensor freshCopy(const Fusion& fusion, const TensorView* tv, const Tensor& t) {
  auto order = outputStrideOrder(fusion, tv);
  Tensor out = order.empty() ? Tensor::empty(t.dtype(), t.sizes())
                             : Tensor::emptyWithStrideOrder(t.dtype(), t.sizes(), order);
  copyInto(t, out);
  return out;
}

}  // namespace
}  // namespace eval_detail

using namespace eval_detail;

std::vector<Argument> cloneArguments(const std::vector<Argument>& arguments) {
  std::vector<Argument> out;
  out.reserve(arguments.size());
  for (const Argument& a : arguments) {
    const auto* t = std::get_if<Tensor>(&a);
    out.push_back(t != nullptr && t->defined() ? Argument(t->clone()) : a);
  }
  return out;
}

bool hasAliasedOutputs(const Fusion& fusion) {
  for (const Val* out : fusion.outputs())
    if (fusion.aliasedInput(out) != nullptr) return true;
  return false;
}

std::vector<Argument> evaluateFusion(const Fusion& fusion, const std::vector<Argument>& inputs,
                                     const EvaluatorOptions& options) {
  ExpressionEvaluator ee;
  bindInputs(fusion, inputs, options, ee);
  checkShapeConstraints(fusion, ee);
  EvalContext ctx(fusion, ee);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (fusion.inputs()[i]->isTensor())
      ctx.setTensor(fusion.inputs()[i], std::get<Tensor>(inputs[i]));

  std::vector<const Expr*> tensor_exprs;
  for (const Expr* e : fusion.exprs())
    if (e->isTensorOp()) tensor_exprs.push_back(e);  // scalars are evaluated on demand
  std::unordered_map<const Val*, size_t> last_use = lastUses(tensor_exprs);

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

  // Every output is gathered first (inputs passed through and outputs listed
  // twice as fresh copies, so each returned tensor is one the caller owns
  // alone); aliased outputs are written into their inputs only after that,
  // so no output sees an input already overwritten.
  std::vector<Argument> outputs;
  std::set<const Val*> returned;
  const auto& fusion_inputs = fusion.inputs();
  for (const Val* out : fusion.outputs()) {
    if (out->isScalar()) {
      outputs.emplace_back(ee.evaluateOrThrow(out));
      continue;
    }
    Tensor value = ctx.tensor(out);
    if (out->isFusionInput() || returned.count(out))
      value = freshCopy(fusion, out->as<TensorView>(), value);
    returned.insert(out);
    outputs.emplace_back(std::move(value));
  }
  // Checked before anything is written (bindInputs refused overlapping
  // targets): a failed call leaves its inputs as they were.
  std::vector<std::pair<size_t, size_t>> writes;  // (output, input)
  for (size_t k = 0; k < fusion.outputs().size(); ++k) {
    const Val* out = fusion.outputs()[k];
    const Val* in = fusion.aliasedInput(out);
    if (in == nullptr) continue;
    auto pos = std::find(fusion_inputs.begin(), fusion_inputs.end(), in);
    FUSEBOX_CHECK(pos != fusion_inputs.end(), "output {} aliases {}, not a fusion input",
                  out->toString(), in->toString());
    const size_t i = static_cast<size_t>(pos - fusion_inputs.begin());
    const Tensor& value = std::get<Tensor>(outputs[k]);
    const Tensor& target = std::get<Tensor>(inputs[i]);
    FUSEBOX_USER_CHECK(value.sizes() == target.sizes(),
                       "output #{} ({}) aliases input {}, but it has shape [{}] and the input [{}]",
                       k, out->toString(), inputName(fusion, options, i), joinInts(value.sizes()),
                       joinInts(target.sizes()));
    writes.emplace_back(k, i);
  }
  for (const auto& [k, i] : writes) {
    Tensor target = std::get<Tensor>(inputs[i]);
    copyInto(std::get<Tensor>(outputs[k]), target);
    outputs[k] = target;
  }
  return outputs;
}

}  // namespace fusebox
