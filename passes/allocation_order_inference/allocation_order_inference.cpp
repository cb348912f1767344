// allocation_order_inference: gives fusion outputs the memory order of the
// input they come from, as a hint (TensorView::setAllocation). A channels-last
// input then yields channels-last outputs instead of forcing a transpose.
//
// It is only a hint (nvFuser issue 2425): an output with a required stride
// order (Fusion::requiredStrideOrder, the user's contract) or an allocation
// domain already set is never touched, and a scheduler may override the hint.
// Dims are traced from the reference input through elementwise ops, broadcast,
// squeeze, permute, expand, reductions and resize ops. Reshape, creation ops,
// matmul and linear start fresh dims: their outputs stay unpermuted, since a
// permuted linear output is not what either operand's layout suggests.
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

#include <algorithm>
#include <map>
#include <set>

namespace {

using namespace fusebox;

// For each dim of a tensor's shape: the reference input dim it comes from, or -1.
using DimSources = std::vector<int64_t>;

class DimTracer {
 public:
  DimTracer(const Fusion& fusion, const TensorView* reference) {
    DimSources own;
    for (int64_t d = 0; d < reference->nDims(); ++d) own.push_back(d);
    sources_[reference] = own;
    for (Expr* e : fusion.tensorExprs()) trace(e);
  }

  // Unknown tensors (not reached from the reference) have no sources.
  DimSources of(const TensorView* tv) const {
    auto it = sources_.find(tv);
    return it != sources_.end() ? it->second : DimSources(tv->nDims(), -1);
  }

 private:
  void set(const Val* out, DimSources s) {
    if (out->isTensor()) sources_[out->as<TensorView>()] = std::move(s);
  }

  // Elementwise operands have the output's rank: take each dim from an operand
  // that traces it, preferring a non-broadcast dim.
  DimSources elementwise(const Expr* e, int64_t rank) const {
    DimSources out(rank, -1);
    for (int64_t d = 0; d < rank; ++d) {
      bool from_broadcast = true;
      for (Val* v : e->inputs()) {
        if (!v->isTensor() || v->as<TensorView>()->nDims() != rank) continue;
        auto* tv = v->as<TensorView>();
        int64_t s = of(tv)[d];
        if (s < 0) continue;
        bool is_broadcast = tv->axis(d)->isBroadcast();
        if (out[d] < 0 || (from_broadcast && !is_broadcast)) {
          out[d] = s;
          from_broadcast = is_broadcast;
        }
      }
    }
    return out;
  }

  void trace(const Expr* e) {
    auto* out = e->output(0)->isTensor() ? e->output(0)->as<TensorView>() : nullptr;
    if (out == nullptr) return;
    const auto* in =
        !e->inputs().empty() && e->input(0)->isTensor() ? e->input(0)->as<TensorView>() : nullptr;
    switch (e->op()) {
      case OpType::Set:
      case OpType::SegmentSet:
      case OpType::Unary:
      case OpType::Binary:
      case OpType::Ternary:
      case OpType::Cast:
      case OpType::Expand:
      case OpType::Slice:
      case OpType::Pad:
      case OpType::Cat:
        set(out, elementwise(e, out->nDims()));
        return;
      case OpType::Broadcast: {
        DimSources src = of(in), s;
        size_t k = 0;
        for (bool is_new : e->attr<BroadcastAttr>().is_broadcast_dim)
          s.push_back(is_new ? -1 : src[k++]);
        set(out, s);
        return;
      }
      case OpType::Squeeze: {
        DimSources src = of(in), s;
        const auto& drop = e->attr<SqueezeAttr>().dims;
        for (int64_t d = 0; d < static_cast<int64_t>(src.size()); ++d)
          if (std::find(drop.begin(), drop.end(), d) == drop.end()) s.push_back(src[d]);
        set(out, s);
        return;
      }
      case OpType::Permute: {
        DimSources src = of(in), s;
        for (int64_t d : e->attr<PermuteAttr>().dims) s.push_back(src[d]);
        set(out, s);
        return;
      }
      case OpType::Reduction:
      case OpType::Var:
      case OpType::VarMean:
      case OpType::Welford: {
        const auto& axes = e->op() == OpType::Reduction ? e->attr<ReductionAttr>().axes
                                                        : e->attr<VarianceAttr>().axes;
        DimSources src = of(in), s;
        for (int64_t d = 0; d < static_cast<int64_t>(src.size()); ++d)
          if (std::find(axes.begin(), axes.end(), d) == axes.end()) s.push_back(src[d]);
        for (Val* o : e->outputs()) set(o, s);
        return;
      }
      default:
        return;  // reshape, full, iota, rand, matmul, linear: fresh dims
    }
  }

