// The scan scheduler's structure, facts and params (scan_analysis.h).
#include "scan_analysis.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/op_support.h"
#include "kernelgen/placement.h"
#include "kernelgen/size_literals.h"

namespace fusebox::scan {

using namespace fusebox::kernelgen;

Decision analyzeScan(const Fusion& segment, ScanStructure& out) {
  for (const Val* o : segment.outputs())
    if (!o->isTensor()) return Decision::reject("the segment has a scalar output");
  if (std::string problem = kernelSizeProblem(segment); !problem.empty())
    return Decision::reject(problem);
  std::unordered_set<const Val*> after_scan;
  for (const Expr* e : segment.exprs()) {
    bool reads_scan = false;
    for (const Val* in : e->inputs()) reads_scan |= after_scan.count(in) != 0;
    if (reads_scan) {
      // Each thread holds the running value of its own positions alone, so a
      // pad, slice, permute or indexing op reading the scan's values
      // elsewhere would read the wrong one.
      if (!isElementwise(e->op()))
        return Decision::reject(fmt::format(
            "{} (expr {}) reads the scan's running values, and not only at its own position; a "
            "block scan holds each position's value in one thread, so only elementwise ops may "
            "follow the scan",
            e->opName(), e->name()));
      for (const Val* o : e->outputs()) after_scan.insert(o);
    }
    switch (e->op()) {
      case OpType::Scan: {
        if (out.scan != nullptr)
          return Decision::reject(
              fmt::format("{} (expr {}) is a second scan; one kernel scans one tensor", e->opName(),
                          e->name()));
        const auto* in = e->input(0)->as<TensorView>();
        const int64_t rank = static_cast<int64_t>(in->logicalNoReductions().size());
        if (e->attr<ScanAttr>().dim != rank - 1)
          return Decision::reject(fmt::format(
              "{} (expr {}) scans dim {} of a rank-{} tensor; block scans take the innermost "
              "dim only (it runs on expr_eval)",
              e->opName(), e->name(), e->attr<ScanAttr>().dim, rank));
        out.scan = e;
        out.input = in;
        out.output = e->output(0)->as<TensorView>();
        after_scan.insert(out.output);
        continue;
      }
      case OpType::Reduction:
      case OpType::Var:
      case OpType::VarMean:
      case OpType::Welford:
      case OpType::Matmul:
      case OpType::Linear:
        return Decision::reject(fmt::format(
            "{} (expr {}) is not elementwise; scan kernels hold one scan and elementwise ops",
            e->opName(), e->name()));
      default:
        break;
    }
    if (std::string problem = unsupportedOpProblem(e, IndirectLoads::Supported); !problem.empty())
      return Decision::reject(problem);
  }
  if (out.scan == nullptr) return Decision::reject("the segment has no scan");
  return Decision::accept();
}

ScanFacts computeScanFacts(const Fusion& segment, const ScanStructure& st, RuntimeInfo& info) {
  ScanFacts f;
  f.sizes = tensorSizes(segment, info);
  f.iter_sizes = f.sizes.at(st.output);
  f.row_extent = f.iter_sizes.empty() ? 1 : f.iter_sizes.back();
  f.rows = 1;
  for (size_t d = 0; d + 1 < f.iter_sizes.size(); ++d) {
    const auto rows = checked::mul(f.rows, f.iter_sizes[d]);
    FUSEBOX_USER_CHECK(rows.has_value(), "{}: the rows of {} overflow int64", st.scan->opName(),
                       st.output->toString());
    f.rows = *rows;
  }
  for (const Val* o : segment.outputs()) {
    const auto* tv = o->as<TensorView>();
    f.output_strides.push_back(outputStrides(segment, tv, f.sizes.at(tv)));
  }
  return f;
}

std::vector<Access> collectScanAccesses(const Fusion& segment, const ScanStructure& st,
                                        const ScanFacts& facts, RuntimeInfo& info) {
  const ParamLayout params(segment);
  SizeLiterals lits(ShapeMode::Static, params.intSlots(), true);
  IterSpace space = IterSpace::named(facts.iter_sizes);
  space.literals = &lits;
  ElementWriter w(segment, facts.sizes, params, info, std::move(space));
  w.provide(st.output, [](const Index&) { return kir::var("scanned"); });
  ScalarPlacement scalar(w.space());
  w.value(st.input, w.space().index(), scalar);
  w.storeOutputs(facts.output_strides, scalar);
  return w.accesses();
}

uint64_t ScanParams::hash() const {
  return std::hash<std::string>()(toString());
}

bool ScanParams::sameAs(const HeuristicParams& other) const {
  const auto* o = dynamic_cast<const ScanParams*>(&other);
  return o != nullptr && o->toString() == toString();
}

std::string ScanParams::toString() const {
  return fmt::format(
      "op: {}\naccumulate: {}\niter_sizes: [{}]\nrows: {}\nrow_extent: {}\nvector_width: {}\n"
      "threads: {}\nchunk: {}\nindex_type: {}",
      op, computeTypeName(accumulate), fmt::join(iter_sizes, ", "), rows, row_extent, vector_width,
      threads, chunk(), index32 ? "int32" : "int64");
}

ScanParams computeScanParams(const ScanStructure& st, const ScanFacts& facts,
                             const std::vector<Access>& accesses, int max_threads) {
  ScanParams p;
  p.op = std::string(toString(st.scan->attr<ScanAttr>().op));
  p.accumulate = st.output->dtype();
  p.iter_sizes = facts.iter_sizes;
  p.rows = facts.rows;
  p.row_extent = facts.row_extent;
  const size_t rank = facts.iter_sizes.size();
  // Each dim its own merged dim (scan_kernel.cpp): the row's the innermost.
  std::vector<std::vector<int>> groups;
  for (size_t d = 0; d < rank; ++d) groups.push_back({static_cast<int>(d)});
  auto contiguous = [&](const Access& a) {
    return rank > 0 && !a.conditional && a.offset.affine && a.offset.a.coef[rank - 1] == 1;
  };
  int width = 1;
  if (rank > 0 && facts.row_extent > 1) {
    width = 16;
    for (const Access& a : accesses)
      if (contiguous(a)) width = std::min<int>(width, static_cast<int>(16 / a.element_size));
    auto fits = [&](int v) {
      if (facts.row_extent % v != 0) return false;
      for (const Access& a : accesses)
        if (contiguous(a) && !vectorAligned(a.offset.a, a.alignment, a.element_size, groups, v))
          return false;
      return true;
    };
    while (width > 1 && !fits(width)) width /= 2;
  }
  p.vector_width = width;
  const int64_t per_thread = (facts.row_extent + width - 1) / width;
  const int64_t warps = std::clamp<int64_t>((per_thread + 31) / 32, 1, max_threads / 32);
  p.threads = static_cast<int>(warps * 32);
  int64_t largest = 0;
  for (const auto& [tv, sizes] : facts.sizes) {
    int64_t n = 1;
    for (int64_t s : sizes) n = checked::mul(n, s).value_or(INT64_MAX);
    largest = std::max(largest, n);
  }
  for (const Access& a : accesses) largest = std::max(largest, a.max_offset + 1);
  // Chunk starts run past the row by up to a chunk.
  p.index32 = largest + p.chunk() < (int64_t{1} << 31);
  return p;
}

Decision checkScanRunTime(const Fusion& segment, const ScanStructure& st, const ScanFacts& facts,
                          RuntimeInfo& info) {
  if (const std::string problem = uncheckedIndicesProblem(segment, info); !problem.empty())
    return Decision::reject(problem);
  if (facts.rows == 0 || facts.row_extent == 0)
    return Decision::reject(
        fmt::format("{} has no elements; nothing to scan", st.output->toString()));
  for (const Val* o : segment.outputs())
    if (facts.sizes.at(o->as<TensorView>()) != facts.iter_sizes)
      return Decision::reject(fmt::format(
          "output {} has sizes [{}], the scan's are [{}]; one block writes one row of each",
          o->toString(), fmt::join(facts.sizes.at(o->as<TensorView>()), ", "),
          fmt::join(facts.iter_sizes, ", ")));
  if (facts.rows >= (int64_t{1} << 31))
    return Decision::reject(
        fmt::format("{} rows need more than 2^31 - 1 blocks (one per row)", facts.rows));
  if (std::string problem = inputLayoutProblem(segment, info); !problem.empty())
    return Decision::reject(problem);
  if (std::string problem = paramLimitProblem(segment); !problem.empty())
    return Decision::reject(problem);
  return Decision::accept();
}

}  // namespace fusebox::scan
