// What the persistent schedulers know about a segment from its IR alone: its
// reductions, the stage each runs in (a reduction that reads another's result
// runs after it), which tensors live in the reduced domain, and the reduction
// type that decides which persistent scheduler owns the segment.
//
// Every reduction's type comes from the fastest dim of its input, judged on
// the logical domain (as nvFuser does): Inner when it is reduced (a row is
// reduced: softmax, layernorm), Outer when it is kept (a column is reduced:
// batch-norm statistics). A segment with both is InnerOuter (layernorm
// backward: grad input reduces rows, grad weight and grad bias columns).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fusebox::normalization {

enum class ReductionType { Inner, Outer, InnerOuter };
const char* toString(ReductionType t);
// The scheduler that owns a type: "inner_persistent", ...
const char* ownerOf(ReductionType t);

struct NormalizationStructure {
  // Reduction, Var, VarMean and Welford exprs, in topological order.
  std::vector<const Expr*> reductions;
  // Per reduction: the stage it accumulates in (0: reads no reduced value;
  // s: reads the result of a stage s - 1 reduction) and its own type.
  std::vector<int> stage;
  std::vector<ReductionType> types;
  int stages = 0;  // 1 + the largest stage
  ReductionType type = ReductionType::Inner;
  // Tensors of the reduced domain: reduction outputs and what elementwise
  // ops, casts, broadcasts, squeezes and reshapes compute from them alone.
  // Segment outputs among them are written once per kept element.
  std::unordered_set<const TensorView*> reduced_domain;
  std::vector<const TensorView*> reduced_outputs;  // in segment output order
  // The other outputs: written once per element of the reduction domain.
  std::vector<const TensorView*> full_outputs;
  // The first full-domain tensor computed from a reduced value (what makes
  // the segment persistent), or null.
  const TensorView* persistent_witness = nullptr;

  // The reductions of `type` (the inner ones, or the outer ones).
  std::vector<const Expr*> reductionsOf(ReductionType type) const;
};

// The checks every persistent scheduler shares, from the IR alone, in order
// of cost: outputs, ops, a reduction present, its type being `mine` (the
// quick rejection that sends a segment to its owner), a persistent value,
// one reduction structure per type, and the kernel size limits. `out` is
// filled when accepted.
Decision analyzeCompileTime(const Fusion& segment, ReductionType mine, NormalizationStructure& out);

}  // namespace fusebox::normalization
