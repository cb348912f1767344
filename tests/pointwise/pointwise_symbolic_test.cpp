// Pointwise kernels compiled over symbolic sizes (ShapeMode::Symbolic): the
// runtime reuses a compiled kernel for a new size when the regenerated source
// is the same, so the source must hold no size, and params that compare
// sameAs must give one source. Static kernels keep their literals, byte for
// byte as before.
#include <fusebox/ir/ops.h>

#include <regex>
#include <set>

#include "pointwise/pointwise_test_util.h"
#include "support/host_suite.h"
#include "support/source_classes.h"

namespace fusebox::test {
namespace {

// bf16(float(x) * w + y): x bf16 [N, M], w float [M] over every row, y float [N, M].
std::unique_ptr<Fusion> castMulAddFusion() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::BFloat16);
  TensorView* w = defineTensor(*f, {-1}, DataType::Float);
  TensorView* y = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* t = add(mul(castOp(DataType::Float, x), broadcast(w, {true, false})), y);
  f->addOutput(castOp(DataType::BFloat16, t));
  return f;
}

std::vector<Argument> castMulAddInputs(int64_t n, int64_t m, uint32_t seed) {
  return {randomTensor(DataType::BFloat16, {n, m}, seed),
          randomTensor(DataType::Float, {m}, seed + 1),
          randomTensor(DataType::Float, {n, m}, seed + 2)};
}

// Squares among them: two sizes equal in one call must not change the source.
const std::vector<std::pair<int64_t, int64_t>> kSizes = {
    {2, 3},   {3, 2},   {5, 7},   {7, 5},   {6, 6},    {4, 8},    {8, 4},
    {8, 8},   {16, 16}, {9, 12},  {12, 9},  {1, 9},    {9, 1},    {2, 128},
    {3, 256}, {5, 130}, {7, 131}, {64, 64}, {40, 200}, {33, 1000}};

// Whether `text` holds `v` as a number of its own (not inside z17 or int32_t).
bool holdsNumber(const std::string& text, int64_t v) {
  return std::regex_search(text, std::regex("\\b" + std::to_string(v) + "\\b"));
}

bool bindsValue(const KernelPlan& plan, int64_t v) {
  for (const ParamBinding& b : plan.bindings)
    if (b.source == ParamBinding::Source::Value && b.value == v) return true;
  return false;
}

TEST(PointwiseSymbolic, ParamsThatCompareSameGiveOneSourceOverTwentySizes) {
  auto f = castMulAddFusion();
  std::vector<SchedulerRun> runs;
  std::vector<std::string> labels;
  uint32_t seed = 1;
  for (const auto& [n, m] : kSizes) {
    labels.push_back(fmt::format("[{}, {}]", n, m));
    runs.push_back(expectMatchesEvaluator(hostBackend(), *f, castMulAddInputs(n, m, seed), {},
                                          ShapeMode::Symbolic));
    seed += 3;
    const SchedulerRun& r = runs.back();
    EXPECT_EQ(paramLine(r.params, "shapes"), "symbolic") << r.params;
    // No size in the source: each a parameter the plan binds (the row
    // length always; the rows and the element count where the schedule
    // tests them).
    for (int64_t v : {n, m, n * m}) {
      if (v > 16) {
        EXPECT_FALSE(holdsNumber(r.source, v)) << labels.back() << ": " << v << "\n" << r.source;
      }
    }
    if (m > 1) {
      EXPECT_TRUE(bindsValue(r.plan, m)) << labels.back();
    }
  }
  const SourceClasses c = expectOneSourcePerClass(runs, labels);
  // Sizes share kernels: fewer sources than sizes, and squares with the rest.
  EXPECT_LT(c.sources, kSizes.size());
  auto sourceOf = [&](std::pair<int64_t, int64_t> s) {
    return runs[static_cast<size_t>(std::find(kSizes.begin(), kSizes.end(), s) - kSizes.begin())]
        .source;
  };
  EXPECT_EQ(sourceOf({8, 8}), sourceOf({4, 8}));
  EXPECT_EQ(sourceOf({16, 16}), sourceOf({8, 4}));
  EXPECT_EQ(sourceOf({9, 12}), sourceOf({4, 8}));
  EXPECT_EQ(sourceOf({7, 5}), sourceOf({2, 3}));  // odd rows: no vectors
  EXPECT_EQ(sourceOf({12, 9}), sourceOf({5, 7}));
  // Different decisions, different kernels: a size-1 dim, a 2-D schedule.
  EXPECT_NE(sourceOf({1, 9}), sourceOf({2, 3}));
  EXPECT_NE(sourceOf({3, 256}), sourceOf({4, 8}));
}

