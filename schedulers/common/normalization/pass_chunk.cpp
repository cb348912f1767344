// A pass's chunk code (pass_chunk.h).
#include "normalization/pass_chunk.h"

#include <fmt/format.h>
#include <fusebox/scheduler.h>

#include <algorithm>
#include <optional>

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

kir::Value PassContext::state(const std::string& name) const {
  return per_column ? kir::subscript(kir::var(name), kir::var("v", kir::intType()))
                    : kir::var(name);
}

const OnlineExpSumPair* PassContext::onlineMax(size_t a) const {
  for (const OnlineExpSumPair& pair : online)
    if (pair.max == a) return &pair;
  return nullptr;
}

bool PassContext::mergedStage(int stage) const {
  for (const OnlineExpSumPair& pair : online)
    if (st.stage[pair.sum] == stage) return true;
  return false;
}

PassChunk writePassChunk(PassContext& c, int stage, bool deviations,
                         const std::function<void(CachePlacement&)>& extra) {
  ElementWriter& w = c.w;
  const NormalizationStructure& st = c.st;
  CachePlacement placement(c.md, w.space(), c.cached, c.arrays);
  placement.vec.load_hint = c.load_hint;
  placement.vec.loads_first = c.loads_first;
  placement.vec.vectors_allowed = c.vectors_allowed;
  w.sink.reset();
  w.beginElement();
  // Kept values: stored by the pass that first computes them, read by the
  // later ones (pass numbers as collectRowAccesses counts them).
  const int pass = stage < st.stages ? 2 * stage + (deviations ? 1 : 0) : 2 * st.stages;
  c.kept.beginPass(w, pass);
  // Merged max and exp-sum pairs take a chunk's values at once (the
  // chunk's max, then one rescale): the elements go to an array first.
  kir::Block online_pre, online_post;
  if (stage < st.stages) {
    for (size_t a = 0; a < c.accs.size(); ++a) {
      const Accumulator& A = c.accs[a];
      if (st.stage[a] != stage || (deviations && !A.welford)) continue;
      const auto* in = A.expr->input(0)->as<TensorView>();
      const kir::Type scalar = kir::named(A.scalar);
      const kir::Value x = kir::castFrom(scalar, w.value(in, w.iterationIndexOf(in), placement));
      const OnlineExpSumPair* online = c.onlineMax(a);
      if (online != nullptr) {
        const kir::Value values = online_pre.declare(
            fmt::format("ox{}", a),
            kir::named(fmt::format("fusebox::Array<{}, {}>", A.scalar, c.p.vector_width)), {});
        online_pre
            .forLoop("v", kir::intType(), kir::lit(0), kir::lit(c.p.vector_width), {},
                     kir::Unroll::Full, kir::BodyStyle::SameLine)
            .assign(kir::subscript(values, kir::var("v", kir::intType())),
                    kir::call(fmt::format("fusebox::NumericLimits<{}>::lowest", A.scalar), {}));
        w.sink.at().assign(kir::subscript(values, kir::var("v", kir::intType())), x);
        online_post.evaluate(
            kir::call("fusebox::onlineExpSumUpdate", {c.state(fmt::format("acc{}", a)), values},
                      {kir::named(w.approximates(online->exp) ? "true" : "false")}));
      } else if (!A.welford) {
        A.update(w.sink.at(), c.state(fmt::format("acc{}", a)), x);
      } else if (!deviations) {
        w.sink.at().assign(c.state(fmt::format("sum{}", a)), x, "+=");
      } else {
        kir::Block deviation = w.sink.at().scope();
        const kir::Value d = deviation.declare("d", scalar, x - c.state(fmt::format("mean{}", a)),
                                               {.is_const = true});
        deviation.assign(c.state(fmt::format("sq{}", a)), d * d, "+=");
      }
    }
  } else {
    for (size_t k = 0; k < c.segment.outputs().size(); ++k) {
      const auto* tv = c.segment.outputs()[k]->as<TensorView>();
      if (st.reduced_domain.count(tv) == 0)
        w.store(k, w.iterationIndexOf(tv), c.facts.output_strides[k], placement);
    }
    if (extra) extra(placement);
  }
  w.observe(nullptr);
  // A chunk of one vector load keeps it: ptxas overlaps it with the last
  // chunk's math (row_kernel.cpp, RowKernelWriter::chunkLoop).
  if (placement.vec.chunk_loads.size() < 2) placement.vec.loadInChunk();
  const size_t last = c.md.groups.size() - 1;
  kir::Block b;
  b.append(placement.vec.pre_chunk);
  b.append(online_pre);
  kir::Block element = b.forLoop("v", kir::intType(), kir::lit(0), kir::lit(c.p.vector_width), {},
                                 kir::Unroll::Full);
  const kir::Value m = element.declare(fmt::format("m{}", last), kir::indexType(),
                                       kir::var("mb") + kir::var("v"), {.is_const = true});
  element.declare(fmt::format("i{}", c.md.groups[last][0]), kir::indexType(), m, kir::kConstUnused);
  element.append(w.sink.body);
  b.append(online_post);
  b.append(placement.vec.post_chunk);
  return {placement.vec.pre_row, b, placement.vec.chunk_loads};
}

