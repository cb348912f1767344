// Run-time facts and the access walk of row-persistent kernels (row_facts.h).
#include "normalization/row_facts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/checked_math.h>

#include <algorithm>

#include "kernel_ir/print_cuda.h"
#include "kernelgen/element_writer.h"
#include "reduction/accumulator.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

int64_t numel(const std::vector<int64_t>& sizes, const char* what) {
  return checked::orThrow(checked::product(sizes), what);
}

}  // namespace

RowFacts computeRowFacts(const Fusion& segment, const NormalizationStructure& st,
                         const std::vector<const Expr*>& row_reductions, RuntimeInfo& info) {
  (void)st;
  RowFacts facts;
  facts.sizes = tensorSizes(segment, info);
  const Expr* first = row_reductions.front();
  facts.domain = facts.sizes.at(first->input(0)->as<TensorView>());
  facts.reduced.assign(facts.domain.size(), false);
  for (int64_t a : reducedAxes(first)) facts.reduced.at(static_cast<size_t>(a)) = true;
  for (size_t d = 0; d < facts.domain.size(); ++d)
    (facts.reduced[d] ? facts.reduced_extent : facts.kept_extent) = checked::orThrow(
        checked::mul(facts.reduced[d] ? facts.reduced_extent : facts.kept_extent, facts.domain[d]),
        "persistent: the reduction domain's extent");
  for (const Val* out : segment.outputs()) {
    const auto* tv = out->as<TensorView>();
    facts.output_strides.push_back(outputStrides(segment, tv, facts.sizes.at(tv)));
  }
  return facts;
}

std::string rowShapeProblem(const NormalizationStructure& st,
                            const std::vector<const Expr*>& row_reductions, const RowFacts& facts) {
  for (const Expr* r : row_reductions) {
    const auto* in = r->input(0)->as<TensorView>();
    if (facts.sizes.at(in) != facts.domain)
      return fmt::format("{} has sizes [{}] but {} has [{}]; one kernel reduces one domain",
                         in->toString(), fmt::join(facts.sizes.at(in), ", "),
                         row_reductions.front()->input(0)->toString(),
                         fmt::join(facts.domain, ", "));
    if (facts.reduced_extent == 0 && r->op() == OpType::Reduction &&
        (r->attr<ReductionAttr>().op == ReductionOpType::Max ||
         r->attr<ReductionAttr>().op == ReductionOpType::Min))
      return fmt::format(
          "{} of an empty set ({} reduces no elements): an error, as in PyTorch, which the "
          "evaluator reports",
          toString(r->attr<ReductionAttr>().op), r->output(0)->toString());
  }
  const int64_t domain = numel(facts.domain, "persistent: the reduction domain");
  for (const TensorView* tv : st.reduced_outputs)
    if (numel(facts.sizes.at(tv), "persistent: an output") != facts.kept_extent)
      return fmt::format(
          "output {} is computed from reduced values alone but has {} elements, not the {} kept "
          "elements",
          tv->toString(), numel(facts.sizes.at(tv), "persistent: an output"), facts.kept_extent);
  for (const TensorView* tv : st.full_outputs)
    if (numel(facts.sizes.at(tv), "persistent: an output") != domain)
      return fmt::format(
          "output {} has {} elements but the reduction domain {}; the kernel writes one output "
          "element per element of the domain",
          tv->toString(), numel(facts.sizes.at(tv), "persistent: an output"), domain);
  return {};
}

// The persistent kernels bake their sizes in as literals whatever
// RuntimeInfo::shapeMode() asks (their spaces have no SizeLiterals,
// kernelgen/size_literals.h): ShapeMode::Symbolic is not supported here yet,
// so the runtime compiles them per size, as for Static.
IterSpace domainSpace(const RowFacts& facts) {
  return IterSpace::named(facts.domain, "i");
}

IterSpace keptSpace(const RowFacts& facts) {
  IterSpace s;
  for (size_t d = 0; d < facts.domain.size(); ++d)
    if (!facts.reduced[d]) {
      s.sizes.push_back(facts.domain[d]);
      s.names.push_back(fmt::format("i{}", d));
    }
  return s;
}

Index keptComponents(const Index& at, const RowFacts& facts) {
  if (at.size() != facts.domain.size()) return at;  // already over the kept dims
  Index out;
  for (size_t d = 0; d < at.size(); ++d)
    if (!facts.reduced[d]) out.push_back(at[d]);
  return out;
}

Index ownKeptIndex(const RowFacts& facts, const IterSpace& space) {
  return keptComponents(space.index(), facts);
}