TEST(PointwiseSymbolic, SameAsComparesDecisionsNotSizes) {
  auto f = castMulAddFusion();
  auto params = [&](int64_t n, int64_t m, ShapeMode mode) {
    std::vector<ArgumentInfo> infos;
    for (const Argument& a : castMulAddInputs(n, m, 1)) infos.push_back(argumentInfo(a));
    RuntimeInfo info(*f, infos, {}, mode);
    return paramsOf(*pointwiseScheduler(), *f, info);
  };
  // [5, 12] and [7, 20]: one decision each way, other sizes.
  EXPECT_TRUE(params(5, 12, ShapeMode::Symbolic)->sameAs(*params(7, 20, ShapeMode::Symbolic)));
  EXPECT_FALSE(params(5, 12, ShapeMode::Static)->sameAs(*params(7, 20, ShapeMode::Static)));
  EXPECT_FALSE(params(5, 12, ShapeMode::Symbolic)->sameAs(*params(5, 12, ShapeMode::Static)));
  // Another vector width (rows of 10 floats take 2), a size-1 dim.
  EXPECT_FALSE(params(5, 12, ShapeMode::Symbolic)->sameAs(*params(5, 10, ShapeMode::Symbolic)));
  EXPECT_FALSE(params(5, 12, ShapeMode::Symbolic)->sameAs(*params(1, 12, ShapeMode::Symbolic)));
  // The dump keeps the sizes and says the mode; Static's has no such line.
  const std::string dump = params(5, 12, ShapeMode::Symbolic)->toString();
  EXPECT_EQ(paramLine(dump, "reference_output"), "0 (sizes [5, 12])") << dump;
  EXPECT_EQ(paramLine(dump, "shapes"), "symbolic") << dump;
  EXPECT_EQ(paramLine(params(5, 12, ShapeMode::Static)->toString(), "shapes"), "");
}

// One source, and params that compare sameAs, for every value of the given
// scalar inputs (the last ones).
void expectOneSourceOverScalars(const Fusion& f, const std::vector<Argument>& tensors,
                                const std::vector<std::vector<int64_t>>& scalars) {
  std::set<std::string> sources;
  std::shared_ptr<const HeuristicParams> first;
  for (const auto& values : scalars) {
    std::vector<Argument> in = tensors;
    for (int64_t v : values) in.emplace_back(v);
    const SchedulerRun r = expectMatchesEvaluator(hostBackend(), f, in, {}, ShapeMode::Symbolic);
    sources.insert(r.source);
    if (first == nullptr) first = r.heuristics;
    if (first != nullptr && r.heuristics != nullptr) {
      EXPECT_TRUE(first->sameAs(*r.heuristics)) << r.params;
    }
  }
  EXPECT_EQ(sources.size(), 1u) << *sources.begin() << "\n" << *sources.rbegin();
}

