// Compile-time acceptance and run-time shape facts (analysis.h).
#include "analysis.h"

#include <fmt/format.h>
#include <fusebox/backend/kernel.h>
#include <fusebox/checked_math.h>

#include <algorithm>

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

namespace {

int64_t normalizeSliceIndex(int64_t index, int64_t extent) {
  if (index < 0) index += extent;
  return std::clamp<int64_t>(index, 0, extent);
}

std::vector<int64_t> inferSizes(const Expr* e, const SegmentFacts& facts, RuntimeInfo& info) {
  const auto* out = e->output(0)->as<TensorView>();
  const size_t rank = static_cast<size_t>(out->nDims());
  auto sizesOf = [&](const Val* v) -> const std::vector<int64_t>& {
    return facts.sizes.at(v->as<TensorView>());
  };
  switch (e->op()) {
    case OpType::Set:
    case OpType::SegmentSet:
    case OpType::Cast:
    case OpType::Unary:
    case OpType::Binary:
    case OpType::Ternary: {
      std::vector<int64_t> s(rank, 1);
      for (const Val* in : e->inputs()) {
        if (!in->isTensor()) continue;
        const auto& is = sizesOf(in);
        FUSEBOX_CHECK(is.size() <= rank, "operand rank above output rank");
        for (size_t k = 0; k < is.size(); ++k) {
          const size_t od = rank - is.size() + k;
          if (is[k] == 1) continue;
          FUSEBOX_USER_CHECK(s[od] == 1 || s[od] == is[k],
                             "pointwise: {} dim {} has size {}, expected {}", in->toString(), k,
                             is[k], s[od]);
          s[od] = is[k];
        }
      }
      return s;
    }
    case OpType::Broadcast: {
      const auto& flags = e->attr<BroadcastAttr>().is_broadcast_dim;
      const auto& is = sizesOf(e->input(0));
      std::vector<int64_t> s;
      size_t k = 0;
      for (bool b : flags) s.push_back(b ? 1 : is.at(k++));
      return s;
    }
    case OpType::Squeeze: {
      const auto& dims = e->attr<SqueezeAttr>().dims;
      const auto& is = sizesOf(e->input(0));
      std::vector<int64_t> s;
      for (size_t k = 0; k < is.size(); ++k)
        if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end())
          s.push_back(is[k]);
      return s;
    }
    case OpType::Expand: {
      const auto& is = sizesOf(e->input(0));
      std::vector<int64_t> s;
      for (size_t k = 0; k < rank; ++k) {
        const int64_t v = evaluateShapeScalar(info, e->input(1 + k), "expand size");
        s.push_back(v == -1 ? is.at(k) : v);
      }
      return s;
    }
    case OpType::Reshape: {
      const int64_t total = product(sizesOf(e->input(0)));
      std::vector<int64_t> s, given;
      int64_t infer_at = -1;
      for (size_t k = 0; k < rank; ++k) {
        const int64_t v = evaluateShapeScalar(info, e->input(1 + k), "reshape size");
        if (v == -1)
          infer_at = static_cast<int64_t>(k);
        else
          given.push_back(v);
        s.push_back(v);
      }
      const int64_t known = product(given);
      if (infer_at >= 0) s[static_cast<size_t>(infer_at)] = known == 0 ? 0 : total / known;
      FUSEBOX_USER_CHECK(product(s) == total, "pointwise: reshape of {} elements to {} elements",
                         total, product(s));
      return s;
    }
    case OpType::Permute: {
      const auto& dims = e->attr<PermuteAttr>().dims;
      const auto& is = sizesOf(e->input(0));
      std::vector<int64_t> s;
      for (int64_t d : dims) s.push_back(is.at(static_cast<size_t>(d)));
      return s;
    }
    case OpType::Slice: {
      const auto& is = sizesOf(e->input(0));
      std::vector<int64_t> s;
      const size_t r = is.size();
      for (size_t d = 0; d < r; ++d) {
        const int64_t start =
            normalizeSliceIndex(evaluateShapeScalar(info, e->input(1 + d), "slice start"), is[d]);
        const int64_t stop = normalizeSliceIndex(
            evaluateShapeScalar(info, e->input(1 + r + d), "slice stop"), is[d]);
        const int64_t step = evaluateShapeScalar(info, e->input(1 + 2 * r + d), "slice step");
        FUSEBOX_USER_CHECK(step > 0, "slice step for dim {} must be positive, got {}", d, step);
        // ceil((stop - start) / step), without overflow for a step near 2^63.
        s.push_back(stop > start ? 1 + (stop - start - 1) / step : 0);
      }
      return s;
    }
    case OpType::Pad: {
      std::vector<int64_t> s = sizesOf(e->input(0));
      const size_t npairs = (e->inputs().size() - 2) / 2;
      for (size_t k = 0; k < npairs; ++k) {
        const size_t d = s.size() - 1 - k;
        const int64_t left = evaluateShapeScalar(info, e->input(2 + 2 * k), "pad width");
        const int64_t right = evaluateShapeScalar(info, e->input(3 + 2 * k), "pad width");
        const auto padded = checked::add(checked::add(s[d], left), right);
        FUSEBOX_USER_CHECK(padded.has_value(),
                           "padding dim {} of size {} by ({}, {}) gives a size that overflows "
                           "int64",
                           d, s[d], left, right);
        s[d] = *padded;
        FUSEBOX_USER_CHECK(s[d] >= 0, "padding dim {} gives negative size {}", d, s[d]);
      }
      return s;
    }
    case OpType::Cat: {
      const int64_t dim = e->attr<CatAttr>().dim;
      std::vector<int64_t> s = sizesOf(e->input(0));
      s[static_cast<size_t>(dim)] = 0;
      for (const Val* in : e->inputs())
        s[static_cast<size_t>(dim)] =
            checked::orThrow(checked::add(s[static_cast<size_t>(dim)], sizesOf(in).at(dim)),
                             "pointwise: the concatenated size");
      return s;
    }
    case OpType::Full: {
      std::vector<int64_t> s;
      for (size_t k = 0; k < rank; ++k)
        s.push_back(evaluateShapeScalar(info, e->input(1 + k), "full size"));
      return s;
    }
    case OpType::Iota:
      return {evaluateShapeScalar(info, e->input(0), "iota length")};
    case OpType::Rand: {
      std::vector<int64_t> s;
      for (size_t k = 0; k < rank; ++k)
        s.push_back(evaluateShapeScalar(info, e->input(k), "random tensor size"));
      return s;
    }
    default:
      break;
  }
  throw InternalError(fmt::format("pointwise: no shape rule for {}", e->opName()));
}

}  // namespace

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
    facts.sizes[tv] = arg->sizes;
    facts.inputs[tv] = *arg;
  }
  for (const Expr* e : segment.exprs()) {
    if (!e->isTensorOp()) continue;
    facts.sizes[e->output(0)->as<TensorView>()] = inferSizes(e, facts, info);
  }
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