namespace {

// Whether `e` computes a value that differs by kept element only from the
// `row` tensors (and scalars): an elementwise op of row tensors, or a
// broadcast, expand or squeeze of one.
bool computesRowValue(const Expr* e, const std::set<const TensorView*>& row) {
  const OpType op = e->op();
  if (!(isElementwise(op) || op == OpType::Broadcast || op == OpType::Expand ||
        op == OpType::Squeeze) ||
      e->outputs().size() != 1)
    return false;
  bool any = false;
  for (const Val* in : e->inputs()) {
    const auto* tv = dynamic_cast<const TensorView*>(in);
    if (tv == nullptr) continue;
    if (row.count(tv) == 0) return false;
    any = true;
  }
  return any;
}

// Where a row value of `sizes` is computed: over the domain (`in_domain`;
// its reduced dims the domain's or 1, read at index 0, since it loads
// nothing there) or over the kept dims; none for other shapes.
struct RowValueSite {
  bool in_domain = false;
  Index index;
};
std::optional<RowValueSite> rowValueSite(const std::vector<int64_t>& sizes, const RowFacts& facts) {
  const IterSpace kept = keptSpace(facts);
  if (sizes == kept.sizes) return RowValueSite{false, kept.index()};
  if (sizes.size() != facts.domain.size()) return std::nullopt;
  const Index full = domainSpace(facts).index();
  RowValueSite site{true, {}};
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!facts.reduced[d] ? sizes[d] != facts.domain[d]
                          : sizes[d] != facts.domain[d] && sizes[d] != 1)
      return std::nullopt;
    site.index.push_back(facts.reduced[d] ? IndexExpr::constant(0, sizes.size()) : full[d]);
  }
  return site;
}

}  // namespace

