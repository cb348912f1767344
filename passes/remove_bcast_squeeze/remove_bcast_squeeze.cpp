// remove_bcast_squeeze: cancels and composes chains of broadcast, squeeze and
// set, which only insert or remove size-1 dims (or copy):
//   squeeze(broadcast(x, new dims), those dims)        -> x
//   broadcast(squeeze(x, broadcast dims), same places) -> x
//   set(squeeze(x)), broadcast(broadcast(x)), ...      -> one op
// With swap_unary_ops (default on), unary ops and casts between two such ops
// move after them so the pair can meet, e.g. nvFuser issue 3635's
//   broadcast -> cast -> squeeze -> cast   becomes   cast -> cast
// (which consecutive_cast may then fold away). Elementwise ops commute with ops
// that only add or drop size-1 dims, so values never change. A rewritten fusion
// output keeps its allocation order: a channels-last output stays channels-last
// (nvFuser PR 3643).
#include <fusebox/ir/ops.h>
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

#include <algorithm>

namespace {

using namespace fusebox;

bool isAxisOp(const Expr* e) {
  return e != nullptr && e->output(0)->isTensor() &&
         (e->op() == OpType::Broadcast || e->op() == OpType::Squeeze || e->op() == OpType::Set);
}

bool isSwappableUnary(const Expr* e) {
  return e != nullptr && (e->op() == OpType::Unary || e->op() == OpType::Cast) &&
         e->inputs().size() == 1 && e->input(0)->isTensor() && e->output(0)->isTensor();
}

// Where each dim of a chain's result comes from: a dim of the chain's source
// (>= 0), or a new broadcast (-1); plus the source dims the chain squeezed.
struct AxisMap {
  std::vector<int64_t> dims;
  std::vector<int64_t> squeezed;

  static AxisMap identity(int64_t rank) {
    AxisMap m;
    for (int64_t d = 0; d < rank; ++d) m.dims.push_back(d);
    return m;
  }

  void apply(const Expr* e) {
    if (e->op() == OpType::Broadcast) {
      std::vector<int64_t> next;
      size_t k = 0;
      for (bool is_new : e->attr<BroadcastAttr>().is_broadcast_dim)
        next.push_back(is_new ? -1 : dims[k++]);
      dims = std::move(next);
    } else if (e->op() == OpType::Squeeze) {
      const auto& drop = e->attr<SqueezeAttr>().dims;
      std::vector<int64_t> next;
      for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
        if (std::find(drop.begin(), drop.end(), d) == drop.end()) {
          next.push_back(dims[d]);
        } else if (dims[d] >= 0) {
          squeezed.push_back(dims[d]);
        }
      }
      dims = std::move(next);
    }  // set: dims unchanged
  }

  // A squeezed source broadcast dim that a new broadcast puts back in the same
  // place cancels with it.
  void cancelReinserted(const TensorView* source) {
    auto src = source->logicalNoReductions();
    std::sort(squeezed.begin(), squeezed.end());
    for (auto it = squeezed.begin(); it != squeezed.end();) {
      const int64_t s = *it;
      const IterDomain* id = src[s];
      bool plain_broadcast = id->isBroadcast() && !id->hasExpandedExtent();
      // The slot between the kept dims below s and those above it.
      int64_t lo = 0, hi = static_cast<int64_t>(dims.size());
      for (int64_t p = 0; p < static_cast<int64_t>(dims.size()); ++p) {
        if (dims[p] >= 0 && dims[p] < s) lo = p + 1;
        if (dims[p] > s) {
          hi = p;
          break;
        }
      }
      int64_t slot = -1;
      for (int64_t p = lo; p < hi && plain_broadcast; ++p)
        if (dims[p] == -1) {
          slot = p;
          break;
        }
      if (slot < 0) {
        ++it;
        continue;
      }
      dims[slot] = s;
      it = squeezed.erase(it);
    }
  }

  std::vector<bool> newBroadcasts() const {
    std::vector<bool> flags;
    for (int64_t d : dims) flags.push_back(d < 0);
    return flags;
  }
  int64_t opCount() const {
    auto flags = newBroadcasts();
    return (squeezed.empty() ? 0 : 1) +
           (std::find(flags.begin(), flags.end(), true) == flags.end() ? 0 : 1);
  }

  // The chain as at most one squeeze followed by at most one broadcast.
  TensorView* emit(TensorView* source) const {
    TensorView* t = source;
    // The fusion squeezed these already (expanded ones with squeeze_expanded).
    if (!squeezed.empty()) t = squeeze(t, squeezed, /*squeeze_expanded=*/true);
    auto flags = newBroadcasts();
    if (std::find(flags.begin(), flags.end(), true) != flags.end()) t = broadcast(t, flags);
    return t;
  }
};

class RemoveBcastSqueezePass final : public Pass {
 public:
  std::string name() const override { return "remove_bcast_squeeze"; }
  std::vector<OptionSpec> options() const override {
    return {{"swap_unary_ops", OptionType::Bool, true,
             "Move unary ops and casts that sit between two broadcast/squeeze/set ops after "
             "them, so the pair can cancel"}};
  }

  bool run(Fusion& fusion) override {
    const bool swap = option<bool>("swap_unary_ops");
    bool changed = false;
    // Each rewrite shortens a chain or moves an axis op toward the inputs, so
    // this ends; the bound only guards against a bug. A round goes on after a
    // rewrite: the expressions it made dead are skipped (no uses) and those it
    // created wait for the next round, so a chain of 100,000 cancelling pairs
    // takes a few rounds, not one round per pair.
    for (int round = 0; round < 1000; ++round) {
      bool again = false;
      for (Expr* e : fusion.tensorExprs())
        if (isAxisOp(e) && rewrite(fusion, e, swap)) again = true;
      if (!again) break;
      fusion.removeDeadExprs();
      changed = true;
    }
    return changed;
  }

 private:
  static bool rewrite(Fusion& f, Expr* e, bool swap) {
    auto* out = e->output(0)->as<TensorView>();
    if (out->uses().empty() && !out->isFusionOutput()) return false;
    // Walk up through single-use unary ops to the previous axis op.
    std::vector<Expr*> between;
    auto* x = e->input(0)->as<TensorView>();
    while (swap && isSwappableUnary(x->definition()) && x->uses().size() == 1 &&
           !x->isFusionOutput()) {
      between.push_back(x->definition());
      x = x->definition()->input(0)->as<TensorView>();
    }
    Expr* first = x->definition();
    if (!isAxisOp(first)) return false;
    auto* source = first->input(0)->as<TensorView>();

    AxisMap map = AxisMap::identity(source->nDims());
    map.apply(first);
    map.apply(e);
    map.cancelReinserted(source);
    if (map.opCount() >= 2) return false;  // no shorter than the two ops it replaces

    TensorView* result = map.emit(source);
    // Replay the unary ops, nearest to the source first.
    for (auto it = between.rbegin(); it != between.rend(); ++it) {
      Expr* u = *it;
      result = u->op() == OpType::Cast ? castOp(u->output(0)->dtype(), result)
                                       : unaryOp(u->attr<UnaryOpType>(), result);
    }
    replaceTensor(f, out, result);
    return true;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(RemoveBcastSqueezePass, "remove_bcast_squeeze", "1.0",
                            "Cancels and composes broadcast/squeeze/set chains, moving unary "
                            "ops out of the way")
