// Run-time shape constraints of a fusion's ops, checked once the inputs are
// bound: what shape inference could not prove with symbolic extents (two
// operands of an add whose sizes are i0 and i1, an expand or broadcast_in_dim
// asking a symbolic dim for a size, a reshape of symbolic sizes, matching
// contraction sizes). The evaluator meets these while it computes; kernels
// do not check, so the runtime checks them before anything runs. Every
// extent and shape scalar is in the cache key, so once per signature is
// enough.
#include <fmt/format.h>

#include <algorithm>

#include "eval/eval_internal.h"

namespace fusebox::eval_detail {
namespace {

class ShapeChecker {
 public:
  explicit ShapeChecker(ExpressionEvaluator& ee) : ee_(ee) {}

  void check(const Expr* e) {
    switch (e->op()) {
      case OpType::Binary:
      case OpType::Ternary:
        checkBroadcastable(e, 0, e->inputs().size());
        return;
      case OpType::Expand:
        checkExpand(e);
        return;
      case OpType::Squeeze:
        checkSqueeze(e);
        return;
      case OpType::Reshape:
        checkReshape(e);
        return;
      case OpType::Cat:
        checkCat(e);
        return;
      case OpType::Matmul:
        checkMatmul(e);
        return;
      case OpType::Linear:
        checkLinear(e);
        return;
      case OpType::Reduction:
        checkExtremum(e);
        return;
      case OpType::TopK:
        checkTopK(e);
        return;
      case OpType::IndexSelect:
      case OpType::Gather:
      case OpType::TakeAlongAxis:
      case OpType::Scatter:
        checkIndexable(e);
        return;
      default:
        return;
    }
  }

 private:
  // Sizes of a tensor's dims (nullopt where an extent cannot be computed).
  std::vector<std::optional<int64_t>> sizes(const Val* v) {
    std::vector<std::optional<int64_t>> out;
    for (const IterDomain* id : v->as<TensorView>()->logicalNoReductions()) {
      auto value = ee_.evaluate(id->logicalExtent());
      out.push_back(value ? std::optional<int64_t>(toInt(*value)) : std::nullopt);
    }
    return out;
  }

  // "dim 1 of T3_g (size 8, the size of input T0)" for messages.
  std::string dimText(const Val* v, size_t d, int64_t size) {
    const IterDomain* id = v->as<TensorView>()->logicalNoReductions().at(d);
    std::string who = ee_.boundBy(id->logicalExtent());
    return fmt::format("dim {} of {} (size {}{})", d, v->toString(), size,
                       who.empty() ? "" : fmt::format(", from input {}", who));
  }

  // Tensor operands, right-aligned, agree dim by dim; size 1 stretches.
  void checkBroadcastable(const Expr* e, size_t first, size_t last) {
    std::vector<const Val*> tensors;
    for (size_t i = first; i < last; ++i)
      if (e->input(i)->isTensor()) tensors.push_back(e->input(i));
    if (tensors.size() < 2) return;
    const int64_t rank = e->output(0)->as<TensorView>()->nDims();
    std::vector<std::optional<int64_t>> fixed(rank);
    std::vector<std::pair<const Val*, size_t>> fixed_by(rank);
    for (const Val* t : tensors) {
      auto s = sizes(t);
      const auto ids = t->as<TensorView>()->logicalNoReductions();
      const int64_t align = rank - static_cast<int64_t>(s.size());
      for (size_t d = 0; d < s.size(); ++d) {
        // Only a dim that may be a broadcast stretches (as the evaluator
        // rules): an input dim declared -1 of size 1 does not.
        if (!s[d] || (*s[d] == 1 && canStretch(ids[d]))) continue;
        const size_t od = d + align;
        if (!fixed[od]) {
          fixed[od] = s[d];
          fixed_by[od] = {t, d};
          continue;
        }
        FUSEBOX_USER_CHECK(
            *fixed[od] == *s[d], "{}: operand sizes differ: {} but {}", describeExpr(e),
            dimText(fixed_by[od].first, fixed_by[od].second, *fixed[od]), dimText(t, d, *s[d]));
      }
    }
    // The output's extent names one operand's dim; where that one is 1 at
    // run time and another operand's is larger, the op would stretch a dim
    // the fusion does not know is a broadcast.
    const Val* out = e->output(0);
    auto o = sizes(out);
    for (int64_t od = 0; od < rank; ++od)
      FUSEBOX_USER_CHECK(!fixed[od] || !o[od] || *o[od] == *fixed[od],
                         "{}: {} would stretch dim {} of the output, whose size the fusion takes "
                         "from an operand of size {} there; a dim that is 1 at run time stretches "
                         "only where the fusion can tell (declare it with size 1, a broadcast, "
                         "or give the operands equal sizes)",
                         describeExpr(e), dimText(fixed_by[od].first, fixed_by[od].second,
                                                  *fixed[od]),
                         od, *o[od]);
  }

