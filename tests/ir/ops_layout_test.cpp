// Every OpType built once; each expression's operands and outputs follow the
// layout documented in ops_types.h, and the verifier accepts the fusion.
#include <fusebox/ir/verifier.h>

#include <set>

#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using namespace fusebox::test;

struct EveryOp {
  Fusion f;
  EveryOp() {
    auto k = [&](int64_t v) { return f.constantInt(v); };
    auto* x = defineTensor(f, {-1, 4}, DataType::Float);
    auto* y = defineTensor(f, {-1, 1}, DataType::Float);
    auto* c = defineTensor(f, {-1, 4}, DataType::Bool);
    auto* s = defineScalar(f, DataType::Double);
    auto out = [&](TensorView* t) { f.addOutput(t); };
    out(set(x));
    out(segmentSet(x));
    out(unaryOp(UnaryOpType::Exp, x));
    out(binaryOp(BinaryOpType::Add, x, y));
    out(mul(x, s));
    out(ternaryOp(TernaryOpType::Where, c, x, s)->as<TensorView>());
    out(castOp(DataType::Half, x));
    out(broadcast(x, {false, true, false}));
    out(squeeze(y, {1}));
    out(expand(y, {k(-1), k(6)}));
    out(reshape(x, {k(-1)}));
    out(permute(x, {1, 0}));
    out(sum(x, {1}));
    out(variance(x, {0}));
    auto vm = varMean(x, {1});
    out(vm.var);
    out(vm.mean);
    auto w = welford(x, {1});
    out(w.avg);
    out(w.var_sum);
    out(w.n);
    out(slice(x, {k(0), k(1)}, {k(2), k(3)}));
    out(pad(x, {k(1), k(1)}));
    out(cat({x, x}, 1));
    out(full(f, {k(2), k(3)}, s, DataType::Float));
    out(iota(f, k(5), k(0), k(1), DataType::Int64));
    out(uniform(f, {k(2)}, s, s, DataType::Float));
    out(normal(f, {k(2)}, s, s, DataType::Float, k(1), k(2)));
    auto* m = defineTensor(f, {4, 3}, DataType::Float);
    out(matmul(x, m));
    auto* weight = defineTensor(f, {3, 4}, DataType::Float);
    out(linear(x, weight, defineTensor(f, {3}, DataType::Float)));
    auto* index = defineTensor(f, {-1, 4}, DataType::Int64);
    out(indexSelect(x, defineTensor(f, {2}, DataType::Int32), 1));
    out(select(x, k(1), 1));
    out(gather(x, index, 0));
    out(takeAlongAxis(x, index, 1));
    out(scatter(x, index, x, 0));
    out(scatter(x, index, s, 1));
    out(scan(ReductionOpType::Sum, x, 1));
    out(argsort(x, 1, true, false));
    auto top = topk(x, k(2), 0, true, true);
    out(top.values);
    out(top.indices);
  }
};

size_t rankOf(Val* v) {
  return static_cast<size_t>(v->as<TensorView>()->nDims());
}

bool allScalars(const std::vector<Val*>& vals, size_t from) {
  for (size_t i = from; i < vals.size(); ++i)
    if (!vals[i]->isScalar()) return false;
  return true;
}

