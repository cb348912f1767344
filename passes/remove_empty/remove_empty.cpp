// remove_empty: work on tensors with no elements is replaced by full(...) of
// the right shape, so nothing downstream reads or computes empty data:
//   - a tensor whose shape has a constant 0 becomes full(shape, 0);
//   - a sum/prod over an axis of size 0 becomes full(0) / full(1), var and
//     var_mean become NaN (torch's value), welford its empty state (0, 0, 0);
//   - cat drops inputs with no extent along the cat dim;
//   - pad of an empty tensor becomes full(padded shape, pad value);
//   - matmul with a contraction of size 0 becomes zeros.
// max/min over an empty axis are left alone: they are errors in torch and in
// the evaluator, and a pass must not turn an error into a value. For the same
// reason an indexing op whose indices may be out of range is left alone even
// when its output is empty (torch checks every index whatever the output),
// and so is everything computed from it: replacing a reader by full(...)
// would leave the indexing op dead and its check gone.
#include <fusebox/ir/ops.h>
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_set>

namespace {

using namespace fusebox;

// A fill scalar of a type that holds `value` for a tensor of `dtype`.
Scalar* fillScalar(Fusion& f, DataType dtype, double value) {
  if (isFloatingType(dtype)) return f.constantDouble(value);
  if (isBoolType(dtype)) return f.constantBool(value != 0);
  return f.constantInt(static_cast<int64_t>(value));
}

// full(...) of tv's shape that keeps its broadcast dims broadcast (expanded
// where tv's are): a squeeze or an expand downstream may rely on them.
TensorView* fullLike(TensorView* tv, Val* fill) {
  const auto ids = tv->logicalNoReductions();
  std::vector<Val*> shape, expanded;
  std::vector<bool> is_broadcast;
  bool any_broadcast = false, any_expanded = false;
  for (IterDomain* id : ids) {
    is_broadcast.push_back(id->isBroadcast());
    any_broadcast |= id->isBroadcast();
    any_expanded |= id->isBroadcast() && id->hasExpandedExtent();
    if (!id->isBroadcast()) shape.push_back(id->logicalExtent());
    expanded.push_back(id->isBroadcast() && id->hasExpandedExtent()
                           ? id->expandedExtent()
                           : tv->fusion()->constantInt(-1));
  }
  TensorView* out = full(*tv->fusion(), shape, fill, tv->dtype());
  if (any_broadcast) out = broadcast(out, is_broadcast);
  if (any_expanded) out = expand(out, expanded);
  return out;
}

// Whether any of `axes` of `in` has a constant extent of 0.
bool hasEmptyAxis(const TensorView* in, const std::vector<int64_t>& axes) {
  auto dims = in->logicalNoReductions();
  for (int64_t a : axes)
    if (a >= 0 && a < static_cast<int64_t>(dims.size()) &&
        constantInt(dims[a]->logicalExtent()) == 0)
      return true;
  return false;
}

bool isExtremum(const Expr* e) {
  if (e->op() != OpType::Reduction) return false;
  auto op = e->attr<ReductionAttr>().op;
  return op == ReductionOpType::Max || op == ReductionOpType::Min;
}

// Whether `e` checks index values that may be out of range: an indexing op
// with an index tensor that is not known to be empty, or a select whose
// index is not a constant known to be in range.
bool checksIndices(const Expr* e) {
  if (!isIndexingOp(e->op())) return false;
  if (e->op() != OpType::Select) return !hasZeroSize(e->input(1)->as<TensorView>());
  const auto* in = e->input(0)->as<TensorView>();
  const std::optional<int64_t> size =
      constantInt(in->axis(e->attr<IndexAttr>().dim)->logicalExtent());
  const std::optional<int64_t> index = constantInt(e->input(1)->as<Scalar>());
  return !size || !index || *index < -*size || *index >= *size;
}

bool isLive(const Val* v) {
  return !v->uses().empty() || v->isFusionOutput();
}

class RemoveEmptyPass final : public Pass {
 public:
  std::string name() const override { return "remove_empty"; }

