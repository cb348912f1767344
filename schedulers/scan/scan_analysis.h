// What the scan scheduler takes and the choices it makes: one cumsum,
// cumprod, cummax or cummin along the innermost dim of its input, with the
// elementwise ops that feed it and consume it, every output of the scan's
// shape. One block scans one row (the innermost dim) in chunks of
// threads x vector_width elements, carrying the running value from chunk to
// chunk (scan_kernel.h).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "kernelgen/shapes.h"

namespace fusebox::scan {

struct ScanStructure {
  const Expr* scan = nullptr;
  const TensorView* input = nullptr;   // what is scanned
  const TensorView* output = nullptr;  // the running values
};

// The structure, or a rejection with its reason: no scan, two scans, a scan
// over an outer dim, reductions, matmuls, scatter, or a scalar output.
Decision analyzeScan(const Fusion& segment, ScanStructure& out);

// The run-time sizes of the segment and what the kernel walks.
struct ScanFacts {
  kernelgen::TensorSizes sizes;
  std::vector<int64_t> iter_sizes;  // the scan output's sizes
  int64_t rows = 0;                 // elements of the outer dims
  int64_t row_extent = 0;           // the scanned (innermost) dim
  std::vector<std::vector<int64_t>> output_strides;
};

// Throws UserError when the inputs do not fit the segment.
ScanFacts computeScanFacts(const Fusion& segment, const ScanStructure& st, RuntimeInfo& info);

// Every access of the kernel's two walks (the scanned value, then the outputs).
std::vector<kernelgen::Access> collectScanAccesses(const Fusion& segment, const ScanStructure& st,
                                                   const ScanFacts& facts, RuntimeInfo& info);

class ScanParams final : public HeuristicParams {
 public:
  std::string op;                         // sum, prod, max, min
  DataType accumulate = DataType::Float;  // the scan output's compute type
  std::vector<int64_t> iter_sizes;
  int64_t rows = 0;
  int64_t row_extent = 0;
  int vector_width = 1;  // consecutive elements per thread and chunk
  int threads = 32;      // per block: one block per row
  bool index32 = true;

  // Elements one pass of the block covers.
  int64_t chunk() const { return static_cast<int64_t>(threads) * vector_width; }
  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  std::string toString() const override;
};

// Vector width: the widest (up to 16 bytes) that every contiguous access
// along the row allows and that divides the row; threads: enough for one
// chunk to cover the row, 32 to `max_threads` (a multiple of 32).
ScanParams computeScanParams(const ScanStructure& st, const ScanFacts& facts,
                             const std::vector<kernelgen::Access>& accesses, int max_threads);

// Rejections that depend on sizes: empty tensors, outputs of another shape,
// more rows than a grid holds, inputs a kernel cannot read.
Decision checkScanRunTime(const Fusion& segment, const ScanStructure& st, const ScanFacts& facts,
                          RuntimeInfo& info);

}  // namespace fusebox::scan