void provideReducedValues(ElementWriter& w, const std::vector<const Expr*>& reductions,
                          const RowFacts& facts,
                          const std::function<kir::Value(size_t, size_t)>& value_of) {
  const IterSpace space = w.space();
  const std::string own = indexKey(ownKeptIndex(facts, space), space);
  for (size_t a = 0; a < reductions.size(); ++a)
    for (size_t o = 0; o < reductions[a]->outputs().size(); ++o) {
      const auto* tv = reductions[a]->output(o)->as<TensorView>();
      const kir::Value value = value_of(a, o);
      w.provide(tv, [tv, value, own, space](const Index& at) {
        if (indexKey(at, space) != own)
          throw Unschedulable(fmt::format(
              "an element reads {} at another kept element ({} instead of {}): each thread "
              "holds only its own kept element's reduced values",
              tv->toString(), indexKey(at, space), own));
        return value;
      });
    }
}

std::string accessKey(const TensorView* tv, const IndexExpr& offset, const IterSpace& space) {
  return fmt::format("{}@{}", tv->name(), kir::printValue(offset.value(space)));
}

RowAccesses collectRowAccesses(const Fusion& segment, const NormalizationStructure& st,
                               const RowFacts& facts, RuntimeInfo& info,
                               const std::vector<const Expr*>& column_reductions) {
  ParamLayout layout(segment);
  ElementWriter w(segment, facts.sizes, layout, info, domainSpace(facts));
  ScalarPlacement placement(w.space());
  RowAccesses out;
  int pass = 0;
  auto note = [&](int done) {
    out.pass.resize(w.accesses().size(), done);
    pass = done + 1;
  };
  const std::string own = indexKey(w.space().index(), w.space());
  w.observe([&](const TensorView* tv, const Index& idx, const kir::Value&, bool in_branch) {
    if (!in_branch && !tv->isFusionInput() && facts.sizes.at(tv) == facts.domain &&
        indexKey(idx, w.space()) == own)
      out.computed[tv].insert(pass);
  });
  for (int s = 0; s <= st.stages; ++s) {
    w.beginElement();
    std::vector<const Expr*> done;
    for (size_t a = 0; a < st.reductions.size(); ++a)
      if (st.stage[a] < s) done.push_back(st.reductions[a]);
    provideReducedValues(w, done, facts, [](size_t, size_t) { return kir::lit(0); });
    if (s < st.stages) {
      for (size_t a = 0; a < st.reductions.size(); ++a)
        if (st.stage[a] == s) {
          const auto* in = st.reductions[a]->input(0)->as<TensorView>();
          w.value(in, w.iterationIndexOf(in), placement);
        }
      note(2 * s);
      // The second pass of the variances (sum of squared deviations).
      w.beginElement();
      for (size_t a = 0; a < st.reductions.size(); ++a)
        if (st.stage[a] == s && reduction::accumulatorFor(st.reductions[a]).welford) {
          const auto* in = st.reductions[a]->input(0)->as<TensorView>();
          w.value(in, w.iterationIndexOf(in), placement);
        }
      note(2 * s + 1);
    } else {
      for (size_t k = 0; k < segment.outputs().size(); ++k) {
        const auto* tv = segment.outputs()[k]->as<TensorView>();
        if (st.reduced_domain.count(tv) == 0)
          w.store(k, w.iterationIndexOf(tv), facts.output_strides[k], placement);
      }
      for (const Expr* c : column_reductions) {
        const auto* in = c->input(0)->as<TensorView>();
        w.value(in, w.iterationIndexOf(in), placement);
      }
      note(2 * s);
    }
  }
  w.observe(nullptr);
  out.accesses = w.accesses();
  const size_t loop_count = out.accesses.size();
  w.setSpace(keptSpace(facts));
  provideReducedValues(w, st.reductions, facts, [](size_t, size_t) { return kir::lit(0); });
  ScalarPlacement kept_placement(w.space());
  for (const TensorView* tv : st.reduced_outputs) {
    const auto k =
        static_cast<size_t>(std::find(segment.outputs().begin(), segment.outputs().end(), tv) -
                            segment.outputs().begin());
    w.store(k, w.iterationIndexOf(tv), facts.output_strides[k], kept_placement);
  }
  for (size_t a = loop_count; a < w.accesses().size(); ++a)
    out.epilogue_max_offset = std::max(out.epilogue_max_offset, w.accesses()[a].max_offset);
  return out;
}

}  // namespace fusebox::normalization