  bool run(Fusion& fusion) override {
    bool changed = false;
    std::unordered_set<const Val*> after_index_check;
    for (Expr* e : fusion.tensorExprs()) {
      bool checked = checksIndices(e);
      for (const Val* in : e->inputs()) checked |= after_index_check.count(in) != 0;
      if (checked) {
        for (const Val* out : e->outputs()) after_index_check.insert(out);
        continue;
      }
      if (e->op() == OpType::Full) continue;
      bool live = false;
      for (Val* out : e->outputs()) live |= isLive(out);
      if (!live) continue;
      if (rewrite(fusion, e)) changed = true;
    }
    if (changed) fusion.removeDeadExprs();
    return changed;
  }

 private:
  // Replaces each live tensor output i of `e` by full(shape, fills[i]).
  static void replaceOutputs(Fusion& f, Expr* e, const std::vector<double>& fills) {
    for (size_t i = 0; i < e->outputs().size(); ++i) {
      auto* out = e->output(i)->as<TensorView>();
      if (!isLive(out)) continue;
      replaceTensor(f, out, fullLike(out, fillScalar(f, out->dtype(), fills[i])));
    }
  }

  bool rewrite(Fusion& f, Expr* e) {
    auto* out = e->output(0)->as<TensorView>();
    const auto* in =
        e->inputs().empty() || !e->input(0)->isTensor() ? nullptr : e->input(0)->as<TensorView>();
    const bool empty_reduction =
        in != nullptr &&
        ((e->op() == OpType::Reduction && hasEmptyAxis(in, e->attr<ReductionAttr>().axes)) ||
         ((e->op() == OpType::Var || e->op() == OpType::VarMean || e->op() == OpType::Welford) &&
          hasEmptyAxis(in, e->attr<VarianceAttr>().axes)));
    if (empty_reduction && isExtremum(e)) return false;  // an error stays an error

    if (hasZeroSize(out)) {
      replaceOutputs(f, e, std::vector<double>(e->outputs().size(), 0.0));
      return true;
    }
    if (empty_reduction) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      switch (e->op()) {
        case OpType::Reduction:
          replaceOutputs(f, e, {e->attr<ReductionAttr>().op == ReductionOpType::Prod ? 1.0 : 0.0});
          return true;
        case OpType::Var:
          replaceOutputs(f, e, {nan});
          return true;
        case OpType::VarMean:
          replaceOutputs(f, e, {nan, nan});
          return true;
        case OpType::Welford:
          replaceOutputs(f, e, {0.0, 0.0, 0.0});
          return true;
        default:
          return false;
      }
    }
    switch (e->op()) {
      case OpType::Cat:
        return dropEmptyCatInputs(f, e);
      case OpType::Pad:
        if (in == nullptr || !hasZeroSize(in)) return false;
        // Every element is padding.
        replaceTensor(f, out, fullLike(out, e->input(1)));
        return true;
      case OpType::Matmul: {
        auto* a = e->input(0)->as<TensorView>();
        if (constantInt(a->axis(-1)->logicalExtent()) != 0) return false;
        replaceOutputs(f, e, {0.0});  // a sum over nothing
        return true;
      }
      default:
        return false;
    }
  }

  // Only inputs with no extent along the cat dim add nothing: an input empty
  // through another dim ([2, 0] concatenated on dim 0) still adds 2 rows.
  static bool dropEmptyCatInputs(Fusion& f, Expr* e) {
    const int64_t dim = e->attr<CatAttr>().dim;
    std::vector<TensorView*> kept;
    for (Val* v : e->inputs())
      if (!hasEmptyAxis(v->as<TensorView>(), {dim})) kept.push_back(v->as<TensorView>());
    if (kept.size() == e->inputs().size() || kept.empty()) return false;
    auto* out = e->output(0)->as<TensorView>();
    TensorView* replacement = kept.size() == 1 ? set(kept[0]) : cat(kept, e->attr<CatAttr>().dim);
    replaceTensor(f, out, replacement);
    return true;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(RemoveEmptyPass, "remove_empty", "1.0",
                            "Replaces work on tensors with no elements by full(...)")
