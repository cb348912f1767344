// Run-time facts of a persistent segment whose reductions reduce rows (the
// Inner structure, and the inner part of InnerOuter): the reduction domain,
// the sizes of every tensor, and every memory access the kernel's stages make
// (what the buffer analysis and the heuristics read).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "kernelgen/index_math.h"
#include "kernelgen/shapes.h"
#include "normalization/structure.h"

namespace fusebox::normalization {

// A segment the persistent kernels cannot generate (an element that reads
// the reduced value of another kept element...): the run-time check turns it
// into a rejection with its message.
class Unschedulable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RowFacts {
  kernelgen::TensorSizes sizes;
  std::vector<int64_t> domain;  // the row reductions' input sizes
  std::vector<bool> reduced;    // per dim of `domain`
  int64_t kept_extent = 1, reduced_extent = 1;
  std::vector<std::vector<int64_t>> output_strides;  // per segment output
};

// Throws UserError when the inputs do not fit the segment.
RowFacts computeRowFacts(const Fusion& segment, const NormalizationStructure& st,
                         const std::vector<const Expr*>& row_reductions, RuntimeInfo& info);

// Why the sizes are not one row structure (reductions of different domains,
// outputs of neither the full nor the reduced domain...), or "".
std::string rowShapeProblem(const NormalizationStructure& st,
                            const std::vector<const Expr*>& row_reductions, const RowFacts& facts);

// The reduction domain as the kernels name it: i0, i1, ...
kernelgen::IterSpace domainSpace(const RowFacts& facts);
// The kept dims of the domain (the epilogue's space), named as in domainSpace.
kernelgen::IterSpace keptSpace(const RowFacts& facts);
// The components of `at` (an index over the domain, or over the kept dims)
// that name the kept element.
kernelgen::Index keptComponents(const kernelgen::Index& at, const RowFacts& facts);
// The index a reduction output (kept dims only) is read at by the element
// of the domain space the kernel is at: its own kept element.
kernelgen::Index ownKeptIndex(const RowFacts& facts, const kernelgen::IterSpace& space);

// Orders tensors by name, so what a kernel is generated from never depends
// on addresses.
struct ByName {
  bool operator()(const TensorView* a, const TensorView* b) const { return a->name() < b->name(); }
};

// Every access of the kernel's passes over the row, walked once with scalar
// accesses: pass 2s reads the inputs of the stage-s reductions, pass 2s + 1
// those of its variances again (their sum of squared deviations from the
// mean pass 2s found), pass 2 * stages what the full-domain outputs need,
// and writes them (and, in inner-outer kernels, reads the inputs of the
// column reductions).
struct RowAccesses {
  std::vector<kernelgen::Access> accesses;
  std::vector<int> pass;  // per access
  int64_t epilogue_max_offset = 0;
  // Full-domain tensors computed at the element itself (outside any pad or
  // cat bound check), with the passes that compute them: one computed again
  // in a later pass may be kept from its first instead.
  std::map<const TensorView*, std::set<int>, ByName> computed;
};
// Throws Unschedulable when an element reads a reduced value of another
// kept element.
RowAccesses collectRowAccesses(const Fusion& segment, const NormalizationStructure& st,
                               const RowFacts& facts, RuntimeInfo& info,
                               const std::vector<const Expr*>& column_reductions = {});

// The key the cache placement and the buffer analysis share for a load.
std::string accessKey(const TensorView* tv, const kernelgen::IndexExpr& offset,
                      const kernelgen::IterSpace& space);

}  // namespace fusebox::normalization

namespace fusebox::kernelgen {
class ElementWriter;
}

namespace fusebox::normalization {

// Makes every output of `reductions` a value source of `w` in its current
// space (the domain or the kept space): reduction a's output o reads as
// value(a, o), at the element's own kept element only (else Unschedulable).
void provideReducedValues(kernelgen::ElementWriter& w, const std::vector<const Expr*>& reductions,
                          const RowFacts& facts,
                          const std::function<kir::Value(size_t, size_t)>& value);

}  // namespace fusebox::normalization