kir::Block provideStageResults(PassContext& c, int stage) {
  std::vector<const Expr*> done;
  std::vector<size_t> accumulator;  // the accumulator each of `done` is (its variable's number)
  for (size_t a = 0; a < c.accs.size(); ++a)
    if (c.st.stage[a] < stage) {
      done.push_back(c.accs[a].expr);
      accumulator.push_back(a);
    }
  ElementWriter& w = c.w;
  auto provideResults = [&] {
    provideReducedValues(w, done, c.facts, [&c, accumulator](size_t k, size_t o) {
      return c.state(fmt::format("red{}_{}", accumulator[k], o));
    });
  };
  provideResults();
  kir::Block code;
  if (c.per_column) return code;
  // Row values: each element would compute them again (a log of the row's
  // exp-sum is a call of some 30 instructions, an rstd a reciprocal square
  // root), in every chunk's guarded block, where the compiler does not
  // hoist them. Those sized as the domain (a broadcast rstd plus nothing
  // else) or as the kept dims (a log-sum-exp) are computed here, once a
  // row; the walk reads them through every other shape.
  std::set<const TensorView*> row;
  for (const Expr* r : done)
    for (const Val* o : r->outputs()) row.insert(o->as<TensorView>());
  std::vector<const TensorView*> fresh;
  for (const Expr* e : c.segment.exprs()) {
    if (!computesRowValue(e, row)) continue;
    const auto* tv = e->output(0)->as<TensorView>();
    // A kept value (an exp of a broadcast max, planned before the kernel is
    // written) is stored by the pass that computes it and read back from
    // its array by the later ones: it, and what is computed from it, stay
    // element values.
    if (c.kept.keeps(tv)) continue;
    row.insert(tv);
    const std::vector<int64_t>& sizes = c.facts.sizes.at(tv);
    // Broadcasts, squeezes and copies move a value the walk reads through.
    const bool computes = e->op() == OpType::Unary || e->op() == OpType::Binary ||
                          e->op() == OpType::Ternary || e->op() == OpType::Cast;
    if (computes && c.row_values.count(tv) == 0 && rowValueSite(sizes, c.facts))
      fresh.push_back(tv);
  }
  const IterSpace domain = w.space();
  // The code of `tv`'s value at its site, appended to `code`.
  auto valueAtSite = [&](const TensorView* tv, const RowValueSite& site) {
    w.setSpace(site.in_domain ? domain : keptSpace(c.facts));
    provideResults();
    ScalarPlacement placement(w.space());
    w.sink.reset();
    const kir::Value value = w.value(tv, site.index, placement);
    code.append(w.sink.body);
    return value;
  };
  for (const TensorView* tv : fresh) {
    const kir::Value value = valueAtSite(tv, *rowValueSite(c.facts.sizes.at(tv), c.facts));
    const std::string name = w.sink.newVar("row");
    code.declare(name, kir::named("auto"), value, kir::kConstUnused);
    c.row_values[tv] = name;
    const RowFacts& facts = c.facts;
    w.provide(tv, [&w, &facts, tv, name](const Index& at) {
      const IterSpace& space = w.space();
      if (indexKey(keptComponents(at, facts), space) != indexKey(ownKeptIndex(facts, space), space))
        throw Unschedulable(fmt::format(
            "an element reads {} at another kept element: each thread holds only its own kept "
            "element's row values",
            tv->toString()));
      return kir::var(name);
    });
  }
  // Approximate divisions of elements by a row value (softmax's by the
  // row's sum) prepare the divisor once a row too. The walk still reads the
  // divisor at each element's index, so the row values' own-row check
  // holds for it.
  for (const Expr* e : c.segment.exprs()) {
    if (e->op() != OpType::Binary || !w.approximates(e)) continue;
    const auto* a = dynamic_cast<const TensorView*>(e->input(0));
    const auto* b = dynamic_cast<const TensorView*>(e->input(1));
    if (a == nullptr || b == nullptr || row.count(a) > 0 || row.count(b) == 0 ||
        c.prepared_divisors.count(e) > 0)
      continue;
    const std::optional<RowValueSite> site = rowValueSite(c.facts.sizes.at(b), c.facts);
    if (!site) continue;
    const kir::Value divisor = valueAtSite(b, *site);
    const std::string name = w.sink.newVar("rdiv");
    code.declare(name, kir::named("auto"), kir::prepareDivisor({divisor, b->dtype()}),
                 kir::kConstUnused);
    c.prepared_divisors.insert(e);
    w.divideBy(e, kir::var(name));
  }
  w.sink.reset();
  w.setSpace(domain);
  provideResults();
  return code;
}

kir::Block writeReducedOutputs(PassContext& c) {
  ElementWriter& w = c.w;
  w.setSpace(keptSpace(c.facts));
  provideReducedValues(w, c.st.reductions, c.facts,
                       [&c](size_t a, size_t o) { return c.state(fmt::format("red{}_{}", a, o)); });
  w.sink.reset();
  ScalarPlacement placement(w.space());
  const auto& outputs = c.segment.outputs();
  for (const TensorView* out : c.st.reduced_outputs) {
    const auto o =
        static_cast<size_t>(std::find(outputs.begin(), outputs.end(), out) - outputs.begin());
    w.store(o, w.iterationIndexOf(out), c.facts.output_strides[o], placement);
  }
  return w.sink.body;
}

void writeKernelTop(kir::Block& k, const PersistentParams& p, ParamLayout& layout,
                    const ElementWriter& w, int64_t smem_bytes) {
  k.typeAlias("idx_t", kir::named(p.index32 ? "int32_t" : "int64_t"));
  layout.declarePointers(k);
  for (size_t d = 0; d < p.sizes.size(); ++d) {
    const int di = static_cast<int>(d);
    const bool walked = std::count(p.kept_dims.begin(), p.kept_dims.end(), di) > 0 ||
                        std::count(p.reduced_dims.begin(), p.reduced_dims.end(), di) > 0;
    if (!walked) k.declare(fmt::format("i{}", d), kir::indexType(), kir::lit(0), kir::kConstUnused);
  }
  k.append(w.prologue);
  if (smem_bytes > 0)
    k.declareArray("fusebox_norm_smem", kir::named("unsigned char"), smem_bytes,
                   {.shared = true, .align = 16});
}

}  // namespace fusebox::normalization