  // max and min of nothing are errors (as in PyTorch), even where the
  // output is empty and no kernel would compute one.
  void checkExtremum(const Expr* e) {
    const auto& attr = e->attr<ReductionAttr>();
    if (attr.op != ReductionOpType::Max && attr.op != ReductionOpType::Min) return;
    const Val* in = e->input(0);
    auto s = sizes(in);
    for (int64_t a : attr.axes) {
      if (a < 0 || a >= static_cast<int64_t>(s.size()) || !s[a]) continue;
      FUSEBOX_USER_CHECK(*s[a] != 0,
                         "{}: {} of an empty set: {} (max and min need at least one element)",
                         describeExpr(e), toString(attr.op), dimText(in, a, 0));
    }
  }

  // topk picks k of the dim's elements: 0 <= k <= its size.
  void checkTopK(const Expr* e) {
    const Val* in = e->input(0);
    const int64_t dim = e->attr<TopKAttr>().dim;
    auto s = sizes(in);
    auto k = ee_.evaluate(e->input(1));
    if (!k || dim < 0 || dim >= static_cast<int64_t>(s.size()) || !s[dim]) return;
    const int64_t value = toInt(*k);
    FUSEBOX_USER_CHECK(value >= 0 && value <= *s[dim],
                       "{}: k is {} but {} has {} elements; expected 0 <= k <= {}", describeExpr(e),
                       value, dimText(in, dim, *s[dim]), *s[dim], *s[dim]);
  }

  // The index operand's sizes against the input's (and scatter's src's):
  // kernels read where these say, so they are checked before any runs (the
  // signature holds every extent, so once per signature covers a kernel
  // reused across sizes). An index into a dim of size 0 is out of range
  // whatever its value, even where the output is empty and nothing reads it
  // (scatter into an empty dim): as in PyTorch that is an error, not an
  // empty result.
  void checkIndexable(const Expr* e) {
    const Val* in = e->input(0);
    const int64_t dim = e->attr<IndexAttr>().dim;
    auto s = sizes(in);
    std::vector<std::vector<std::optional<int64_t>>> operands = {s, sizes(e->input(1))};
    if (e->inputs().size() > 2 && e->input(2)->isTensor()) operands.push_back(sizes(e->input(2)));
    try {
      checkIndexOperandSizes(e, operands);
    } catch (const UserError& err) {
      throw UserError(fmt::format("{}: {}", describeExpr(e), err.what()));
    }
    if (e->op() == OpType::TakeAlongAxis) checkTakeAlongAxisOutput(e, operands[0], operands[1]);
    auto n = numel(e->input(1));
    if (!s.at(dim) || *s[dim] != 0 || !n || *n == 0) return;
    throw UserError(fmt::format("{}: {} is empty, so none of the {} indices of {} is in range",
                                describeExpr(e), dimText(in, dim, 0), *n, e->input(1)->toString()));
  }

