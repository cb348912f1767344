// Loads under pad and cat branches read as whole vectors (kernelgen/
// branch_bounds.h): where every bound a chunk of vector_width elements could
// cross falls on a multiple of the width, the chunk checks each branch once,
// loads the branch's input as one vector guarded by that check and selects
// from it per element. Elsewhere the loads stay scalar. Each case also runs
// on the host backend against the reference evaluator, in both shape modes.
#include <fusebox/ir/ops.h>

#include <regex>

#include "pointwise/pointwise_test_util.h"
#include "support/host_suite.h"
#include "support/source_classes.h"

namespace fusebox::test {
namespace {

const ShapeMode kModes[] = {ShapeMode::Static, ShapeMode::Symbolic};

std::string modeName(ShapeMode m) {
  return m == ShapeMode::Static ? "static" : "symbolic";
}

// Whether the source reads `pointer` element by element anywhere
// (`in0[...]`: scalarLoad's form; vector loads are loadVec<N>(in0 + ...)).
bool hasScalarLoad(const std::string& source, const std::string& pointer) {
  return source.find(pointer + "[") != std::string::npos;
}

// Guarded vector loads of `pointer`: `c1 ? fusebox::loadVec<N>(pointer + ...) : ...`,
// or `c1 || c2 ? ...` for loads under different inputs of one cat.
size_t guardedVectorLoads(const std::string& source, const std::string& pointer, int width) {
  const std::regex re("= c[0-9]+( \\|\\| c[0-9]+)* \\? fusebox::loadVec<" + std::to_string(width) +
                      ">\\(" + pointer + " \\+");
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(source.begin(), source.end(), re), {}));
}

// benchmarks/workloads/rope_bf16.py's math at [B, H, S, D]: x * cos +
// cat([-x[..., D/2:], x[..., :D/2]], -1) * sin, computed in float and
// rounded to `dtype`; the half is D / 2 of x's extent, so one fusion serves
// every head dim.
std::unique_ptr<Fusion> ropeFusion(DataType dtype) {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1, -1, -1}, dtype);
  TensorView* cos = defineTensor(*f, {-1, -1}, dtype);
  TensorView* sin = defineTensor(*f, {-1, -1}, dtype);
  std::vector<Val*> zeros(4, f->zero()), ends;
  for (IterDomain* id : x->logical()) ends.push_back(id->extent());
  Val* half = div(ends[3], f->constantInt(2));
  std::vector<Val*> first_end = ends, second_start = zeros;
  first_end[3] = half;
  second_start[3] = half;
  TensorView* x1 = slice(x, zeros, first_end);
  TensorView* x2 = slice(x, second_start, ends);
  TensorView* rot = cat({castOp(dtype, neg(castOp(DataType::Float, x2))), x1}, 3);
  auto wide = [&](TensorView* t) { return castOp(DataType::Float, t); };
  TensorView* y = add(mul(wide(x), wide(broadcast(cos, {true, true, false, false}))),
                      mul(wide(rot), wide(broadcast(sin, {true, true, false, false}))));
  f->addOutput(castOp(dtype, y));
  return f;
}

std::vector<Argument> ropeInputs(DataType dtype, std::vector<int64_t> sizes, uint32_t seed) {
  const std::vector<int64_t> table{sizes[2], sizes[3]};
  return {randomTensor(dtype, sizes, seed), randomTensor(dtype, table, seed + 1),
          randomTensor(dtype, table, seed + 2)};
}

