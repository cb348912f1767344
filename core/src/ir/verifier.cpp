#include <fusebox/ir/verifier.h>

#include <algorithm>
#include <fmt/format.h>
#include <unordered_set>

namespace fusebox {
namespace {

class Verifier {
 public:
  explicit Verifier(const Fusion& f) : f_(f) {
    for (Val* v : f.allVals()) owned_vals_.insert(v);
    for (Expr* e : f.allExprs()) owned_exprs_.insert(e);
  }

  std::vector<std::string> run() {
    checkLinks();
    checkInterface();
    std::vector<Expr*> order;
    try {
      order = f_.exprs();
    } catch (const InternalError& e) {
      problem("the expression graph has a cycle");
      return problems_;
    }
    std::unordered_set<const Val*> available(f_.inputs().begin(), f_.inputs().end());
    for (Expr* e : order) {
      for (Val* in : e->inputs()) checkAvailable(e, in, available);
      checkShape(e);
      for (Val* out : e->outputs()) available.insert(out);
    }
    for (TensorView* tv : f_.usedTensors()) checkTensor(tv);
    return problems_;
  }

 private:
  template <class... A>
  void problem(fmt::format_string<A...> f, A&&... args) {
    problems_.push_back(fmt::format(f, std::forward<A>(args)...));
  }

  void checkLinks() {
    for (Expr* e : f_.allExprs()) {
      for (Val* out : e->outputs()) {
        if (!owned_vals_.count(out)) problem("expr {} has an output the fusion does not own", e->name());
        else if (out->definition() != e)
          problem("{} is an output of expr {} but its definition is another", out->toString(), e->name());
      }
      for (Val* in : e->inputs()) {
        if (!owned_vals_.count(in)) problem("expr {} reads a value the fusion does not own", e->name());
        else if (std::find(in->uses().begin(), in->uses().end(), e) == in->uses().end())
          problem("expr {} reads {} but is missing from its uses", e->name(), in->toString());
      }
    }
    for (Val* v : f_.allVals()) {
      if (v->definition() && !owned_exprs_.count(v->definition()))
        problem("{} is defined by an expression the fusion does not own", v->toString());
      for (Expr* use : v->uses()) {
        if (!owned_exprs_.count(use)) problem("{} lists a use the fusion does not own", v->toString());
        else if (std::find(use->inputs().begin(), use->inputs().end(), v) == use->inputs().end())
          problem("{} lists expr {} as a use, but it does not read it", v->toString(), use->name());
      }
    }
  }

  void checkInterface() {
    for (Val* in : f_.inputs()) {
      if (!owned_vals_.count(in)) problem("an input is not owned by the fusion");
      else if (in->definition()) problem("input {} has a definition", in->toString());
    }
    for (Val* out : f_.outputs())
      if (!owned_vals_.count(out)) problem("an output is not owned by the fusion");
    for (const auto& [tv, order] : f_.requiredStrideOrders()) {
      if (!tv->isFusionOutput()) problem("required stride order on {}, which is not an output", tv->toString());
      if (static_cast<int64_t>(order.size()) != tv->nDims() || !isPermutation(order))
        problem("required stride order of {} is not a permutation of its {} dims", tv->toString(), tv->nDims());
    }
  }

  // An operand must be produced earlier, be an input, a constant, or a free
  // extent (what T.size(i) gives).
  void checkAvailable(Expr* e, Val* in, const std::unordered_set<const Val*>& available) {
    if (available.count(in) || in->definition()) return;
    if (auto* s = dynamic_cast<Scalar*>(in)) {
      if (s->isConst() || isInputExtent(s)) return;
    }
    problem("expr {} ({}) reads {}, which is neither an input nor computed", e->name(), e->opName(),
            in->toString());
  }

  bool isInputExtent(const Scalar* s) {
    for (Val* in : f_.inputs())
      if (auto* tv = dynamic_cast<TensorView*>(in))
        for (IterDomain* id : tv->logical())
          if (id->extent() == s || id->expandedExtent() == s) return true;
    return false;
  }

  void checkTensor(TensorView* tv) {
    for (IterDomain* id : tv->logical()) {
      if (!owned_vals_.count(id)) {
        problem("{} has a domain the fusion does not own", tv->toString());
        continue;
      }
      if (id->isBroadcast() && !(id->extent()->isConst() && toInt(*id->extent()->value()) == 1))
        problem("{}: broadcast domain {} must have extent 1", tv->toString(), id->toString());
    }
    if (tv->contiguity().size() != tv->allocation().size())
      problem("{}: contiguity has {} entries for {} allocation axes", tv->toString(),
              tv->contiguity().size(), tv->allocation().size());
  }

  void expectCounts(Expr* e, size_t min_in, size_t max_in, size_t outs) {
    if (e->inputs().size() < min_in || e->inputs().size() > max_in)
      problem("expr {} ({}) has {} operands, expected {}..{}", e->name(), e->opName(),
              e->inputs().size(), min_in, max_in);
    if (e->outputs().size() != outs)
      problem("expr {} ({}) has {} outputs, expected {}", e->name(), e->opName(),
              e->outputs().size(), outs);
  }

