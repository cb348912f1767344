// The shape of a reduction segment, from the IR alone: which exprs reduce,
// over which axes of their common input domain, and which tensors are
// computed before the reductions (the prologue, over the reduction input's
// domain) or after them (the epilogue, over the reduced domain).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace fusebox::reduction {

struct ReductionStructure {
  // Reduction, Var, VarMean and Welford exprs, in topological order.
  std::vector<const Expr*> reductions;
  // Rank of every reduction's input (non-reduction dims) and the reduced
  // axes, shared by every reduction of the segment.
  int64_t rank = 0;
  std::vector<int64_t> axes;
  // Tensors computed from a reduction's output (the epilogue), reduction
  // outputs included.
  std::unordered_set<const TensorView*> after;
  // Segment outputs outside `after`: written by the reducing loop over the
  // reduction input's domain (pointwise outputs beside the reduction).
  std::vector<const TensorView*> loop_outputs;
  // Segment outputs in `after`: written once per reduced element.
  std::vector<const TensorView*> reduced_outputs;
};

// Accepts a segment whose reductions share one input domain and one set of
// axes, and whose epilogue never combines a reduced value with an unreduced
// one (a persistent buffer: the persistent schedulers' job). `out` is filled
// when accepted.
Decision analyzeStructure(const Fusion& segment, ReductionStructure& out);

}  // namespace fusebox::reduction
