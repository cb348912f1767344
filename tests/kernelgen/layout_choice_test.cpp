// kernelgen/layout_choice.h on its own: the vector width rows allow, whole
// (vectorWidthAlong) or after a scalar head (alignedBodyAlong). Iteration
// space [rows, width] with the rows' dim 0 and the chunks along dim 1.
#include <gtest/gtest.h>

#include "kernelgen/layout_choice.h"

namespace {

using namespace fusebox::kernelgen;

// An access of offset c + coef[0] * i0 + coef[1] * i1.
Access access(std::vector<int64_t> coef, int64_t c = 0, int64_t element_size = 2,
              bool is_output = false, int64_t alignment = 16) {
  Access a;
  a.is_output = is_output;
  a.offset = IndexExpr::constant(c, coef.size());
  a.offset.a.coef = std::move(coef);
  a.element_size = element_size;
  a.alignment = alignment;
  a.max_offset = 1 << 20;
  return a;
}

TEST(KernelgenLayoutChoice, WholeRowVectorsNeedTheWidthToDivideTheRow) {
  const std::vector<int64_t> even{64, 32000}, odd{64, 50257};
  EXPECT_EQ(vectorWidthAlong(even, {access({32000, 1}), access({32000, 1}, 0, 2, true)}, 1), 8);
  EXPECT_EQ(vectorWidthAlong(odd, {access({50257, 1}), access({50257, 1}, 0, 2, true)}, 1), 1);
  // Float outputs of bf16 rows: 16 bytes of the widest element.
  EXPECT_EQ(vectorWidthAlong(even, {access({32000, 1}), access({32000, 1}, 0, 4, true)}, 1), 4);
}

TEST(KernelgenLayoutChoice, AHeadAlignsTheRowsOfAnOddWidth) {
  const Access in = access({50257, 1}), out = access({50257, 1}, 0, 2, true);
  const AlignedBody body = alignedBodyAlong({in, out}, 1);
  ASSERT_EQ(body.width, 8);
  EXPECT_EQ(body.coef_residues, (std::vector<int64_t>{50257 % 8, 1}));
  EXPECT_EQ(body.c_residue, 0);
  EXPECT_TRUE(body.aligns(in.offset.a, 2, 16, 1));
  EXPECT_TRUE(body.aligns(out.offset.a, 2, 16, 1));
  // A weight every row reads from 0 starts its rows otherwise: per element.
  EXPECT_FALSE(body.aligns(access({0, 1}).offset.a, 2, 16, 1));
  // So does a row of another stride, a shifted start, an unaligned pointer,
  // a wider element (32 bytes a chunk) and a strided walk.
  EXPECT_FALSE(body.aligns(access({50256, 1}).offset.a, 2, 16, 1));
  EXPECT_FALSE(body.aligns(access({50257, 1}, 3).offset.a, 2, 16, 1));
  EXPECT_FALSE(body.aligns(in.offset.a, 2, 8, 1));
  EXPECT_FALSE(body.aligns(in.offset.a, 4, 16, 1));
  EXPECT_FALSE(body.aligns(access({50257, 2}).offset.a, 2, 16, 1));
  // Offsets that agree modulo the width do: a slice starting 8 elements on.
  EXPECT_TRUE(body.aligns(access({50257 + 8 * 3, 1}, 8).offset.a, 2, 16, 1));
}

TEST(KernelgenLayoutChoice, TheHeadFollowsTheLeadAndItsWidestAgreeingElement) {
  // The lead is the input reaching furthest; a float output that agrees
  // caps the width at 16 bytes of it, as whole-row vectors are capped.
  Access small = access({0, 1}), big = access({4097, 1}, 1);
  small.max_offset = 4096;
  big.max_offset = 1 << 24;
  const AlignedBody body = alignedBodyAlong({small, big, access({4097, 1}, 1, 4, true)}, 1);
  ASSERT_EQ(body.width, 4);
  EXPECT_EQ(body.coef_residues, (std::vector<int64_t>{4097 % 4, 1}));
  EXPECT_EQ(body.c_residue, 1);
  // A lead whose pointer is 2-byte aligned allows no vector.
  EXPECT_EQ(alignedBodyAlong({access({4097, 1}, 0, 2, false, 2)}, 1).width, 1);
  // Nor does a row no input walks contiguously.
  EXPECT_EQ(alignedBodyAlong({access({1, 4097})}, 1).width, 1);
}

}  // namespace
