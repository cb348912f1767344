// gather_before_pointwise: picks elements before the math, not after.
//
// take_along_axis(P, index, dim) (and gather, whose output has the index's
// shape) of an elementwise expression P reads P at one position per index
// element. The same values come from P's expression applied to its operands
// picked at those positions:
//   - an operand broadcast along `dim` (a per-row value such as a row's max
//     or log-sum-exp) is the same at every position of the dim, so it is
//     kept, its expansion along `dim` cut to the index's extent;
//   - an operand with values along `dim` is a fusion input, picked by its
//     own take_along_axis with the same index;
//   - unary, binary and ternary ops, casts and sets are rebuilt over the
//     picked operands.
// So cross-entropy's log-softmax, of which only the target's entry is read,
// is no longer computed and written whole: the row kernel keeps its per-row
// max and log-sum-exp, and the picked logits meet them in a kernel over the
// rows. A tensor that cannot be rebuilt this way (another op along `dim`, a
// random op, an intermediate with values along `dim`) leaves the gather as
// it was.
#include <fusebox/ir/ops.h>
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

#include <unordered_map>

namespace {

using namespace fusebox;

bool isGatherAlong(const Expr* e) {
  return e != nullptr && (e->op() == OpType::TakeAlongAxis || e->op() == OpType::Gather);
}

// Ops the picker rebuilds over picked operands: elementwise ones, but not a
// segment_set (a hint the user placed).
bool rebuildable(const Expr* def) {
  return def != nullptr && isElementwise(def->op()) && def->op() != OpType::SegmentSet;
}

// Both extents are one value, or constants of one size.
bool sameExtent(const Scalar* a, const Scalar* b) {
  if (a == b) return true;
  const auto ca = constantInt(a), cb = constantInt(b);
  return ca && cb && *ca == *cb;
}

// Rebuilds the gathered values of the tensors feeding one gather.
class Picker {
 public:
  Picker(Fusion& f, const Expr* gather)
      : f_(f),
        op_(gather->op()),
        index_(gather->input(1)->as<TensorView>()),
        dim_(gather->attr<IndexAttr>().dim) {}

  // `v` at the index's positions along dim_, or null when it cannot be built.
  Val* picked(Val* v) {
    if (!v->isTensor()) return v;
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    Val* result = build(v->as<TensorView>());
    memo_[v] = result;
    return result;
  }

  // Some operand was picked by a new gather (else every operand was constant
  // along dim_ and the rebuilt value has no extent of the index's there).
  bool pickedAnInput() const { return picked_input_; }

 private:
  Val* build(TensorView* tv) {
    // Operands of the gathered rank only (dim_ means the same dim in each).
    if (tv->nDims() != index_->nDims()) return nullptr;
    IterDomain* along = tv->axis(dim_);
    Expr* def = tv->definition();
    if (along->isBroadcast()) {
      if (!along->hasExpandedExtent()) return tv;
      return cutExpansion(def);
    }
    if (def == nullptr) {
      if (!tv->isFusionInput()) return nullptr;
      picked_input_ = true;
      return op_ == OpType::Gather ? gather(tv, index_, dim_) : takeAlongAxis(tv, index_, dim_);
    }
    if (!rebuildable(def)) return nullptr;
    std::vector<Val*> ins;
    for (Val* in : def->inputs()) {
      Val* p = picked(in);
      if (p == nullptr) return nullptr;
      ins.push_back(p);
    }
    Val* out = nullptr;
    switch (def->op()) {
      case OpType::Set:
        out = ins[0];
        break;
      case OpType::Cast:
        out = castOp(tv->dtype(), ins[0]);
        break;
      case OpType::Unary:
        out = unaryOp(def->attr<UnaryOpType>(), ins[0]);
        break;
      case OpType::Binary:
        out = binaryOp(def->attr<BinaryOpType>(), ins[0], ins[1]);
        break;
      case OpType::Ternary:
        out = ternaryOp(def->attr<TernaryOpType>(), ins[0], ins[1], ins[2]);
        break;
      default:
        return nullptr;
    }
    // The rebuilt op promotes its operands as the original did; anything
    // else (a scalar where a tensor was) means the rewrite does not apply.
    if (!out->isTensor() || out->dtype() != tv->dtype()) return nullptr;
    return out;
  }

  // A broadcast expanded along dim_: the expansion cut to the index's extent
  // (none where the index is itself a broadcast there).
  Val* cutExpansion(Expr* def) {
    if (def == nullptr || def->op() != OpType::Expand) return nullptr;
    auto* source = def->input(0)->as<TensorView>();
    IterDomain* index_along = index_->axis(dim_);
    std::vector<Val*> shape(def->inputs().begin() + 1, def->inputs().end());
    Scalar* keep = f_.constantInt(-1);
    shape[static_cast<size_t>(dim_)] =
        index_along->isBroadcast() && !index_along->hasExpandedExtent()
            ? keep
            : static_cast<Val*>(index_along->logicalExtent());
    bool expands = false;
    for (Val* s : shape) expands |= !sameExtent(s->as<Scalar>(), keep);
    return expands ? expand(source, shape) : source;
  }

  Fusion& f_;
  OpType op_;
  TensorView* index_;
  int64_t dim_;
  bool picked_input_ = false;
  std::unordered_map<Val*, Val*> memo_;
};

class GatherBeforePointwisePass final : public Pass {
 public:
  std::string name() const override { return "gather_before_pointwise"; }
  std::vector<std::string> runsBefore() const override { return {"allocation_order_inference"}; }

  bool run(Fusion& fusion) override {
    bool changed = false;
    for (Expr* e : fusion.tensorExprs())
      if (isGatherAlong(e) && rewrite(fusion, e)) changed = true;
    // Also what a rewrite that did not apply built on its way.
    fusion.removeDeadExprs();
    return changed;
  }

 private:
  static bool rewrite(Fusion& f, Expr* e) {
    auto* source = e->input(0)->as<TensorView>();
    auto* out = e->output(0)->as<TensorView>();
    if (!rebuildable(source->definition())) return false;
    const int64_t dim = e->attr<IndexAttr>().dim;
    // Off the gathered dim the output has the source's extents, so the
    // operands keep theirs.
    if (out->nDims() != source->nDims()) return false;
    for (int64_t d = 0; d < out->nDims(); ++d)
      if (d != dim && !sameExtent(out->axis(d)->logicalExtent(), source->axis(d)->logicalExtent()))
        return false;
    Picker picker(f, e);
    Val* picked = picker.picked(source);
    if (picked == nullptr || !picker.pickedAnInput()) return false;
    replaceTensor(f, out, picked->as<TensorView>());
    return true;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(GatherBeforePointwisePass, "gather_before_pointwise", "1.0",
                            "Gathers the operands of elementwise math instead of its result")