  // Outside the indexed dim take_along_axis's output has the broadcast size
  // of input and index; the fusion takes its extent from one of them, which
  // must not be a 1 the other stretches (as for elementwise operands).
  void checkTakeAlongAxisOutput(const Expr* e, const std::vector<std::optional<int64_t>>& in,
                                const std::vector<std::optional<int64_t>>& index) {
    const int64_t dim = e->attr<IndexAttr>().dim;
    const auto in_ids = e->input(0)->as<TensorView>()->logicalNoReductions();
    auto o = sizes(e->output(0));
    for (size_t k = 0; k < o.size() && k < in.size(); ++k) {
      if (static_cast<int64_t>(k) == dim || !o[k] || !in[k] || !index[k]) continue;
      const bool from_index = *in[k] == 1 && canStretch(in_ids[k]);
      const int64_t want = from_index ? *index[k] : *in[k];
      FUSEBOX_USER_CHECK(
          *o[k] == want,
          "{}: {} stretches dim {} of the output to {}, but the fusion takes "
          "that dim's size from an operand of size {} there; declare the size-1 "
          "dim with size 1 (a broadcast) or give input and index equal sizes",
          describeExpr(e),
          from_index ? dimText(e->input(1), k, *index[k]) : dimText(e->input(0), k, *in[k]), k,
          want, *o[k]);
    }
  }

  // A size asked of a dim that is not 1 must be its size.
  void checkExpand(const Expr* e) {
    const Val* in = e->input(0);
    auto s = sizes(in);
    for (size_t d = 0; d < s.size(); ++d) {
      auto want = ee_.evaluate(e->input(d + 1));
      if (!want || !s[d] || *s[d] == 1) continue;
      const int64_t w = toInt(*want);
      FUSEBOX_USER_CHECK(w == -1 || w == *s[d],
                         "{}: the shape asks for size {} in dim {}, but {} is not a broadcast "
                         "and cannot change size",
                         describeExpr(e), w, d, dimText(in, d, *s[d]));
    }
    // A symbolic dim of size 1 asked for another size stretches to it; the
    // output's extent must say so (it does when the size asked is a constant).
    auto o = sizes(e->output(0));
    for (size_t d = 0; d < s.size(); ++d) {
      auto want = ee_.evaluate(e->input(d + 1));
      if (!want || !s[d] || !o[d] || *s[d] != 1) continue;
      const int64_t w = toInt(*want);
      FUSEBOX_USER_CHECK(w == -1 || w == *o[d],
                         "{}: the shape asks for size {} in dim {}, where {} would stretch to "
                         "it, but the fusion gives the output size {} there; declare the dim "
                         "with size 1 (a broadcast) to stretch it",
                         describeExpr(e), w, d, dimText(in, d, 1), *o[d]);
    }
  }

  // A squeezed dim (an expanded broadcast, a symbolic dim) must not be
  // empty: dropping it would make elements out of nothing.
  // Any other squeezed dim (symbolic until now) must have size 1.
  void checkSqueeze(const Expr* e) {
    const Val* in = e->input(0);
    const auto ids = in->as<TensorView>()->logicalNoReductions();
    auto s = sizes(in);
    for (int64_t d : e->attr<SqueezeAttr>().dims) {
      if (!s.at(d)) continue;
      FUSEBOX_USER_CHECK(*s[d] != 0, "{}: {} cannot be squeezed: it is empty", describeExpr(e),
                         dimText(in, d, 0));
      FUSEBOX_USER_CHECK(ids.at(d)->isBroadcast() || *s[d] == 1,
                         "{}: {} cannot be squeezed: only size-1 and broadcast dims can",
                         describeExpr(e), dimText(in, d, *s[d]));
    }
  }

  std::optional<int64_t> numel(const Val* v) {
    int64_t n = 1;
    for (auto s : sizes(v)) {
      if (!s) return std::nullopt;
      if (__builtin_mul_overflow(n, *s, &n)) return std::nullopt;
    }
    return n;
  }

  void checkReshape(const Expr* e) {
    checkInferredSize(e);
    auto in = numel(e->input(0));
    auto out = numel(e->output(0));
    // Known sizes whose product does not fit int64: no tensor has that many.
    for (const Val* v : {e->input(0), e->output(0)}) {
      auto s = sizes(v);
      const bool known =
          std::all_of(s.begin(), s.end(), [](const auto& x) { return x.has_value(); });
      FUSEBOX_USER_CHECK(!known || numel(v).has_value(),
                         "{}: the number of elements overflows int64 (sizes [{}])", describeExpr(e),
                         joinSizes(v));
    }
    if (!in || !out) return;
    FUSEBOX_USER_CHECK(*in == *out,
                       "{}: cannot reshape {} elements into {} (input sizes [{}], output sizes "
                       "[{}])",
                       describeExpr(e), *in, *out, joinSizes(e->input(0)), joinSizes(e->output(0)));
  }

