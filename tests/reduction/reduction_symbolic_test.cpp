// Reduction kernels compiled over symbolic sizes (ShapeMode::Symbolic): over
// twenty sizes each, an inner and an outer reduction whose params compare
// sameAs get one kernel source (the runtime reuses compiled kernels by
// source), hold no size in it, and match the reference evaluator.
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <algorithm>
#include <regex>
#include <tuple>

#include "reduction/reduction_test_util.h"
#include "support/host_suite.h"
#include "support/source_classes.h"

namespace fusebox::test {
namespace {

using ::testing::HasSubstr;
using Sizes = std::vector<std::pair<int64_t, int64_t>>;

struct SymbolicRuns {
  std::vector<SchedulerRun> runs;
  std::vector<std::string> labels;
  const SchedulerRun& at(const Sizes& sizes, std::pair<int64_t, int64_t> s) const {
    return runs[static_cast<size_t>(std::find(sizes.begin(), sizes.end(), s) - sizes.begin())];
  }
};

bool isPow2(int64_t v) {
  return (v & (v - 1)) == 0;
}

// Runs `f` over [N, M] inputs of `dtype` for each size; checks that no size
// is in the source (other than powers of two, which block shapes are) and
// that the plan binds it, and that sameAs classes share sources.
SymbolicRuns runOverSizes(const Fusion& f, DataType dtype, const Sizes& sizes) {
  SymbolicRuns out;
  uint32_t seed = 1;
  for (const auto& [n, m] : sizes) {
    out.labels.push_back(fmt::format("[{}, {}]", n, m));
    out.runs.push_back(expectReductionMatches(hostBackend(), f,
                                              {randomTensor(dtype, {n, m}, seed++)}, h100Shape(), 0,
                                              ShapeMode::Symbolic));
    const SchedulerRun& r = out.runs.back();
    EXPECT_EQ(paramLine(r.params, "shapes"), "symbolic") << r.params;
    for (int64_t v : {n, m}) {
      if (v <= 16 || isPow2(v)) continue;
      EXPECT_FALSE(std::regex_search(r.source, std::regex("\\b" + std::to_string(v) + "\\b")))
          << out.labels.back() << ": " << v << "\n"
          << r.source;
      bool bound = false;
      for (const ParamBinding& b : r.plan.bindings)
        bound |= b.source == ParamBinding::Source::Value && b.value == v;
      EXPECT_TRUE(bound) << out.labels.back() << ": " << v;
    }
  }
  const SourceClasses c = expectOneSourcePerClass(out.runs, out.labels);
  EXPECT_LT(c.sources, sizes.size());
  return out;
}

TEST(ReductionSymbolic, InnerMeanOfSquaresOverTwentySizes) {
  // sum(float(x)^2, last dim) / M: the extent M is a scalar of the epilogue.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  f.addOutput(div(sum(mul(xf, xf), {1}), x->axis(1)->extent()));
  const Sizes sizes = {{2, 3},    {3, 2},    {5, 7},     {8, 8},      {16, 16},
                       {4, 8},    {8, 4},    {7, 100},   {100, 7},    {1, 64},
                       {64, 1},   {33, 512}, {48, 512},  {512, 512},  {3, 1000},
                       {9, 1024}, {2, 4096}, {1, 65536}, {2, 131072}, {3, 140000}};
  const SymbolicRuns r = runOverSizes(f, DataType::BFloat16, sizes);
  EXPECT_EQ(r.at(sizes, {8, 8}).source, r.at(sizes, {4, 8}).source);
  EXPECT_EQ(r.at(sizes, {512, 512}).source, r.at(sizes, {33, 512}).source);
  // Rows split across 2 and 3 blocks: the number of splits is a parameter.
  const SchedulerRun& two = r.at(sizes, {2, 131072});
  const SchedulerRun& three = r.at(sizes, {3, 140000});
  EXPECT_EQ(two.plan.launch.grid[1], 2u) << two.params;
  EXPECT_EQ(three.plan.launch.grid[1], 3u) << three.params;
  EXPECT_EQ(two.source, three.source);
}

TEST(ReductionSymbolic, OuterSumWithAPointwiseOutputOverTwentySizes) {
  // sum(x, first dim), and x * 2 written by the same loop.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(sum(x, {0}));
  f.addOutput(mul(x, f.constantDouble(2.0)));
  const Sizes sizes = {{2, 3},    {3, 2},     {5, 7},      {8, 8},     {16, 16},
                       {4, 8},    {8, 4},     {100, 7},    {7, 100},   {64, 1},
                       {1, 64},   {512, 32},  {1000, 64},  {2000, 64}, {3000, 64},
                       {4096, 4}, {300, 300}, {1024, 256}, {77, 1000}, {256, 256}};
  const SymbolicRuns r = runOverSizes(f, DataType::Float, sizes);
  EXPECT_EQ(r.at(sizes, {256, 256}).source, r.at(sizes, {1024, 256}).source);
  // Splits of 8, 16 and 24 blocks per column, one kernel.
  const SchedulerRun& a = r.at(sizes, {1000, 64});
  const SchedulerRun& b = r.at(sizes, {3000, 64});
  EXPECT_GT(a.plan.launch.grid[1], 1u) << a.params;
  EXPECT_NE(a.plan.launch.grid[1], b.plan.launch.grid[1]) << b.params;
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(r.at(sizes, {2000, 64}).source, a.source);
}

TEST(ReductionSymbolic, OuterSumOverTwoDimsReadsContiguousInputsAtTheLoopPosition) {
  // sum(x + y, dims 0 and 1) of [B, S, H]: the two reduced dims are one
  // merged dim whose index is the loop position q, so a contiguous input is
  // read at q times a stride, with no run-time division of q (docs/
  // schedulers/reduction.md, "Symbolic sizes"). y is a view with its two
  // reduced dims swapped in memory: it does not walk them as one and is read
  // at the dims' own indices; both must match the evaluator.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  TensorView* y = defineTensor(f, {-1, -1, -1}, DataType::Float, {false, false, true});
  f.addOutput(sum(add(x, y), {0, 1}));
  for (const auto& [b, s, h] : {std::tuple{4, 6, 64}, std::tuple{3, 50, 128}}) {
    const Tensor yt =
        randomTensor(DataType::Float, {b * s * h}, 5).asStrided({b, s, h}, {h, b * h, 1}, 0);
    const SchedulerRun r =
        expectReductionMatches(hostBackend(), f, {randomTensor(DataType::Float, {b, s, h}, 4), yt},
                               h100Shape(), 0, ShapeMode::Symbolic);
    EXPECT_THAT(r.source, HasSubstr("const idx_t m0 = q;")) << r.source;
    EXPECT_TRUE(std::regex_search(r.source, std::regex(R"(in0 \+ \(m0 \* z\d+ \+ mb\))")))
        << r.source;
    EXPECT_TRUE(std::regex_search(r.source, std::regex(R"(in1 \+ \(i0 \* z\d+ \+ i1 \* z)")))
        << r.source;
  }
}

TEST(ReductionSymbolic, StaticSourcesHoldTheSizes) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(sum(x, {1}));
  const SchedulerRun a =
      expectReductionMatches(hostBackend(), f, {randomTensor(DataType::Float, {8, 1000}, 1)},
                             h100Shape(), 0, ShapeMode::Static);
  const SchedulerRun b =
      expectReductionMatches(hostBackend(), f, {randomTensor(DataType::Float, {8, 1004}, 1)},
                             h100Shape(), 0, ShapeMode::Static);
  EXPECT_NE(a.source, b.source);
  EXPECT_TRUE(std::regex_search(a.source, std::regex("\\b1000\\b"))) << a.source;
  EXPECT_EQ(paramLine(a.params, "shapes"), "");
}

}  // namespace
}  // namespace fusebox::test
