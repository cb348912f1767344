// Splitting an InnerOuter segment (layernorm and RMSNorm backward) into the
// two parts one kernel runs: the row part, a row-persistent normalization of
// its own (grad input: each row reduced, then combined with the row), and
// the column part, reductions over the rows (grad weight, grad bias) whose
// results only feed the outputs of the column space. The kernel accumulates
// the column part per thread while it walks its rows, then combines the
// blocks' partial sums after a grid barrier.
#pragma once

#include <fusebox/scheduler.h>

#include <string>
#include <vector>

#include "normalization/row_facts.h"
#include "normalization/structure.h"

namespace fusebox::normalization {

struct InnerOuterParts {
  // The row part as a structure of its own: the inner reductions, their
  // stages, the outputs of the full domain and of the row's reduced values.
  NormalizationStructure rows;
  // The outer reductions (column part) and the outputs computed from them.
  std::vector<const Expr*> column_reductions;
  std::vector<const TensorView*> column_outputs;  // in segment output order
};

// From the IR alone. Rejects, with the reason, a column reduction that the
// row part reads (it would need the whole grid's result in the middle of
// the rows: the outer_persistent pattern), an output that mixes row and
// column values, variances over the rows, and column reductions that do not
// reduce exactly the rows of the row part's domain.
Decision splitInnerOuter(const Fusion& segment, const NormalizationStructure& st,
                         InnerOuterParts& out);

// Run-time sizes: every column reduction reads the row domain; every column
// output has one element per column. "" when they fit.
std::string columnShapeProblem(const InnerOuterParts& parts, const RowFacts& facts);

// The column space (the row domain's reduced dims, named as in
// domainSpace) and a column output's strides.
kernelgen::IterSpace columnSpace(const RowFacts& facts);

}  // namespace fusebox::normalization
