// The pointwise heuristics' vector width (no kernel is built): a vector access
// must start on a multiple of its size, so every row it can start in must.
// Misaligned data pointers, constant offsets from a slice, and padded rows
// (a row stride that is no multiple of the width) each narrow the vector; the
// expected widths are the largest power of two that divides every start.
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"

namespace fusebox::test {
namespace {

std::string heuristics(const Fusion& f, std::vector<ArgumentInfo> inputs) {
  RuntimeInfo info(f, std::move(inputs), DeviceProperties{});
  CompileTimeCache cache;
  auto scheduler = pointwiseScheduler();
  EXPECT_TRUE(structuralDecision(*scheduler, f).accepted());
  EXPECT_TRUE(runTimeDecision(*scheduler, f, info).accepted());
  return paramsOf(*scheduler, f, info)->toString();
}

TEST(PointwiseVectorWidth, DataPointerAlignmentBoundsTheWidth) {
  // A float view that starts `k` elements into 64-byte-aligned storage is
  // aligned to 4k bytes (capped at 16 for one vector).
  Fusion f;
  TensorView* x = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(neg(x));
  for (const auto& [alignment, width] :
       std::vector<std::pair<int64_t, std::string>>{{4, "1"}, {8, "2"}, {16, "4"}, {64, "4"}}) {
    const std::string p = heuristics(f, {TensorArgInfo{DataType::Float, {1024}, {1}, alignment}});
    EXPECT_EQ(paramLine(p, "vector_width"), width) << "alignment " << alignment << "\n" << p;
  }
}

TEST(PointwiseVectorWidth, SliceStartIsPartOfTheAlignment) {
  // exp(x[start : start + 1024]) reads element start + i of an aligned x:
  // the constant offset `start` must be a multiple of the width.
  for (const auto& [start, width] : std::vector<std::pair<int64_t, std::string>>{
           {0, "4"}, {1, "1"}, {2, "2"}, {3, "1"}, {4, "4"}, {6, "2"}, {8, "4"}}) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1}, DataType::Float);
    f.addOutput(exp(slice(x, {f.constantInt(start)}, {f.constantInt(start + 1024)})));
    const std::string p = heuristics(f, {TensorArgInfo{DataType::Float, {1040}, {1}, 64}});
    EXPECT_EQ(paramLine(p, "vector_width"), width) << "start " << start << "\n" << p;
  }
}

TEST(PointwiseVectorWidth, SliceStartCountsInElementsOfTheInput) {
  // Half: 8 per 16-byte vector, so a start of 4 halves (8 bytes) allows 4.
  for (const auto& [start, width] : std::vector<std::pair<int64_t, std::string>>{
           {1, "1"}, {2, "2"}, {4, "4"}, {8, "8"}, {12, "4"}}) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1}, DataType::Half);
    f.addOutput(neg(slice(x, {f.constantInt(start)}, {f.constantInt(start + 1024)})));
    const std::string p = heuristics(f, {TensorArgInfo{DataType::Half, {1040}, {1}, 64}});
    EXPECT_EQ(paramLine(p, "vector_width"), width) << "start " << start << "\n" << p;
  }
}

TEST(PointwiseVectorWidth, PaddedRowsNarrowTheWidthToTheRowStride) {
  // neg(x), x [4, 1024] with rows `row_stride` floats apart: row r starts at
  // r * row_stride, so the width divides the row stride.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(neg(x));
  for (const auto& [row_stride, width] : std::vector<std::pair<int64_t, std::string>>{
           {1024, "4"}, {1025, "1"}, {1026, "2"}, {1027, "1"}, {1028, "4"}, {1030, "2"}}) {
    const std::string p =
        heuristics(f, {TensorArgInfo{DataType::Float, {4, 1024}, {row_stride, 1}, 64}});
    EXPECT_EQ(paramLine(p, "vector_width"), width) << "row stride " << row_stride << "\n" << p;
    // Padded rows cannot merge with the columns: two merged dims.
    if (row_stride != 1024) {
      EXPECT_EQ(paramLine(p, "merged_dims"), "[[0], [1]] (iteration dims; extents [4, 1024])") << p;
    }
  }
}

TEST(PointwiseVectorWidth, EveryOuterStrideCounts) {
  // [2, 3, 64] with the middle rows padded (stride 66) and the outer dim
  // dense over them (3 * 66 = 198): only the middle stride limits the width.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  f.addOutput(neg(x));
  std::string p = heuristics(f, {TensorArgInfo{DataType::Float, {2, 3, 64}, {198, 66, 1}, 64}});
  EXPECT_EQ(paramLine(p, "vector_width"), "2") << p;
  // The outer stride padded instead (3 * 64 + 2), the middle one dense.
  p = heuristics(f, {TensorArgInfo{DataType::Float, {2, 3, 64}, {194, 64, 1}, 64}});
  EXPECT_EQ(paramLine(p, "vector_width"), "2") << p;
  p = heuristics(f, {TensorArgInfo{DataType::Float, {2, 3, 64}, {196, 64, 1}, 64}});
  EXPECT_EQ(paramLine(p, "vector_width"), "4") << p;
}

TEST(PointwiseVectorWidth, SliceOfPaddedRowsNeedsBoth) {
  // x[:, start : start + 1024] of rows `row_stride` apart: element (r, i) is
  // at r * row_stride + start + i.
  for (const auto& [row_stride, start, width] :
       std::vector<std::tuple<int64_t, int64_t, std::string>>{
           {1040, 4, "4"}, {1040, 2, "2"}, {1038, 4, "2"}, {1036, 8, "4"}, {1037, 4, "1"}}) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
    f.addOutput(neg(slice(x, {f.zero(), f.constantInt(start)},
                          {f.constantInt(4), f.constantInt(start + 1024)})));
    const std::string p =
        heuristics(f, {TensorArgInfo{DataType::Float, {4, row_stride}, {row_stride, 1}, 64}});
    EXPECT_EQ(paramLine(p, "vector_width"), width)
        << "row stride " << row_stride << ", start " << start << "\n"
        << p;
  }
}

}  // namespace
}  // namespace fusebox::test