TEST(PointwiseSymbolic, PadWidthsAndSliceStartsFromInputsAreParameters) {
  // pad(x, [l, r]) * y: the widths scalar inputs, l from -2 to 2 and r = -1 - l
  // (rows of 6 become 5): cropped, untouched or padded on the left, one kernel.
  Fusion pads;
  TensorView* x = defineTensor(pads, {-1, -1}, DataType::Float);
  TensorView* y = defineTensor(pads, {-1, -1}, DataType::Float);
  Scalar* l = defineScalar(pads, DataType::Int64);
  Scalar* r = defineScalar(pads, DataType::Int64);
  pads.addOutput(mul(pad(x, {l, r}), y));
  expectOneSourceOverScalars(
      pads, {randomTensor(DataType::Float, {4, 6}, 1), randomTensor(DataType::Float, {4, 5}, 2)},
      {{-2, 1}, {-1, 0}, {0, -1}, {1, -2}, {2, -3}});
  // x[:, s : s + 5] * y, s a scalar input from 0 to 4.
  Fusion slices;
  TensorView* x2 = defineTensor(slices, {-1, -1}, DataType::Float);
  TensorView* y2 = defineTensor(slices, {-1, -1}, DataType::Float);
  Scalar* start = defineScalar(slices, DataType::Int64);
  slices.addOutput(mul(
      slice(x2, {slices.zero(), start}, {slices.constantInt(4), add(start, slices.constantInt(5))}),
      y2));
  expectOneSourceOverScalars(
      slices, {randomTensor(DataType::Float, {4, 9}, 3), randomTensor(DataType::Float, {4, 5}, 4)},
      {{0}, {1}, {2}, {3}, {4}});
}

TEST(PointwiseSymbolic, RandomNumbersAreNumberedByTheMergedIndex) {
  // x + uniform(x's shape) with a seed: element i of the draw is the
  // merged index itself (docs/random.md), not i0 * z + i1 with i0 and i1
  // divided out of it at run time; the draws match the evaluator bit for
  // bit.
  auto f = std::make_unique<Fusion>();
  Scalar* seed = defineScalar(*f, DataType::Int64);
  Scalar* offset = defineScalar(*f, DataType::Int64);
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* u = uniform(*f, {x->axis(0)->extent(), x->axis(1)->extent()}, f->constantDouble(0.0),
                          f->constantDouble(1.0), DataType::Float, seed, offset);
  f->addOutput(add(x, u));
  f->addOutput(u);
  for (const auto& [n, m] : std::vector<std::pair<int64_t, int64_t>>{{6, 40}, {5, 27}}) {
    const std::vector<Argument> in{ScalarValue(int64_t{99}), ScalarValue(int64_t{3}),
                                   randomTensor(DataType::Float, {n, m}, 8)};
    const PointwiseRun r = expectMatchesEvaluator(hostBackend(), *f, in, {}, ShapeMode::Symbolic);
    EXPECT_NE(r.source.find("uniformNarrow(rng0, static_cast<uint64_t>(m0)"), std::string::npos)
        << r.source;
    EXPECT_EQ(r.outputs.at(1).toDoubles(), std::get<Tensor>(evaluateFusion(*f, in)[1]).toDoubles());
  }
}

TEST(PointwiseSymbolic, StaticSourcesHoldTheSizes) {
  auto f = castMulAddFusion();
  const SchedulerRun a =
      expectMatchesEvaluator(hostBackend(), *f, castMulAddInputs(5, 20, 1), {}, ShapeMode::Static);
  const SchedulerRun b =
      expectMatchesEvaluator(hostBackend(), *f, castMulAddInputs(7, 20, 1), {}, ShapeMode::Static);
  EXPECT_NE(a.source, b.source);
  EXPECT_TRUE(holdsNumber(a.source, 100)) << a.source;  // 5 * 20 elements
  EXPECT_TRUE(holdsNumber(b.source, 140)) << b.source;
  for (const ParamBinding& p : a.plan.bindings) EXPECT_NE(p.source, ParamBinding::Source::Value);
}

// The bias add of BiasAddUsesTwoDimScheduleAndFullVectors ([6, 256] floats)
// as the generator wrote it before kernels over symbolic sizes existed (but
// for the parentheses around a lone `mb`, which index values built as kernel
// IR no longer print, and a block of one row written without a loop).
constexpr const char* kBiasAddSource = R"(// Generated by the fusebox pointwise scheduler.
//   reference_output: 0 (sizes [6, 256])
//   merged_dims: [[0], [1]] (iteration dims; extents [6, 256])
//   schedule: 2-D (break_point 1: merged dims [0, 1) are rows, [1, 2) columns)
//   break_point: 1
//   vector_width: 4
//   unroll: 1
//   threads: 128
//   rows_per_block: 1
//   grid: [1, 6, 1]
//   index_type: int32
#include <fusebox_runtime.cuh>

