// no_op's view arithmetic on its own (schedulers/no_op/view_analysis.cpp is
// compiled into this suite): which reshapes are views, and their strides.
#include <gtest/gtest.h>

#include "no_op/view_analysis.h"

namespace fusebox::no_op {
namespace {

using Ints = std::vector<int64_t>;

TEST(ReshapeStrides, ContiguousSplitsAndMerges) {
  // [6] -> [2, 3]: row-major strides of the new shape.
  EXPECT_EQ(reshapeStrides({6}, {1}, {2, 3}), Ints({3, 1}));
  // [2, 3, 4] -> [6, 4] and -> [24].
  EXPECT_EQ(reshapeStrides({2, 3, 4}, {12, 4, 1}, {6, 4}), Ints({4, 1}));
  EXPECT_EQ(reshapeStrides({2, 3, 4}, {12, 4, 1}, {24}), Ints({1}));
}

TEST(ReshapeStrides, PaddedRowsSplitButDoNotMerge) {
  // Rows of 3 elements 5 apart (a slice of a [2, 5] buffer).
  EXPECT_EQ(reshapeStrides({2, 3}, {5, 1}, {2, 3, 1}), Ints({5, 1, 1}));
  EXPECT_EQ(reshapeStrides({2, 4}, {5, 1}, {2, 2, 2}), Ints({5, 2, 1}));
  EXPECT_EQ(reshapeStrides({2, 3}, {5, 1}, {6}), std::nullopt);
  EXPECT_EQ(reshapeStrides({2, 3}, {5, 1}, {3, 2}), std::nullopt);
}

TEST(ReshapeStrides, TransposedInputOnlyKeepsItsBlocks) {
  // A [3, 2] row-major buffer seen as [2, 3] (strides 1, 2): each dim is its own
  // block, so splitting a dim works and merging does not.
  EXPECT_EQ(reshapeStrides({2, 3}, {1, 2}, {6}), std::nullopt);
  EXPECT_EQ(reshapeStrides({4, 3}, {1, 4}, {2, 2, 3}), Ints({2, 1, 4}));
}

TEST(ReshapeStrides, SizesBeyondInt64AreNoView) {
  // An empty result whose dense strides overflow int64 (they wrapped to 0).
  const int64_t big = int64_t{1} << 32;
  EXPECT_EQ(reshapeStrides({0}, {1}, {0, big, big}), std::nullopt);
  // 3 * 6148914691236517208 wraps to 8.
  EXPECT_EQ(reshapeStrides({8}, {1}, {3, 6148914691236517208}), std::nullopt);
}

TEST(ReshapeStrides, SizeOneDimsAreFree) {
  // Size-1 dims neither break blocks nor need a place.
  EXPECT_EQ(reshapeStrides({2, 1, 3}, {3, 99, 1}, {6}), Ints({1}));
  EXPECT_EQ(reshapeStrides({6}, {1}, {1, 6, 1}), Ints({6, 1, 1}));
  EXPECT_EQ(reshapeStrides({1, 1}, {7, 7}, {1}), Ints({1}));
}

TEST(ReshapeStrides, ExpandedDimsAreViewsOnlyWhileKeptWhole) {
  // An expanded dim (stride 0) is a block of its own.
  EXPECT_EQ(reshapeStrides({4, 3}, {0, 1}, {2, 2, 3}), Ints({0, 0, 1}));
  EXPECT_EQ(reshapeStrides({4, 3}, {0, 1}, {12}), std::nullopt);
}

TEST(ReshapeStrides, ElementCountsMustMatch) {
  EXPECT_EQ(reshapeStrides({2, 3}, {3, 1}, {7}), std::nullopt);
  // No elements: any shape with no elements, row-major.
  EXPECT_EQ(reshapeStrides({0, 3}, {3, 1}, {3, 0}), Ints({1, 1}));
}

}  // namespace
}  // namespace fusebox::no_op
