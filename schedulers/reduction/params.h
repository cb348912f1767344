// ReductionParams: every choice the reduction scheduler makes for one segment
// and input signature, and the rules that make them (heuristics.cpp).
#pragma once

#include <fusebox/scheduler.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/layout_choice.h"

namespace fusebox::reduction {

// Inner: the fastest-varying dim (in memory) is reduced, so the threads of a
// row walk the reduced elements contiguously and reduce across threadIdx.x.
// Outer: the fastest dim is kept, so threads walk kept elements (columns)
// contiguously, each accumulating its own columns over the reduced rows, and
// reduce across threadIdx.y.
enum class ReductionKind { Inner, Outer };

class ReductionParams final : public HeuristicParams {
 public:
  ReductionKind kind = ReductionKind::Inner;
  std::vector<int64_t> sizes;  // the reduction input's logical sizes
  std::vector<bool> reduced;   // per dim of `sizes`
  // Dims of size > 1 in memory order (outermost first), split by class: the
  // kernel walks each class as one linear index over these dims.
  std::vector<int> kept_dims, reduced_dims;
  int64_t kept_extent = 1, reduced_extent = 1;
  // Elements per vector access along the innermost dim (kept_dims.back() for
  // Outer, reduced_dims.back() for Inner).
  int vector_width = 1;
  // Inner rows whose vectors a scalar head aligns (kernelgen::AlignedBody:
  // a row extent no vector divides, or rows that start off a vector's
  // alignment): the lead access's offset modulo vector_width, per dim of
  // `sizes`, and its constant. Each row's elements before its first
  // aligned vector and after its last whole one (its edge) are reduced one
  // a thread. Empty: vectors whole from each row's start. Static shapes only.
  std::vector<int64_t> head_coef_residues;
  int64_t head_const_residue = 0;
  bool rowEdges() const { return !head_coef_residues.empty(); }
  kernelgen::AlignedBody rowHead() const {
    return {vector_width, head_coef_residues, head_const_residue};
  }
  // Vectors each thread loads before it accumulates any, per loop step.
  int unroll = 1;
  // Block: x walks the innermost dim (vector_width elements per thread), y
  // the other class (rows of an Inner reduction, reduced rows of an Outer one).
  int block_x = 32, block_y = 1;
  // Grid: x over kept elements; y splits the reduced extent into `grid[1]`
  // blocks that combine their partial results through scratch memory (the
  // last block to arrive finishes; no co-resident blocks needed).
  std::array<uint32_t, 3> grid{1, 1, 1};
  // Blocks per SM the grid was sized for, written into the kernel as
  // __launch_bounds__(threads, min_blocks_per_sm) so the compiler keeps its
  // registers within them; 0: no bounds.
  int min_blocks_per_sm = 0;
  bool index32 = true;  // every offset and position fits int32
  // The loop's loads of inputs it reads each element of once are streamed
  // (fusebox::loadVecStreamed: ld.global.cs, evicted from the L2 first).
  bool streamed_loads = false;
  // Symbolic: the kernel takes its sizes (extents, strides, and the number
  // of splits) as parameters (kernelgen/size_literals.h); hash() and sameAs()
  // then compare structure() and shape_classes, not the sizes or the grid.
  ShapeMode shape_mode = ShapeMode::Static;
  std::string shape_classes;  // Symbolic: kernelgen::shapeClasses

  int splits() const { return static_cast<int>(grid[1]); }
  // Kept elements one block covers (rows for Inner, columns for Outer).
  int64_t keptPerBlock() const;

  // The `loads:` line of toString() and structure().
  std::string loadsLine() const;
  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  // Every choice, sizes included; Symbolic adds a `shapes: symbolic` line.
  std::string toString() const override;
  // What the kernel's code depends on, one choice a line (the kernel's header
  // comment): toString() when Static; the decisions without the sizes when
  // Symbolic (which dims have size 1, whether blocks combine through scratch).
  std::string structure() const;
  // What hash() and sameAs() compare: toString() when Static; structure()
  // and shape_classes when Symbolic.
  std::string identity() const;
};

struct HeuristicInputs {
  std::vector<int64_t> sizes;
  std::vector<bool> reduced;
  const std::vector<kernelgen::Access>* accesses = nullptr;
  int64_t accumulator_bytes = 4;  // of the widest accumulator state (Welford: 16 or 24)
  int accumulators = 1;           // reductions, each with its own state
  bool welford = false;           // some state is a Welford state (var, var_mean)
  int forced_splits = 0;          // the grid_splits option; 0 = heuristic
  int max_vector_width = 0;       // the max_vector_width option; 0 = no cap
  int row_lanes = 0;              // the row_lanes option (inner); 0 = heuristic
  int unroll = 0;                 // the unroll option; 0 = heuristic
  bool symbolic = false;          // sizes are kernel parameters (no row edges)
  std::string streamed_loads = "auto";  // the streamed_loads option: auto, on or off
};

ReductionParams computeReductionParams(const HeuristicInputs& in, const DeviceProperties& device);

}  // namespace fusebox::reduction