TEST(PointwiseResizeVectors, RopeReadsItsRotatedHalfAsVectors) {
  for (const auto& [dtype, width] :
       std::vector<std::pair<DataType, int>>{{DataType::BFloat16, 8}, {DataType::Float, 4}}) {
    for (ShapeMode mode : kModes) {
      SCOPED_TRACE(fmt::format("{} {}", irName(dtype), modeName(mode)));
      auto f = ropeFusion(dtype);
      const SchedulerRun r = expectMatchesEvaluator(
          hostBackend(), *f, ropeInputs(dtype, {2, 4, 16, 128}, 3), {}, mode);
      EXPECT_EQ(paramLine(r.params, "vector_width"), std::to_string(width)) << r.params;
      // Both halves of the cat: one check per chunk, and as the two halves
      // of x exclude each other, one vector load from the half the chunk's
      // branch selects (besides x's own vector).
      EXPECT_EQ(paramLine(r.params, "branch_checks"), "[chunk, chunk]") << r.params;
      EXPECT_EQ(paramLine(r.params, "branch_loads"), "[vector, vector]") << r.params;
      EXPECT_EQ(guardedVectorLoads(r.source, "in0", width), 1u) << r.source;
      EXPECT_TRUE(std::regex_search(
          r.source, std::regex("loadVec<" + std::to_string(width) + ">\\(in0 \\+ \\(c[0-9]+ \\? ")))
          << r.source;
      EXPECT_FALSE(hasScalarLoad(r.source, "in0")) << r.source;
      // The kernel's header comment says so too.
      EXPECT_NE(r.source.find("//   branch_loads: [vector, vector]"), std::string::npos);
      // The negated half is a bfloat16 value already (kernelgen/exact_values.h):
      // the one rounding to bfloat16 is the output's.
      if (dtype == DataType::BFloat16) {
        const std::string rounding = "Cast<fusebox::BFloat16>::from";
        const size_t first = r.source.find(rounding);
        ASSERT_NE(first, std::string::npos) << r.source;
        EXPECT_EQ(r.source.find(rounding, first + 1), std::string::npos) << r.source;
      }
    }
  }
}

// A rounding to a 16-bit float makes a NaN the canonical +NaN; a rounding
// the kernel skips because the value is exact already would keep the sign
// of neg(NaN). signbit sees it, so a segment holding signbit skips none:
// signbit(cast(neg(cast(x, float)), bf16)) is false on NaN elements, as the
// evaluator has it, for the canonical NaN and for a -NaN input alike.
TEST(PointwiseResizeVectors, ASegmentWithSignbitRoundsEveryValue) {
  for (DataType dtype : {DataType::BFloat16, DataType::Half}) {
    SCOPED_TRACE(irName(dtype));
    auto f = std::make_unique<Fusion>();
    TensorView* x = defineTensor(*f, {-1}, dtype);
    TensorView* y = castOp(dtype, neg(castOp(DataType::Float, x)));
    f->addOutput(unaryOp(UnaryOpType::Signbit, y));
    f->addOutput(y);
    Tensor in = randomTensor(dtype, {64}, 5);
    auto* bits = static_cast<uint16_t*>(in.data());
    bits[3] = 0x7FFF;                                     // the canonical NaN
    bits[9] = dtype == DataType::Half ? 0xFE00 : 0xFFC0;  // a -NaN
    const SchedulerRun r = expectMatchesEvaluator(hostBackend(), *f, {in}, {}, ShapeMode::Static);
    const std::vector<double> sign = r.outputs.at(0).toDoubles();
    EXPECT_EQ(sign[3], 0.0);
    EXPECT_EQ(sign[9], 0.0);
    const std::string rounding =
        fmt::format("Cast<fusebox::{}>::from", dtype == DataType::Half ? "Half" : "BFloat16");
    EXPECT_NE(r.source.find(rounding), std::string::npos) << r.source;
  }
}

TEST(PointwiseResizeVectors, SymbolicRopeSharesKernelsWhileTheHalvesAlign) {
  // Head dims whose half is a multiple of 8 bf16 share one kernel; others
  // (halves of 66 and 18) read the halves per element, in another kernel.
  const std::vector<std::vector<int64_t>> sizes = {
      {2, 4, 16, 128}, {3, 2, 8, 256}, {2, 2, 8, 96}, {2, 2, 8, 132}, {2, 2, 8, 36}};
  auto f = ropeFusion(DataType::BFloat16);
  std::vector<SchedulerRun> runs;
  std::vector<std::string> labels;
  uint32_t seed = 10;
  for (const auto& s : sizes) {
    labels.push_back(fmt::format("[{}]", fmt::join(s, ", ")));
    runs.push_back(expectMatchesEvaluator(
        hostBackend(), *f, ropeInputs(DataType::BFloat16, s, seed += 3), {}, ShapeMode::Symbolic));
  }
  expectOneSourcePerClass(runs, labels);
  for (size_t k = 0; k < runs.size(); ++k) {
    const bool aligned = k < 3;
    EXPECT_EQ(paramLine(runs[k].params, "branch_loads"),
              aligned ? "[vector, vector]" : "[per element, per element]")
        << labels[k] << "\n"
        << runs[k].params;
    EXPECT_EQ(hasScalarLoad(runs[k].source, "in0"), !aligned) << labels[k];
    ASSERT_NE(runs[k].heuristics, nullptr);
    EXPECT_EQ(runs[k].heuristics->sameAs(*runs[0].heuristics), aligned) << labels[k];
  }
  EXPECT_EQ(runs[1].source, runs[0].source);
  EXPECT_EQ(runs[2].source, runs[0].source);
}

