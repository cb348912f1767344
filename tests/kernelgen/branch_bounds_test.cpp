// kernelgen/branch_bounds.h on its own: when pad / cat checks hold alike over
// a vector chunk, how a load under them reads a chunk, and which branches
// exclude each other. Iteration space [4, 16, 128] merged as [[0], [1, 2]]
// unless a case says otherwise; chunks run along dim 2.
#include <gtest/gtest.h>

#include "kernelgen/branch_bounds.h"

namespace {

using namespace fusebox::kernelgen;

const std::vector<int64_t> kSizes = {4, 16, 128};
const std::vector<std::vector<int>> kGroups = {{0}, {1, 2}};

// c + sum k[d] * i<d>
IndexExpr affine(int64_t c, std::vector<int64_t> k) {
  IndexExpr e = IndexExpr::constant(c, k.size());
  e.a.coef = std::move(k);
  return e;
}

BranchBound bound(IndexExpr index, std::optional<int64_t> lo, std::optional<int64_t> hi,
                  const std::string& role = "T5.2", const std::string& lo_role = "",
                  const std::string& hi_role = "") {
  BranchBound b;
  b.index = std::move(index);
  b.role = role;
  b.lo = lo;
  b.hi = hi;
  b.lo_role = lo_role;
  b.hi_role = hi_role;
  return b;
}

bool uniform(const BranchBound& b, int width, const std::vector<std::vector<int>>& groups = kGroups,
             const std::vector<int64_t>& sizes = kSizes) {
  return uniformOverChunk({{b}}, groups, sizes, width);
}

TEST(BranchBounds, ChecksOnTheInnermostDimHoldAlikeWhenTheirBoundsAlign) {
  // i2 < 64 (RoPE's first half): chunks of 8 or 16 never straddle 64.
  EXPECT_TRUE(uniform(bound(affine(0, {0, 0, 1}), std::nullopt, 64), 8));
  EXPECT_TRUE(uniform(bound(affine(0, {0, 0, 1}), std::nullopt, 64), 16));
  // i2 - 2 in [0, 120) (a pad of 2): only chunks of 2.
  EXPECT_TRUE(uniform(bound(affine(-2, {0, 0, 1}), 0, 120), 2));
  EXPECT_FALSE(uniform(bound(affine(-2, {0, 0, 1}), 0, 120), 4));
  // i2 >= 3 (a cat after 3 columns): never at a width above 1.
  EXPECT_FALSE(uniform(bound(affine(0, {0, 0, 1}), 3, std::nullopt), 2));
  EXPECT_FALSE(uniform(bound(affine(0, {0, 0, 1}), 3, std::nullopt), 1));
}

TEST(BranchBounds, ChecksTheChunkDoesNotMoveHoldAlike) {
  // i0 < 2 or i1 in [4, 8): a chunk stays in one row of dim 2.
  EXPECT_TRUE(uniform(bound(affine(0, {1, 0, 0}), std::nullopt, 2), 8));
  EXPECT_TRUE(uniform(bound(affine(0, {0, 1, 0}), 4, 8), 8));
  // ...unless the row is no multiple of the width (rows of 132, merged).
  EXPECT_FALSE(uniform(bound(affine(0, {0, 1, 0}), 4, 8), 8, kGroups, {4, 16, 132}));
  // A single iteration dim in the innermost group may be any length: the
  // last chunk, partial, is the scalar tail's.
  EXPECT_TRUE(
      uniform(bound(affine(0, {0, 0, 1}), std::nullopt, 64), 8, {{0}, {1}, {2}}, {4, 16, 132}));
}

TEST(BranchBounds, OtherIndexShapesAreCheckedPerElement) {
  // Another coefficient on the innermost dim, an outer term that is no
  // multiple of the width, an opaque index, a check that never holds.
  EXPECT_FALSE(uniform(bound(affine(0, {0, 0, 2}), std::nullopt, 64), 4));
  EXPECT_FALSE(uniform(bound(affine(0, {0, 3, 1}), std::nullopt, 64), 4));
  EXPECT_TRUE(uniform(bound(affine(0, {0, 8, 1}), std::nullopt, 64), 4));
  EXPECT_FALSE(uniform(
      bound(IndexExpr::opaque(fusebox::kir::var("i2") % fusebox::kir::lit(7)), std::nullopt, 64),
      4));
  BranchBound never = bound(affine(0, {0, 0, 1}), std::nullopt, 64);
  never.never = true;
  EXPECT_FALSE(uniform(never, 4));
  // Every branch of a load must hold alike.
  EXPECT_FALSE(uniformOverChunk(
      {{bound(affine(0, {0, 0, 1}), std::nullopt, 64)}, {bound(affine(-3, {0, 0, 1}), 0, 61)}},
      kGroups, kSizes, 4));
}

TEST(BranchBounds, HowALoadUnderBranchesReadsAChunk) {
  const std::vector<BranchBounds> first_half = {{bound(affine(0, {0, 0, 1}), std::nullopt, 64)}};
  // x[..., 64:] of bf16 rows of 128 (element 2048 * i0 + 128 * i1 + i2 + 64).
  const IndexExpr rotated = affine(64, {2048, 128, 1});
  EXPECT_EQ(boundedRead(rotated, first_half, 16, 2, kGroups, kSizes, 8), ChunkRead::Vector);
  // Not at width 1, not past 16 bytes, not from a pointer aligned to 8.
  EXPECT_EQ(boundedRead(rotated, first_half, 16, 2, kGroups, kSizes, 1), ChunkRead::PerElement);
  EXPECT_EQ(boundedRead(rotated, first_half, 16, 4, kGroups, kSizes, 8), ChunkRead::PerElement);
  EXPECT_EQ(boundedRead(rotated, first_half, 8, 2, kGroups, kSizes, 8), ChunkRead::PerElement);
  // x[..., 3:] starts off the vector.
  EXPECT_EQ(boundedRead(affine(3, {2048, 128, 1}), first_half, 16, 2, kGroups, kSizes, 8),
            ChunkRead::PerElement);
  // An operand the chunk does not move: one element for the chunk.
  EXPECT_EQ(boundedRead(affine(0, {1, 0, 0}), first_half, 16, 2, kGroups, kSizes, 8),
            ChunkRead::Hoisted);
  // Under checks that do not hold alike: per element, however aligned.
  const std::vector<BranchBounds> pad3 = {{bound(affine(-3, {0, 0, 1}), 0, 125)}};
  EXPECT_EQ(boundedRead(rotated, pad3, 16, 2, kGroups, kSizes, 8), ChunkRead::PerElement);
}

TEST(BranchBounds, InputsOfOneCatExcludeEachOther) {
  const IndexExpr i2 = affine(0, {0, 0, 1});
  const std::vector<BranchBounds> first = {{bound(i2, std::nullopt, 64, "T8.2", "", "T8.2:0<")}};
  const std::vector<BranchBounds> second = {{bound(i2, 64, std::nullopt, "T8.2", "T8.2:0<", "")}};
  EXPECT_TRUE(exclusiveBranches(first, second));
  EXPECT_FALSE(exclusiveBranches(first, first));
  // Another cat (whose ranges may overlap this one's), or this cat at
  // another index.
  const std::vector<BranchBounds> other = {{bound(i2, 64, std::nullopt, "T9.2", "T9.2:0<", "")}};
  EXPECT_FALSE(exclusiveBranches(first, other));
  const std::vector<BranchBounds> shifted = {
      {bound(affine(8, {0, 0, 1}), 64, std::nullopt, "T8.2", "T8.2:0<", "")}};
  EXPECT_FALSE(exclusiveBranches(first, shifted));
  // Two pads of one input (each one branch, the same roles): both may hold.
  const std::vector<BranchBounds> pad = {
      {bound(affine(-8, {0, 0, 1}), 0, 120, "T4.2", "", "T4.2<")}};
  EXPECT_FALSE(exclusiveBranches(pad, pad));
  // Nested: an outer branch of the cat decides.
  std::vector<BranchBounds> nested = second;
  nested.push_back(pad[0]);
  EXPECT_TRUE(exclusiveBranches(first, nested));
}

}  // namespace