// Checks one expression against ops_types.h; returns a description of what is wrong.
std::string layoutProblem(Expr* e) {
  const auto& in = e->inputs();
  const auto& out = e->outputs();
  auto tensorIn = [&](size_t i) { return i < in.size() && in[i]->isTensor(); };
  auto expect = [&](bool ok, const char* what) { return ok ? std::string() : std::string(what); };
  switch (e->op()) {
    case OpType::Set:
    case OpType::SegmentSet:
      return expect(in.size() == 1 && tensorIn(0) && out.size() == 1, "T -> T");
    case OpType::Unary:
      return expect(in.size() == 1 && std::holds_alternative<UnaryOpType>(e->attrs()), "unary");
    case OpType::Binary:
      return expect(in.size() == 2 && std::holds_alternative<BinaryOpType>(e->attrs()), "binary");
    case OpType::Ternary:
      return expect(in.size() == 3 && std::holds_alternative<TernaryOpType>(e->attrs()), "ternary");
    case OpType::Cast:
      return expect(in.size() == 1 && out.size() == 1, "cast");
    case OpType::Broadcast:
      return expect(in.size() == 1 && tensorIn(0) &&
                        e->attr<BroadcastAttr>().is_broadcast_dim.size() == rankOf(out[0]),
                    "broadcast: one is_broadcast_dim entry per output dim");
    case OpType::Squeeze:
      return expect(in.size() == 1 && std::holds_alternative<SqueezeAttr>(e->attrs()), "squeeze");
    case OpType::Expand:
    case OpType::Reshape:
      return expect(tensorIn(0) && in.size() == 1 + rankOf(out[0]) && allScalars(in, 1),
                    "T, S x out_rank");
    case OpType::Permute:
      return expect(in.size() == 1 && std::holds_alternative<PermuteAttr>(e->attrs()), "permute");
    case OpType::Reduction:
      return expect(
          in.size() == 1 && out.size() == 1 && std::holds_alternative<ReductionAttr>(e->attrs()),
          "reduction");
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford: {
      size_t outs = e->op() == OpType::Var ? 1 : e->op() == OpType::VarMean ? 2 : 3;
      return expect(
          in.size() == 1 && out.size() == outs && std::holds_alternative<VarianceAttr>(e->attrs()),
          "variance family");
    }
    case OpType::Slice:
      return expect(tensorIn(0) && in.size() == 1 + 3 * rankOf(in[0]) && allScalars(in, 1),
                    "T, S x rank x 3");
    case OpType::Pad:
      return expect(tensorIn(0) && in.size() >= 2 && (in.size() - 2) % 2 == 0 && allScalars(in, 1),
                    "T, value, 2k widths");
    case OpType::Cat: {
      bool tensors = true;
      for (Val* v : in) tensors &= v->isTensor();
      return expect(tensors && std::holds_alternative<CatAttr>(e->attrs()), "T x n");
    }
    case OpType::Full:
      return expect(in.size() == 1 + rankOf(out[0]) && allScalars(in, 0), "S, S x rank");
    case OpType::Iota:
      return expect(in.size() == 3 && allScalars(in, 0) && rankOf(out[0]) == 1, "S x 3 -> 1-D");
    case OpType::Rand: {
      size_t extra = e->attr<RandAttr>().has_seed ? 4 : 2;
      return expect(in.size() == rankOf(out[0]) + extra && allScalars(in, 0),
                    "S x rank, a, b[, seed, offset]");
    }
    case OpType::Matmul:
      return expect(in.size() == 2 && tensorIn(0) && tensorIn(1), "T, T");
    case OpType::Linear:
      return expect((in.size() == 2 || in.size() == 3) && tensorIn(0) && tensorIn(1), "T, T[, T]");
    case OpType::IndexSelect:
      return expect(in.size() == 2 && tensorIn(0) && tensorIn(1) && rankOf(in[1]) <= 1 &&
                        std::holds_alternative<IndexAttr>(e->attrs()),
                    "T, T (rank 0 or 1)");
    case OpType::Select:
      return expect(
          in.size() == 2 && tensorIn(0) && in[1]->isScalar() && rankOf(out[0]) + 1 == rankOf(in[0]),
          "T, S -> T (rank - 1)");
    case OpType::Gather:
    case OpType::TakeAlongAxis:
      return expect(in.size() == 2 && tensorIn(0) && tensorIn(1) &&
                        rankOf(in[0]) == rankOf(in[1]) && rankOf(out[0]) == rankOf(in[0]),
                    "T, T of equal rank");
    case OpType::Scatter:
      return expect(in.size() == 3 && tensorIn(0) && tensorIn(1) &&
                        std::holds_alternative<IndexAttr>(e->attrs()),
                    "T, T, T|S");
    case OpType::Scan:
      return expect(in.size() == 1 && tensorIn(0) && std::holds_alternative<ScanAttr>(e->attrs()),
                    "T");
    case OpType::Argsort:
      return expect(in.size() == 1 && tensorIn(0) && std::holds_alternative<SortAttr>(e->attrs()) &&
                        e->output(0)->dtype() == DataType::Int64,
                    "T -> T (int64)");
    case OpType::TopK:
      return expect(in.size() == 2 && tensorIn(0) && in[1]->isScalar() &&
                        e->outputs().size() == 2 && e->output(1)->dtype() == DataType::Int64 &&
                        std::holds_alternative<TopKAttr>(e->attrs()),
                    "T, S -> T, T (int64)");
  }
  return "unknown op";
}

TEST(OpsLayout, EveryOpTypeFollowsTheDocumentedOperandLayout) {
  EveryOp every;
  std::set<OpType> seen;
  for (Expr* e : every.f.exprs()) {
    seen.insert(e->op());
    EXPECT_EQ(layoutProblem(e), "") << "expr " << e->name() << " (" << e->opName() << ")";
  }
  // OpType's enumerators run from Set to TopK.
  for (int op = static_cast<int>(OpType::Set); op <= static_cast<int>(OpType::TopK); ++op)
    EXPECT_TRUE(seen.count(static_cast<OpType>(op))) << toString(static_cast<OpType>(op));
}

TEST(OpsLayout, VerifierAcceptsEveryOp) {
  EveryOp every;
  EXPECT_EQ(findFusionProblems(every.f), std::vector<std::string>{});
}

TEST(OpsLayout, CloneOfEveryOpIsStructurallyEqual) {
  EveryOp every;
  auto copy = every.f.clone();
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(every.f, *copy, &why)) << why;
}

}  // namespace
}  // namespace fusebox