// cat([a, b], 1) of float rows [N, ka] and [N, kb].
std::unique_ptr<Fusion> catFusion(DataType dtype = DataType::Float) {
  auto f = std::make_unique<Fusion>();
  TensorView* a = defineTensor(*f, {-1, -1}, dtype);
  TensorView* b = defineTensor(*f, {-1, -1}, dtype);
  f->addOutput(neg(cat({a, b}, 1)));
  return f;
}

TEST(PointwiseResizeVectors, CatVectorizesWhereItsBoundaryAligns) {
  // Rows of 128 floats (width 4): a boundary at 64 or 72 splits no chunk,
  // one at 3 or 66 does; the width stays 4 either way.
  for (ShapeMode mode : kModes) {
    for (const auto& [ka, loads] :
         std::vector<std::pair<int64_t, std::string>>{{64, "[vector, vector]"},
                                                      {72, "[vector, vector]"},
                                                      {3, "[per element, per element]"},
                                                      {66, "[per element, per element]"}}) {
      SCOPED_TRACE(fmt::format("{} ka {}", modeName(mode), ka));
      auto f = catFusion();
      const SchedulerRun r =
          expectMatchesEvaluator(hostBackend(), *f,
                                 {randomTensor(DataType::Float, {6, ka}, 1),
                                  randomTensor(DataType::Float, {6, 128 - ka}, 2)},
                                 {}, mode);
      EXPECT_EQ(paramLine(r.params, "vector_width"), "4") << r.params;
      EXPECT_EQ(paramLine(r.params, "branch_loads"), loads) << r.params;
      const bool vector = loads == "[vector, vector]";
      EXPECT_EQ(paramLine(r.params, "branch_checks"),
                vector ? "[chunk, chunk]" : "[element, element]")
          << r.params;
      EXPECT_EQ(guardedVectorLoads(r.source, "in0", 4) + guardedVectorLoads(r.source, "in1", 4),
                vector ? 2u : 0u)
          << r.source;
      EXPECT_EQ(hasScalarLoad(r.source, "in0") || hasScalarLoad(r.source, "in1"), !vector)
          << r.source;
    }
  }
}

TEST(PointwiseResizeVectors, SymbolicCatBoundaryAlignmentIsADecision) {
  // One fusion, sizes from the inputs: where the boundary falls is part of
  // the params, so an unaligned one gets a kernel of its own.
  auto f = catFusion();
  std::vector<SchedulerRun> runs;
  std::vector<std::string> labels;
  for (const auto& [n, ka, kb] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {6, 64, 64}, {5, 72, 56}, {3, 32, 96}, {6, 66, 62}, {4, 3, 125}}) {
    labels.push_back(fmt::format("[{}, {} + {}]", n, ka, kb));
    runs.push_back(expectMatchesEvaluator(
        hostBackend(), *f,
        {randomTensor(DataType::Float, {n, ka}, 5), randomTensor(DataType::Float, {n, kb}, 6)}, {},
        ShapeMode::Symbolic));
  }
  expectOneSourcePerClass(runs, labels);
  EXPECT_TRUE(runs[1].heuristics->sameAs(*runs[0].heuristics));
  EXPECT_TRUE(runs[2].heuristics->sameAs(*runs[0].heuristics));
  EXPECT_FALSE(runs[3].heuristics->sameAs(*runs[0].heuristics));
  EXPECT_FALSE(runs[4].heuristics->sameAs(*runs[0].heuristics));
  EXPECT_EQ(runs[2].source, runs[0].source);
  EXPECT_NE(runs[3].source, runs[0].source);
}

