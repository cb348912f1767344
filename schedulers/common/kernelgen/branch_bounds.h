// The bound checks of pad and cat branches (element_values.cpp) as index
// math, and when they hold alike for a whole vector chunk (merged_dims.h: the
// `width` consecutive elements along the innermost merged dim a thread
// handles, starting on a multiple of the width). There, a check can be made
// once per chunk and a load under it can be one vector: RoPE's
// cat([-x[..., 64:], x[..., :64]], -1) in bf16 reads both halves as 16-byte
// vectors, guarded by the chunk's check, instead of element by element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/index_math.h"

namespace fusebox::kernelgen {

// One bound check: lo <= index < hi (either bound may be absent).
struct BranchBound {
  IndexExpr index;   // over the iteration space
  std::string role;  // the index's role (IndexExpr::value)
  std::optional<int64_t> lo, hi;
  std::string lo_role, hi_role;  // the bounds' roles (IterSpace::literal)
  bool never = false;            // never holds (a pad of an empty dim, a crop of 2^63)
};
// One branch: every check holds.
using BranchBounds = std::vector<BranchBound>;

// Whether every check of `branches` has one value over each chunk of `width`
// elements along the innermost of the merged dims `groups` (iteration dims,
// outermost first) of an iteration space of `sizes`: each index either does
// not move within a chunk, or moves with the innermost iteration dim by 1 and
// crosses its bounds only at chunk starts.
bool uniformOverChunk(const std::vector<BranchBounds>& branches,
                      const std::vector<std::vector<int>>& groups,
                      const std::vector<int64_t>& sizes, int width);

// Whether no element is under both `a` and `b` (branches, outermost first),
// whatever the sizes: each has a check of one cat at the same index, for
// different inputs of it.
bool exclusiveBranches(const std::vector<BranchBounds>& a, const std::vector<BranchBounds>& b);

// Whether a vector of `width` elements at offset `a` (element size
// `element_size`, data pointer aligned to `alignment` bytes) starts aligned
// in every chunk: the pointer, the constant offset, the strides of the
// outer merged dims and the coefficients of run-time indices (Affine::terms)
// are multiples of the vector.
bool vectorAligned(const Affine& a, int64_t alignment, int64_t element_size,
                   const std::vector<std::vector<int>>& groups, int width);

// How a chunk reads a segment input under pad / cat branches (`branches`,
// outermost first): per element (today's scalar loads in the branches), one
// vector per chunk, or one element for the whole chunk (an operand the
// innermost merged dim does not move), the last two guarded by the chunk's
// checks. Only at width > 1, with checks uniform over the chunk.
enum class ChunkRead { PerElement, Vector, Hoisted };
ChunkRead boundedRead(const IndexExpr& offset, const std::vector<BranchBounds>& branches,
                      int64_t alignment, int64_t element_size,
                      const std::vector<std::vector<int>>& groups,
                      const std::vector<int64_t>& sizes, int width);
const char* chunkReadName(ChunkRead r);

}  // namespace fusebox::kernelgen
