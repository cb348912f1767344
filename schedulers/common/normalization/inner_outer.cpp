// The row part and column part of an InnerOuter segment (inner_outer.h).
#include "normalization/inner_outer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/checked_math.h>

#include <algorithm>
#include <unordered_set>

#include "reduction/accumulator.h"

namespace fusebox::normalization {

using reduction::accumulatorFor;
using reduction::isReductionExpr;
using reduction::reducedAxes;

namespace {

// Tensors computed (transitively) from any of `roots`' outputs, not through
// the exprs of `barriers` (a column reduction of a row-part value holds
// only column values).
std::unordered_set<const Val*> dependentsOf(const std::vector<Expr*>& exprs,
                                            const std::vector<const Expr*>& roots,
                                            const std::vector<const Expr*>& barriers = {}) {
  std::unordered_set<const Val*> out;
  for (const Expr* r : roots)
    for (const Val* o : r->outputs()) out.insert(o);
  for (const Expr* e : exprs) {
    if (std::find(barriers.begin(), barriers.end(), e) != barriers.end()) continue;
    const bool reads = std::any_of(e->inputs().begin(), e->inputs().end(),
                                   [&](const Val* in) { return out.count(in) > 0; });
    if (reads)
      for (const Val* o : e->outputs()) out.insert(o);
  }
  return out;
}

}  // namespace

Decision splitInnerOuter(const Fusion& segment, const NormalizationStructure& st,
                         InnerOuterParts& out) {
  out = InnerOuterParts{};
  NormalizationStructure& rows = out.rows;
  rows.type = ReductionType::Inner;
  rows.reduced_domain = st.reduced_domain;
  rows.persistent_witness = st.persistent_witness;
  rows.full_outputs = st.full_outputs;
  for (size_t k = 0; k < st.reductions.size(); ++k) {
    if (st.types[k] == ReductionType::Outer) {
      out.column_reductions.push_back(st.reductions[k]);
      continue;
    }
    rows.reductions.push_back(st.reductions[k]);
    rows.stage.push_back(st.stage[k]);
    rows.types.push_back(ReductionType::Inner);
    rows.stages = std::max(rows.stages, st.stage[k] + 1);
  }
  const Expr* inner = rows.reductions.front();
  const int64_t rank = inner->input(0)->as<TensorView>()->nDims();
  for (const Expr* c : out.column_reductions) {
    const int64_t crank = c->input(0)->as<TensorView>()->nDims();
    std::vector<int64_t> complement;
    for (int64_t d = 0; d < rank; ++d)
      if (std::count(reducedAxes(inner).begin(), reducedAxes(inner).end(), d) == 0)
        complement.push_back(d);
    if (crank != rank || reducedAxes(c) != complement)
      return Decision::reject(fmt::format(
          "{} (expr {}) reduces axes {} of a rank-{} input, but the rows of {} (expr {}) are "
          "axes {} of a rank-{} input; one kernel reduces the rows of the domain whose columns "
          "it reduces",
          c->opName(), c->name(), reducedAxes(c), crank, inner->opName(), inner->name(), complement,
          rank));
    if (accumulatorFor(c).welford)
      return Decision::reject(fmt::format(
          "{} (expr {}) is a variance over the rows; the column part sums, or takes extremes, "
          "only (not implemented)",
          c->opName(), c->name()));
  }
  const std::vector<Expr*> exprs = segment.exprs();
  const std::unordered_set<const Val*> from_columns = dependentsOf(exprs, out.column_reductions);
  const std::unordered_set<const Val*> from_rows =
      dependentsOf(exprs, rows.reductions, out.column_reductions);
  for (const Expr* r : rows.reductions)
    if (from_columns.count(r->input(0)) > 0)
      return Decision::reject(fmt::format(
          "{} (expr {}) reads a reduction over the rows: it needs the whole grid's column "
          "results in the middle of the rows",
          r->opName(), r->name()));
  for (const TensorView* tv : st.full_outputs)
    if (from_columns.count(tv) > 0)
      return Decision::reject(fmt::format(
          "output {} combines a reduction over the rows with the full domain (the "
          "outer_persistent pattern): inner-outer kernels write the full domain while the column "
          "sums are still partial",
          tv->toString()));
  for (const TensorView* tv : st.reduced_outputs) {
    const bool col = from_columns.count(tv) > 0, row = from_rows.count(tv) > 0;
    if (col && row)
      return Decision::reject(
          fmt::format("output {} combines reductions over the rows with reductions of each row",
                      tv->toString()));
    (col ? out.column_outputs : rows.reduced_outputs).push_back(tv);
  }
  return Decision::accept();
}

std::string columnShapeProblem(const InnerOuterParts& parts, const RowFacts& facts) {
  for (const Expr* c : parts.column_reductions) {
    const auto* in = c->input(0)->as<TensorView>();
    if (facts.sizes.at(in) != facts.domain)
      return fmt::format(
          "{} has sizes [{}] but the rows' domain is [{}]; one kernel reduces one "
          "domain",
          in->toString(), fmt::join(facts.sizes.at(in), ", "), fmt::join(facts.domain, ", "));
  }
  for (const TensorView* tv : parts.column_outputs) {
    const int64_t n = checked::orThrow(checked::product(facts.sizes.at(tv)), "an output's size");
    if (n != facts.reduced_extent)
      return fmt::format(
          "output {} is computed from reductions over the rows but has {} "
          "elements, not the {} columns",
          tv->toString(), n, facts.reduced_extent);
  }
  return {};
}

kernelgen::IterSpace columnSpace(const RowFacts& facts) {
  kernelgen::IterSpace s;
  for (size_t d = 0; d < facts.domain.size(); ++d)
    if (facts.reduced[d]) {
      s.sizes.push_back(facts.domain[d]);
      s.names.push_back(fmt::format("i{}", d));
    }
  return s;
}

}  // namespace fusebox::normalization