TEST(PointwiseResizeVectors, CatOfThreeWithAnEmptyInputAndAPartialLastChunk) {
  // cat of 1-D floats [64], [0], [37]: 101 elements, width 4 with a scalar
  // tail for the last one; the empty input has no branch, and the boundary
  // at 64 aligns, so both branches are vectors in whole chunks.
  for (ShapeMode mode : kModes) {
    SCOPED_TRACE(modeName(mode));
    auto f = std::make_unique<Fusion>();
    TensorView* a = defineTensor(*f, {-1}, DataType::Float);
    TensorView* e = defineTensor(*f, {-1}, DataType::Float);
    TensorView* b = defineTensor(*f, {-1}, DataType::Float);
    f->addOutput(exp(cat({a, e, b}, 0)));
    const SchedulerRun r = expectMatchesEvaluator(
        hostBackend(), *f,
        {randomTensor(DataType::Float, {64}, 1), randomTensor(DataType::Float, {0}, 2),
         randomTensor(DataType::Float, {37}, 3)},
        {}, mode);
    EXPECT_EQ(paramLine(r.params, "vector_width"), "4") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_loads"), "[vector, vector]") << r.params;
    // The tail reads per element.
    EXPECT_TRUE(hasScalarLoad(r.source, "in2")) << r.source;
    EXPECT_EQ(guardedVectorLoads(r.source, "in2", 4), 1u) << r.source;
  }
}

TEST(PointwiseResizeVectors, SliceStartingOffTheVectorStaysScalarUnderAnAlignedCat) {
  // cat([x[:, 3:67], y], 1) in bf16, rows of 128: the boundary at 64 aligns
  // (one check per chunk), but x's slice starts 6 bytes into a row, so only
  // y is a vector; the other vectors keep their width.
  for (ShapeMode mode : kModes) {
    SCOPED_TRACE(modeName(mode));
    auto f = std::make_unique<Fusion>();
    TensorView* x = defineTensor(*f, {-1, -1}, DataType::BFloat16);
    TensorView* y = defineTensor(*f, {-1, -1}, DataType::BFloat16);
    TensorView* xs =
        slice(x, {f->zero(), f->constantInt(3)}, {f->constantInt(4), f->constantInt(67)});
    f->addOutput(cat({xs, y}, 1));
    const SchedulerRun r = expectMatchesEvaluator(hostBackend(), *f,
                                                  {randomTensor(DataType::BFloat16, {4, 80}, 1),
                                                   randomTensor(DataType::BFloat16, {4, 64}, 2)},
                                                  {}, mode);
    EXPECT_EQ(paramLine(r.params, "vector_width"), "8") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_checks"), "[chunk, chunk]") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_loads"), "[per element, vector]") << r.params;
    EXPECT_TRUE(hasScalarLoad(r.source, "in0")) << r.source;
    EXPECT_EQ(guardedVectorLoads(r.source, "in1", 8), 1u) << r.source;
  }
}

TEST(PointwiseResizeVectors, PadVectorizesWhereItsWidthsAlign) {
  // pad(x, [l, r]) * 2 of float rows [5, 120 - l - r + ...]: output rows of
  // 128 (width 4). Widths of 8 and 4 align; 3 does not; an empty input
  // (every element the pad value) never reads.
  for (ShapeMode mode : kModes) {
    for (const auto& [l, r, loads] :
         std::vector<std::tuple<int64_t, int64_t, std::string>>{{8, 0, "[vector]"},
                                                                {4, 12, "[vector]"},
                                                                {3, 5, "[per element]"},
                                                                {0, 0, ""},
                                                                {64, 64, "[per element]"}}) {
      SCOPED_TRACE(fmt::format("{} pad [{}, {}]", modeName(mode), l, r));
      auto f = std::make_unique<Fusion>();
      TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
      f->addOutput(mul(pad(x, {f->constantInt(l), f->constantInt(r)}, f->constantDouble(0.5)),
                       f->constantDouble(2.0)));
      const SchedulerRun run = expectMatchesEvaluator(
          hostBackend(), *f, {randomTensor(DataType::Float, {5, 128 - l - r}, 7)}, {}, mode);
      EXPECT_EQ(paramLine(run.params, "vector_width"), "4") << run.params;
      EXPECT_EQ(paramLine(run.params, "branch_loads"), loads) << run.params;
      EXPECT_EQ(hasScalarLoad(run.source, "in0"), loads == "[per element]") << run.source;
    }
  }
}