  void checkShape(Expr* e) {
    const size_t any = SIZE_MAX;
    switch (e->op()) {
      case OpType::Set:
      case OpType::SegmentSet:
      case OpType::Broadcast:
      case OpType::Squeeze:
      case OpType::Permute:
      case OpType::Reduction:
      case OpType::Var: expectCounts(e, 1, 1, 1); break;
      case OpType::Unary:
      case OpType::Cast: expectCounts(e, 1, 1, 1); break;
      case OpType::Binary: expectCounts(e, 2, 2, 1); break;
      case OpType::Ternary: expectCounts(e, 3, 3, 1); break;
      case OpType::VarMean: expectCounts(e, 1, 1, 2); break;
      case OpType::Welford: expectCounts(e, 1, 1, 3); break;
      case OpType::Expand:
      case OpType::Reshape:
      case OpType::Cat:
      case OpType::Full:
      case OpType::Rand: expectCounts(e, 1, any, 1); break;
      case OpType::Slice:
        expectCounts(e, 1, any, 1);
        if ((e->inputs().size() - 1) % 3 != 0) problem("slice expr {} needs 3 operands per dim", e->name());
        break;
      case OpType::Pad: expectCounts(e, 2, any, 1); break;
      case OpType::Iota: expectCounts(e, 3, 3, 1); break;
      case OpType::Matmul: expectCounts(e, 2, 2, 1); break;
      case OpType::Linear: expectCounts(e, 2, 3, 1); break;
      case OpType::IndexSelect:
      case OpType::Select:
      case OpType::Gather:
      case OpType::TakeAlongAxis: expectCounts(e, 2, 2, 1); break;
      case OpType::Scatter: expectCounts(e, 3, 3, 1); break;
      case OpType::Scan:
      case OpType::Argsort: expectCounts(e, 1, 1, 1); break;
      case OpType::TopK: expectCounts(e, 2, 2, 2); break;
    }
    checkIndexing(e);
    if (e->op() == OpType::Permute && e->output(0)->isTensor()) {
      auto& dims = e->attr<PermuteAttr>().dims;
      if (!isPermutation(dims) ||
          static_cast<int64_t>(dims.size()) != e->output(0)->as<TensorView>()->nDims())
        problem("permute expr {} has an invalid permutation", e->name());
    }
    if (e->op() == OpType::Reduction && e->input(0)->isTensor() && e->output(0)->isTensor()) {
      auto* in = e->input(0)->as<TensorView>();
      auto* out = e->output(0)->as<TensorView>();
      if (static_cast<int64_t>(out->logical().size()) != in->nDims())
        problem("reduction expr {}: output has {} axes, input {}", e->name(), out->logical().size(),
                in->nDims());
    }
    if (e->op() == OpType::Binary && e->output(0)->dtype() != DataType::Bool) {
      auto op = e->attr<BinaryOpType>();
      bool comparison = op == BinaryOpType::Eq || op == BinaryOpType::Ne || op == BinaryOpType::Lt ||
                        op == BinaryOpType::Le || op == BinaryOpType::Gt || op == BinaryOpType::Ge;
      if (comparison) problem("comparison expr {} must produce bool", e->name());
    }
  }

  // Indexing ops, scans and sorts: the dim is one of the input's, indices
  // are integers, and the output has the rank the op gives.
  void checkIndexing(Expr* e) {
    const bool indexing = std::holds_alternative<IndexAttr>(e->attrs());
    const bool scan = std::holds_alternative<ScanAttr>(e->attrs()) ||
                      std::holds_alternative<SortAttr>(e->attrs()) ||
                      std::holds_alternative<TopKAttr>(e->attrs());
    if (!indexing && !scan) return;
    if (e->inputs().empty() || e->outputs().empty() || !e->input(0)->isTensor() ||
        !e->output(0)->isTensor())
      return problem("expr {} ({}) needs a tensor input and output", e->name(), e->opName());
    const int64_t rank = e->input(0)->as<TensorView>()->nDims();
    const int64_t dim = indexing                     ? e->attr<IndexAttr>().dim
                        : e->op() == OpType::Argsort ? e->attr<SortAttr>().dim
                        : e->op() == OpType::TopK    ? e->attr<TopKAttr>().dim
                                                     : e->attr<ScanAttr>().dim;
    if (dim < 0 || dim >= rank)
      problem("expr {} ({}) indexes dim {} of a rank-{} input", e->name(), e->opName(), dim, rank);
    const int64_t out_rank = e->output(0)->as<TensorView>()->nDims();
    const int64_t want = e->op() == OpType::Select ? rank - 1 : rank;
    if (out_rank != want)
      problem("expr {} ({}) has an output of rank {}, expected {}", e->name(), e->opName(),
              out_rank, want);
    if (scan || e->inputs().size() < 2) return;
    const Val* index = e->input(1);
    if (!isIntegralType(index->dtype()) || index->isTensor() == (e->op() == OpType::Select))
      problem("expr {} ({}) has index {}, expected an integer {}", e->name(), e->opName(),
              index->toString(), e->op() == OpType::Select ? "scalar" : "tensor");
  }

  const Fusion& f_;
  std::unordered_set<const Val*> owned_vals_;
  std::unordered_set<const Expr*> owned_exprs_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> findFusionProblems(const Fusion& fusion) { return Verifier(fusion).run(); }

void verifyFusion(const Fusion& fusion) {
  auto problems = findFusionProblems(fusion);
  if (!problems.empty())
    throw InternalError(fmt::format("invalid fusion:\n  {}", fmt::join(problems, "\n  ")));
}

}  // namespace fusebox