extern "C" __global__ void fusebox_pointwise_00001aba410bbc74([[maybe_unused]] fusebox::KernelParams p) {
  using idx_t = int32_t;
  [[maybe_unused]] const float* __restrict__ in0 = static_cast<const float*>(p.ptr[0]);
  [[maybe_unused]] const float* __restrict__ in1 = static_cast<const float*>(p.ptr[1]);
  [[maybe_unused]] float* __restrict__ out0 = static_cast<float*>(p.ptr[2]);
  const idx_t s = (static_cast<idx_t>(blockIdx.x) * static_cast<idx_t>(blockDim.x) + static_cast<idx_t>(threadIdx.x)) * 4;
  if (s >= 256) return;
  [[maybe_unused]] const idx_t mb = s;
  // loads that no row dim moves
  const fusebox::Array<float, 4> vl1 = fusebox::loadVec<4>(in1 + mb);
  const idx_t o = static_cast<idx_t>(blockIdx.y);
  if (o >= 6) return;
  [[maybe_unused]] const idx_t m0 = o;
  [[maybe_unused]] const idx_t i0 = m0;
  const fusebox::Array<float, 4> vl0 = fusebox::loadVec<4>(in0 + (m0 * 256 + mb));
  fusebox::Array<float, 4> so0;
  FUSEBOX_UNROLL
  for (int v = 0; v < 4; ++v) {
    [[maybe_unused]] const idx_t m1 = mb + v;
    [[maybe_unused]] const idx_t i1 = m1;
    const float v2 = fusebox::Cast<float>::from(fusebox::op::add(fusebox::Cast<float>::from(vl0[v]), fusebox::Cast<float>::from(vl1[v])));
    so0[v] = fusebox::Cast<float>::from(v2);
  }
  fusebox::storeVec<4>(out0 + (m0 * 256 + mb), so0);
}
)";

TEST(PointwiseSymbolic, StaticSourceOfTheBiasAddIsUnchanged) {
  // pointwise_cases.inc's BiasAddUsesTwoDimScheduleAndFullVectors, as the
  // generator wrote it before kernels over symbolic sizes.
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* bias = defineTensor(*f, {-1}, DataType::Float);
  f->addOutput(add(x, broadcast(bias, {true, false})));
  const SchedulerRun r = expectMatchesEvaluator(
      hostBackend(), *f,
      {randomTensor(DataType::Float, {6, 256}, 1), randomTensor(DataType::Float, {256}, 2)}, {},
      ShapeMode::Static);
  EXPECT_EQ(r.source, kBiasAddSource);
}

TEST(PointwiseSymbolic, MoreSizesThanKernelParamsHoldIsRefused) {
  // cat of 64 vectors of different lengths: each input's bound and offset is
  // a size of its own, over 112 in all.
  Fusion f;
  std::vector<TensorView*> parts;
  std::vector<ArgumentInfo> infos;
  for (int64_t k = 0; k < 64; ++k) {
    parts.push_back(defineTensor(f, {-1}, DataType::Float));
    infos.push_back(TensorArgInfo{DataType::Float, {k + 2}, {1}, 16});
  }
  f.addOutput(cat(parts, 0));
  auto scheduler = pointwiseScheduler();
  ASSERT_TRUE(structuralDecision(*scheduler, f).accepted());
  RuntimeInfo fixed(f, infos, {}, ShapeMode::Static);
  EXPECT_TRUE(runTimeDecision(*scheduler, f, fixed).accepted());
  RuntimeInfo symbolic(f, infos, {}, ShapeMode::Symbolic);
  const Decision d = runTimeDecision(*scheduler, f, symbolic);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("of them sizes of a kernel compiled over symbolic sizes"),
            std::string::npos)
      << d.reason();
  EXPECT_NE(d.reason().find("KernelParams holds 128, 112 and 16"), std::string::npos) << d.reason();
}

}  // namespace
}  // namespace fusebox::test
