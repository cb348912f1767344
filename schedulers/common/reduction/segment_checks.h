// The checks every reducing segment passes alike, whichever scheduler asks:
// the reduction scheduler and the persistent ones refuse the same segments
// for the same reasons, in the same words (each names itself as `who`).
#pragma once

#include <fusebox/scheduler.h>

#include "kernelgen/op_support.h"

#include <string>
#include <vector>

namespace fusebox::reduction {

// Refuses scalar outputs, outputs written into an input, ops no generated
// kernel supports (loads at run-time indices unless `indirect` says the
// scheduler's kernels have them) and matmuls; collects the reductions
// (Reduction, Var, VarMean, Welford) in topological order into
// `reductions`, and refuses a segment without one. `who`: the scheduler, as
// the reasons name it.
Decision collectReductions(const Fusion& segment, const std::string& who,
                           std::vector<const Expr*>& reductions,
                           kernelgen::IndirectLoads indirect = kernelgen::IndirectLoads::Refused);

// Every reduction of `reds` reduces the same axes of an input of the same
// rank; `rule` ends the reason ("one kernel reduces one ...").
Decision sameReducedAxes(const std::vector<const Expr*>& reds, const std::string& rule);

// The generated kernel's limits: its size, and its parameters with the one
// pointer more a split over blocks adds (kernelgen/kernel_params.h).
Decision kernelLimits(const Fusion& segment);

}  // namespace fusebox::reduction