TEST(PointwiseResizeVectors, PadBySmallerThanTheVectorKeepsTheWidth) {
  // bf16 rows padded by 4 on the left: chunks of 8 straddle the boundary, so
  // the loads stay scalar, and the stores keep their 16-byte vectors.
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::BFloat16);
  f->addOutput(pad(x, {f->constantInt(4), f->constantInt(4)}));
  const SchedulerRun r = expectMatchesEvaluator(
      hostBackend(), *f, {randomTensor(DataType::BFloat16, {3, 248}, 9)}, {}, ShapeMode::Static);
  EXPECT_EQ(paramLine(r.params, "vector_width"), "8") << r.params;
  EXPECT_EQ(paramLine(r.params, "branch_checks"), "[element]") << r.params;
  EXPECT_EQ(paramLine(r.params, "branch_loads"), "[per element]") << r.params;
  EXPECT_NE(r.source.find("fusebox::storeVec<8>(out0"), std::string::npos) << r.source;
}

TEST(PointwiseResizeVectors, FloatLoadsUnderBranchesNarrowABFloat16Vector) {
  // bf16(cat([a, b], 1)) of float inputs: the outputs alone allow 8, but the
  // float loads, which align, count as plain accesses: 4 floats (16 bytes).
  for (ShapeMode mode : kModes) {
    SCOPED_TRACE(modeName(mode));
    auto f = std::make_unique<Fusion>();
    TensorView* a = defineTensor(*f, {-1, -1}, DataType::Float);
    TensorView* b = defineTensor(*f, {-1, -1}, DataType::Float);
    f->addOutput(castOp(DataType::BFloat16, cat({a, b}, 1)));
    const SchedulerRun r = expectMatchesEvaluator(
        hostBackend(), *f,
        {randomTensor(DataType::Float, {4, 64}, 1), randomTensor(DataType::Float, {4, 192}, 2)}, {},
        mode);
    EXPECT_EQ(paramLine(r.params, "vector_width"), "4") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_loads"), "[vector, vector]") << r.params;
  }
}

TEST(PointwiseResizeVectors, ABranchTheInnermostDimDoesNotMoveLoadsOncePerChunk) {
  // cat([expand(a[:, None], [N, 64]), b], 0): the first branch reads a[i0]
  // for every column, once per chunk; the boundary moves with the rows only,
  // so both branches are checked once per chunk.
  for (ShapeMode mode : kModes) {
    SCOPED_TRACE(modeName(mode));
    auto f = std::make_unique<Fusion>();
    TensorView* a = defineTensor(*f, {-1}, DataType::Float);
    TensorView* b = defineTensor(*f, {-1, -1}, DataType::Float);
    TensorView* col =
        expand(broadcast(a, {false, true}), {a->logical()[0]->extent(), f->constantInt(64)});
    f->addOutput(add(cat({col, b}, 0), f->constantDouble(1.0)));
    const SchedulerRun r = expectMatchesEvaluator(
        hostBackend(), *f,
        {randomTensor(DataType::Float, {3}, 1), randomTensor(DataType::Float, {5, 64}, 2)}, {},
        mode);
    EXPECT_EQ(paramLine(r.params, "vector_width"), "4") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_checks"), "[chunk, chunk]") << r.params;
    EXPECT_EQ(paramLine(r.params, "branch_loads"), "[hoisted, vector]") << r.params;
    EXPECT_FALSE(hasScalarLoad(r.source, "in1")) << r.source;
  }
}

TEST(PointwiseResizeVectors, LoadsUnderTwoPadsOfOneInputStayApart) {
  // pad(x, [8, 0]) + pad(x, [0, 8]) of float rows [3, 120]: each element
  // may need both, so the two guarded vectors of x are two loads.
  for (ShapeMode mode : kModes) {
    SCOPED_TRACE(modeName(mode));
    auto f = std::make_unique<Fusion>();
    TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
    f->addOutput(add(pad(x, {f->constantInt(8), f->constantInt(0)}),
                     pad(x, {f->constantInt(0), f->constantInt(8)})));
    const SchedulerRun r = expectMatchesEvaluator(
        hostBackend(), *f, {randomTensor(DataType::Float, {3, 120}, 4)}, {}, mode);
    EXPECT_EQ(paramLine(r.params, "branch_loads"), "[vector, vector]") << r.params;
    EXPECT_EQ(guardedVectorLoads(r.source, "in0", 4), 2u) << r.source;
  }
}

}  // namespace
}  // namespace fusebox::test
