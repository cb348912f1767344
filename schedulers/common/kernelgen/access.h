// The memory accesses element code makes, as the walker (element_writer.h)
// records them: what heuristics size vector widths and choose schedules by.
#pragma once

#include <fusebox/ir/ir.h>

#include <cstdint>
#include <vector>

#include "kernelgen/branch_bounds.h"
#include "kernelgen/index_math.h"

namespace fusebox::kernelgen {

// One tensor read (a segment input) or write (a segment output).
struct Access {
  const TensorView* tv = nullptr;
  bool is_output = false;
  IndexExpr offset;          // element offset from the data pointer, per iteration index
  bool conditional = false;  // under a pad / cat bound check
  int64_t element_size = 0;
  int64_t alignment = 16;  // of the data pointer, bytes
  int64_t max_offset = 0;  // largest element offset it can reach
  // A load under pad / cat bound checks: those of its branches, outermost
  // first (ElementRef::branches).
  std::vector<BranchBounds> branches;
  // An output's store: the checks of every branch its value's code opened
  // (in order; loads or not), which a placement may make once per chunk.
  std::vector<BranchBounds> opened;
};

// The largest element offset a tensor of these sizes and strides reaches.
inline int64_t maxOffset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t m = 0;
  for (size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] > 0) m += (sizes[k] - 1) * (strides[k] < 0 ? -strides[k] : strides[k]);
  return m;
}

}  // namespace fusebox::kernelgen
