// The shared run-time analysis of row kernels (row_analysis.h).
#include "normalization/row_analysis.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include "kernelgen/shapes.h"

namespace fusebox::normalization {

std::string analyzeRows(const Fusion& segment, const NormalizationStructure& rows,
                        RuntimeInfo& info, ForcedShape forced, RowAnalysis& out,
                        PersistentParams& params, const std::vector<const Expr*>& column_reductions,
                        int64_t extra_bytes_per_element) {
  if (rows.reductions.front()->input(0)->as<TensorView>()->nDims() == 0)
    return "the reductions reduce a rank-0 tensor";
  try {
    out.facts = computeRowFacts(segment, rows, rows.reductions, info);
  } catch (const UserError& e) {
    return fmt::format("the inputs do not fit the segment: {}", e.what());
  }
  if (std::string problem = rowShapeProblem(rows, rows.reductions, out.facts); !problem.empty())
    return problem;
  if (std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
    return problem;
  try {
    out.accesses = collectRowAccesses(segment, rows, out.facts, info, column_reductions);
  } catch (const Unschedulable& e) {
    return e.what();
  }
  const PersistentParams blank = params;
  out.plan = planRowBuffers(out.accesses, out.facts);
  out.shape_problem = chooseRowShape(out.facts, out.accesses, out.plan, info.device(), params,
                                     forced, extra_bytes_per_element);
  if (!out.shape_problem.empty() && !out.plan.kept_values.empty()) {
    // Kept values are an optimization: recompute them rather than refuse.
    out.plan = planRowBuffers(out.accesses, out.facts, false);
    params = blank;
    out.shape_problem = chooseRowShape(out.facts, out.accesses, out.plan, info.device(), params,
                                       forced, extra_bytes_per_element);
  }
  params.stages = rows.stages;
  return {};
}

}  // namespace fusebox::normalization