  // new_shape's -1 is the input's element count divided by the other
  // entries' product: where that is 0 no size fits (torch's words). Checked
  // before anything evaluates the -1's extent, which would divide by 0.
  void checkInferredSize(const Expr* e) {
    std::vector<std::string> shape;
    bool inferred = false, has_zero = false;
    for (size_t k = 1; k < e->inputs().size(); ++k) {
      const auto* s = e->input(k)->as<Scalar>();
      if (s->isConst() && toInt(*s->value()) == -1) {
        inferred = true;
        shape.push_back("-1");
        continue;
      }
      auto v = ee_.evaluate(s);
      shape.push_back(v ? std::to_string(toInt(*v)) : "?");
      has_zero |= v && toInt(*v) == 0;
    }
    if (!inferred || !has_zero) return;
    auto in = numel(e->input(0));
    if (!in) return;
    if (*in == 0)
      throw UserError(fmt::format(
          "{}: cannot reshape a tensor of 0 elements (sizes [{}]) into shape [{}] because the "
          "unspecified dimension size -1 can be any value",
          describeExpr(e), joinSizes(e->input(0)), fmt::join(shape, ", ")));
    throw UserError(
        fmt::format("{}: shape [{}] is invalid for an input of {} elements (sizes [{}])",
                    describeExpr(e), fmt::join(shape, ", "), *in, joinSizes(e->input(0))));
  }

  std::string joinSizes(const Val* v) {
    std::vector<std::string> parts;
    for (auto s : sizes(v)) parts.push_back(s ? std::to_string(*s) : "?");
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  // Every dim but the concatenated one agrees across operands.
  void checkCat(const Expr* e) {
    const int64_t dim = e->attr<CatAttr>().dim;
    const Val* first = e->input(0);
    auto s0 = sizes(first);
    for (size_t i = 1; i < e->inputs().size(); ++i) {
      auto s = sizes(e->input(i));
      for (size_t d = 0; d < s.size() && d < s0.size(); ++d) {
        if (static_cast<int64_t>(d) == dim || !s[d] || !s0[d]) continue;
        FUSEBOX_USER_CHECK(*s[d] == *s0[d], "{}: operand sizes differ outside dim {}: {} but {}",
                           describeExpr(e), dim, dimText(first, d, *s0[d]),
                           dimText(e->input(i), d, *s[d]));
      }
    }
  }

  void checkContraction(const Expr* e, const Val* a, size_t da, const Val* b, size_t db) {
    auto sa = sizes(a), sb = sizes(b);
    if (!sa.at(da) || !sb.at(db)) return;
    FUSEBOX_USER_CHECK(*sa[da] == *sb[db], "{}: contraction sizes differ: {} but {}",
                       describeExpr(e), dimText(a, da, *sa[da]), dimText(b, db, *sb[db]));
  }

  void checkMatmul(const Expr* e) {
    const Val* a = e->input(0);
    const Val* b = e->input(1);
    const size_t ra = a->as<TensorView>()->nDims(), rb = b->as<TensorView>()->nDims();
    checkContraction(e, a, ra - 1, b, rb == 1 ? 0 : rb - 2);
  }

  void checkLinear(const Expr* e) {
    const Val* a = e->input(0);
    const Val* w = e->input(1);
    checkContraction(e, a, a->as<TensorView>()->nDims() - 1, w, w->as<TensorView>()->nDims() - 1);
  }

  ExpressionEvaluator& ee_;
};

}  // namespace

void checkShapeConstraints(const Fusion& fusion, ExpressionEvaluator& ee) {
  ShapeChecker checker(ee);
  for (const Expr* e : fusion.exprs())
    if (e->isTensorOp()) checker.check(e);
}

}  // namespace fusebox::eval_detail
