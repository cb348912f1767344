// PointwiseParams: every choice a pointwise kernel is generated from, for one
// segment and input signature, and the rules the built-in scheduler makes
// them by (heuristics.cpp). A scheduler with other rules starts from
// pointwiseLayout, sets threads and unroll (or rows_per_block) its own way
// and calls finishLaunch.
#pragma once

#include <fusebox/scheduler.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "pointwise/analysis.h"

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
  // Pad and cat branches at that width (kernelgen/branch_bounds.h), in the
  // order the kernel's code meets them: for each branch whether its checks
  // are made once per chunk ("chunk") or per element ("element"), and for
  // each load under branches how it reads a chunk (kernelgen::chunkReadName).
  // Empty without branches.
  std::vector<std::string> branch_checks;
  std::vector<std::string> branch_loads;
  int unroll = 1;     // 1-D: chunks of vector_width each thread handles
  int threads = 128;  // per block
  // 2-D schedule: merged dims [0, break_point) are rows (grid.y, a loop of
  // rows_per_block per block), [break_point, end) columns (grid.x, threads).
  // 0: a 1-D schedule over all merged dims.
  int break_point = 0;
  int64_t rows_per_block = 1;
  std::array<uint32_t, 3> grid{1, 1, 1};
  bool index32 = true;  // every offset and position fits int32
  // Symbolic: the kernel takes its sizes as parameters (kernelgen/
  // size_literals.h), and the params are the same for every size with the
  // same decisions: hash() and sameAs() then compare structure() and
  // shape_classes, not the sizes (and not threads and grid, which only
  // launch the kernel).
  ShapeMode shape_mode = ShapeMode::Static;
  std::string shape_classes;  // Symbolic: kernelgen::shapeClasses
  // Outputs written over an input's memory (inPlaceWrites): the kernel reads
  // that input first and declares the pair's pointers without __restrict__.
  std::vector<InPlaceRequest> in_place;

  int64_t outerExtent() const;  // rows (2-D)
  int64_t innerExtent() const;  // columns (2-D), or every element (1-D)
  int64_t numel() const;        // elements of the reference output
  // Vector chunks the threads of the grid's x dimension share: of every
  // element (1-D) or of one row (2-D).
  int64_t chunks() const;

  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  // Every choice, sizes included; Symbolic adds a `shapes: symbolic` line.
  std::string toString() const override;
  // What the kernel's code depends on, one choice a line (the kernel's header
  // comment): toString() when Static; the decisions without the sizes when
  // Symbolic (which dims have size 1, whether a chunk can be partial, ...).
  std::string structure() const;
  // What hash() and sameAs() compare: toString() when Static; structure()
  // and shape_classes when Symbolic.
  std::string identity() const;
  // The branch_checks and branch_loads lines (each after a newline), or "".
  // In both forms: they follow from sizes, strides and alignments, which
  // the other lines do not all show.
  std::string branchLines() const;
  // The in_place line (after a newline), or "".
  std::string inPlaceLine() const;
};

// Marks `p` for a kernel over symbolic sizes when `info` asks for one: its
// shape mode and shape classes (kernelgen/shape_classes.h).
void setShapeMode(PointwiseParams& p, const Fusion& segment, RuntimeInfo& info,
                  const SegmentFacts& facts, const std::vector<kernelgen::Access>& accesses);

// The layout: reference output, merged dims, 1-D or 2-D schedule, vector
// width (threads, unroll, grid still to choose). `max_vector_width` > 0 caps
// the width, rounded down to a power of two.
PointwiseParams pointwiseLayout(const SegmentFacts& facts,
                                const std::vector<kernelgen::Access>& accesses,
                                int max_vector_width = 0);

// Given threads and unroll (1-D) or threads and rows_per_block (2-D): the
// grid and the index width. Grid dims are clamped to 2^32 - 1;
// checkRunTime rejects a grid beyond CUDA's limits.
void finishLaunch(PointwiseParams& p, const SegmentFacts& facts,
                  const std::vector<kernelgen::Access>& accesses);

// Choices a user may force (the pointwise scheduler's options); 0: the
// heuristic decides. unroll applies to the 1-D schedule only.
struct LaunchOverrides {
  int threads = 0;
  int unroll = 0;
  int rows_per_block = 0;  // 2-D; still raised where grid.y would pass 65535
  int max_vector_width = 0;  // a cap on the elements a thread accesses at once
};

// The built-in rules (docs/schedulers/pointwise.md).
PointwiseParams computePointwiseParams(const SegmentFacts& facts,
                                       const std::vector<kernelgen::Access>& accesses,
                                       const DeviceProperties& device,
                                       const LaunchOverrides& overrides = {});

}  // namespace fusebox::pointwise