  std::map<const TensorView*, DimSources> sources_;
};

// The fusion inputs `tv` depends on, through operands.
std::set<const Val*> inputsOf(const TensorView* tv) {
  std::set<const Val*> found, seen;
  std::vector<const Val*> stack = {tv};
  while (!stack.empty()) {
    const Val* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->isFusionInput()) found.insert(v);
    if (Expr* def = v->definition())
      for (Val* in : def->inputs()) stack.push_back(in);
  }
  return found;
}

class AllocationOrderInferencePass final : public Pass {
 public:
  std::string name() const override { return "allocation_order_inference"; }
  // It infers from the final graph: after the passes that rewrite it.
  std::vector<std::string> runsAfter() const override {
    return {"remove_empty", "remove_bcast_squeeze", "consecutive_cast"};
  }

  bool run(Fusion& fusion) override {
    bool changed = false;
    std::map<const TensorView*, DimTracer> tracers;
    for (Val* o : fusion.outputs()) {
      if (!o->isTensor()) continue;
      auto* out = o->as<TensorView>();
      // A requirement, an existing allocation or an in-place output is not ours to change.
      if (fusion.requiredStrideOrder(out) || out->hasAllocation() || out->isFusionInput() ||
          fusion.aliasedInput(out) || out->nDims() < 2)
        continue;
      const TensorView* reference = chooseReference(out);
      if (reference == nullptr) continue;
      auto tracer = tracers.find(reference);
      if (tracer == tracers.end())
        tracer = tracers.emplace(reference, DimTracer(fusion, reference)).first;
      if (applyOrder(out, reference, tracer->second.of(out))) changed = true;
    }
    return changed;
  }

 private:
  // The permuted input with the highest rank among those `out` reads.
  static const TensorView* chooseReference(const TensorView* out) {
    const TensorView* best = nullptr;
    for (const Val* v : inputsOf(out)) {
      if (!v->isTensor()) continue;
      const auto* tv = v->as<TensorView>();
      if (!tv->hasAllocation()) continue;
      if (best == nullptr || tv->nDims() > best->nDims() ||
          (tv->nDims() == best->nDims() && tv->name() < best->name()))
        best = tv;
    }
    return best;
  }

  // Traced dims follow the reference's memory order, innermost last; untraced
  // dims go outermost in their logical order.
  static bool applyOrder(TensorView* out, const TensorView* reference, const DimSources& sources) {
    if (std::all_of(sources.begin(), sources.end(), [](int64_t s) { return s < 0; })) return false;
    auto ref_logical = reference->logicalNoReductions();
    auto ref_alloc = reference->allocation();
    auto rank_in_memory = [&](int64_t ref_dim) {
      return std::find(ref_alloc.begin(), ref_alloc.end(), ref_logical[ref_dim]) -
             ref_alloc.begin();
    };
    std::vector<int64_t> order;  // out's logical dims, outermost first
    for (int64_t d = 0; d < static_cast<int64_t>(sources.size()); ++d)
      if (sources[d] < 0) order.push_back(d);
    std::vector<int64_t> traced;
    for (int64_t d = 0; d < static_cast<int64_t>(sources.size()); ++d)
      if (sources[d] >= 0) traced.push_back(d);
    std::stable_sort(traced.begin(), traced.end(), [&](int64_t a, int64_t b) {
      return rank_in_memory(sources[a]) < rank_in_memory(sources[b]);
    });
    order.insert(order.end(), traced.begin(), traced.end());
    bool identity = true;
    for (int64_t k = 0; k < static_cast<int64_t>(order.size()); ++k) identity &= order[k] == k;
    if (identity) return false;
    auto logical = out->logicalNoReductions();
    std::vector<IterDomain*> alloc;
    for (int64_t d : order) alloc.push_back(logical[d]);
    out->setAllocation(std::move(alloc));
    return true;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(AllocationOrderInferencePass, "allocation_order_inference", "1.0",
                            "Propagates input memory order to outputs as an allocation hint")
