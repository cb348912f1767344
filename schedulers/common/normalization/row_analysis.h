// The run-time analysis every row-walking persistent scheduler makes, in
// order: the sizes (rows, columns, outputs), the input layouts, the access
// walk, the persistent buffers and the row shape. Inner persistent runs it
// on the whole segment; inner-outer on its row part, with the column
// reductions read in the outputs' pass.
#pragma once

#include <fusebox/scheduler.h>

#include <functional>
#include <string>
#include <vector>

#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"
#include "normalization/row_heuristics.h"
#include "normalization/structure.h"

namespace fusebox::normalization {

struct RowAnalysis {
  RowFacts facts;
  RowAccesses accesses;
  RowBufferPlan plan;
  // Why the row's buffers do not fit on chip, or "" (then `params` holds
  // the row shape).
  std::string shape_problem;
};

// Chooses the kernel's shape into `params` from the walk's results;
// returns why the buffers do not fit on chip, or "".
using ShapeChooser = std::function<std::string(const RowFacts&, const RowAccesses&,
                                               const RowBufferPlan&, PersistentParams&)>;

// The steps every persistent scheduler takes, whichever way its kernel
// walks the domain: the sizes, layouts, access walk and buffers, then
// `choose` (again without kept values when they do not fit; with `reload`,
// no buffers at all). Returns why the
// segment is not a persistent kernel of `st`, or "".
std::string analyzeDomain(const Fusion& segment, const NormalizationStructure& st,
                          RuntimeInfo& info, RowAnalysis& out, PersistentParams& params,
                          const std::vector<const Expr*>& column_reductions,
                          const ShapeChooser& choose, bool reload = false);

// analyzeDomain with the row shape (row_heuristics.h). `params`
// receives the row shape; `extra_bytes_per_element` are registers each
// element costs beside the buffers (column accumulators).
std::string analyzeRows(const Fusion& segment, const NormalizationStructure& rows,
                        RuntimeInfo& info, ForcedShape forced, RowAnalysis& out,
                        PersistentParams& params,
                        const std::vector<const Expr*>& column_reductions = {},
                        int64_t extra_bytes_per_element = 0);

}  // namespace fusebox::normalization
