// The shared run-time analysis of row kernels (row_analysis.h).
#include "normalization/row_analysis.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>

#include "kernelgen/shapes.h"
#include "normalization/online_exp_sum.h"
#include "normalization/persistent_writer.h"

namespace fusebox::normalization {

std::string analyzeDomain(const Fusion& segment, const NormalizationStructure& st,
                          RuntimeInfo& info, RowAnalysis& out, PersistentParams& params,
                          const std::vector<const Expr*>& column_reductions,
                          const ShapeChooser& choose, bool reload) {
  if (st.reductions.front()->input(0)->as<TensorView>()->nDims() == 0)
    return "the reductions reduce a rank-0 tensor";
  try {
    out.facts = computeRowFacts(segment, st, st.reductions, info);
  } catch (const UserError& e) {
    return fmt::format("the inputs do not fit the segment: {}", e.what());
  }
  if (std::string problem = rowShapeProblem(st, st.reductions, out.facts); !problem.empty())
    return problem;
  if (std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
    return problem;
  try {
    out.accesses = collectRowAccesses(segment, st, out.facts, info, column_reductions);
  } catch (const Unschedulable& e) {
    return e.what();
  }
  // Reloaded rows read the row once a pass: the stages (a max and its
  // exp-sum merged into one: online_exp_sum.h), a variance's second pass,
  // and the outputs' pass when it writes or accumulates anything.
  params.online_exp_sums.clear();
  int passes = 0;
  std::vector<bool> merged(static_cast<size_t>(st.stages), false);
  if (reload)
    for (const OnlineExpSumPair& pair : onlineExpSums(st)) {
      merged[static_cast<size_t>(st.stage[pair.sum])] = true;
      params.online_exp_sums.push_back(fmt::format("{} and {}",
                                                   st.reductions[pair.max]->output(0)->toString(),
                                                   st.reductions[pair.sum]->output(0)->toString()));
    }
  for (int s = 0; s < st.stages; ++s) {
    if (merged[static_cast<size_t>(s)]) continue;
    bool variance = false;
    for (size_t a = 0; a < st.reductions.size(); ++a)
      variance |= st.stage[a] == s && st.reductions[a]->op() != OpType::Reduction;
    passes += variance ? 2 : 1;
  }
  if (!st.full_outputs.empty() || !column_reductions.empty()) ++passes;
  params.row_reads = std::max(passes, 1);
  const PersistentParams blank = params;
  out.plan = planRowBuffers(out.accesses, out.facts, !reload);
  if (reload) {
    // Nothing kept: every pass loads what it reads (the loads still count,
    // for the heuristics' loads in flight).
    out.plan.cached.clear();
    out.plan.buffers.clear();
    out.plan.bytes_per_row = 0;
  }
  out.shape_problem = choose(out.facts, out.accesses, out.plan, params);
  if (!out.shape_problem.empty() && !out.plan.kept_values.empty()) {
    // Kept values are an optimization: recompute them rather than refuse.
    out.plan = planRowBuffers(out.accesses, out.facts, false);
    params = blank;
    out.shape_problem = choose(out.facts, out.accesses, out.plan, params);
  }
  params.stages = st.stages;
  if (params.row_split > 1) {
    const int64_t state = widestCombinedStateBytes(st, reload);
    if (state > kMaxClusterStateBytes)
      return fmt::format(
          "a reduction state of {} B, wider than the {} B a cluster combine "
          "exchanges",
          state, kMaxClusterStateBytes);
    params.cluster_exchange_bytes = clusterExchangeBytes(params.block[1], state);
  }
  return {};
}

std::string analyzeRows(const Fusion& segment, const NormalizationStructure& rows,
                        RuntimeInfo& info, ForcedShape forced, RowAnalysis& out,
                        PersistentParams& params, const std::vector<const Expr*>& column_reductions,
                        int64_t extra_bytes_per_element) {
  const std::string problem = analyzeDomain(
      segment, rows, info, out, params, column_reductions,
      [&](const RowFacts& facts, const RowAccesses& accesses, const RowBufferPlan& plan,
          PersistentParams& p) {
        return chooseRowShape(facts, accesses, plan, info.device(), p, forced,
                              extra_bytes_per_element);
      },
      forced.placement == BufferPlacement::Reload);
  params.reload = forced.placement == BufferPlacement::Reload;
  return problem;
}

}  // namespace fusebox::normalization
