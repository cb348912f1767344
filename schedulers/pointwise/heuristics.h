// PointwiseParams: every choice the pointwise scheduler makes for one segment
// and input signature, and the rules that make them (heuristics.cpp).
#pragma once

#include <fusebox/scheduler.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis.h"
#include "kernelgen/access.h"

namespace fusebox::pointwise {

class PointwiseParams final : public HeuristicParams {
 public:
  int reference_output = 0;
  std::vector<int64_t> iter_sizes;  // the reference output's logical sizes
  // Merged dims, outermost first: each a run of iteration dims (size-1 dims
  // dropped; in the reference output's memory order) that every affine
  // access walks contiguously, as one index.
  std::vector<std::vector<int>> groups;
  std::vector<int64_t> group_extents;
  int vector_width = 1;  // elements per vector access along the innermost merged dim
  int unroll = 1;        // 1-D: chunks of vector_width each thread handles
  int threads = 128;     // per block
  // 2-D schedule: merged dims [0, break_point) are rows (grid.y, a loop of
  // rows_per_block per block), [break_point, end) columns (grid.x, threads).
  // 0: a 1-D schedule over all merged dims.
  int break_point = 0;
  int64_t rows_per_block = 1;
  std::array<uint32_t, 3> grid{1, 1, 1};
  bool index32 = true;  // every offset and position fits int32

  int64_t outerExtent() const;  // rows (2-D)
  int64_t innerExtent() const;  // columns (2-D), or every element (1-D)

  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  std::string toString() const override;
};

PointwiseParams computePointwiseParams(const SegmentFacts& facts,
                                       const std::vector<kernelgen::Access>& accesses,
                                       const DeviceProperties& device);

}  // namespace fusebox::pointwise
