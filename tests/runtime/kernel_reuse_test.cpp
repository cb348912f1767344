// Kernels reused across input sizes through the runtime (docs/runtime.md,
// "Kernels across sizes"): with [runtime] shapes = "symbolic" a pointwise
// and a reduction fusion run over 20 sizes compile at most one kernel per
// distinct decision (scheduler and params hash) and every result matches the
// evaluator; "auto" keeps a fusion that runs at one size on static kernels
// and gives it symbolic ones from its second size on.
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <set>

#include "runtime/runtime_test_util.h"
#include "support/output_match.h"

namespace fusebox {
namespace {

using namespace runtime_testing;

// x * 2 + x * x over x [N, M]: the pointwise scheduler.
std::unique_ptr<Fusion> scaleAndSquare() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(add(mul(x, f->constantDouble(2.0)), mul(x, x)));
  return f;
}

// sum(x * x, 1) over x [N, M]: the reduction scheduler.
std::unique_ptr<Fusion> rowSumOfSquares() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(sum(mul(x, x), {1}));
  return f;
}

struct Sweep {
  std::set<std::pair<std::string, uint64_t>> decisions;  // scheduler and params hash
  std::vector<bool> symbolic;                            // per size, in order
  RuntimeCounters counters;
};

Sweep runSizes(std::unique_ptr<Fusion> fusion, const std::string& shapes,
               const std::vector<std::pair<int64_t, int64_t>>& sizes) {
  Options options;
  options.applyEnvironmentText("test", "runtime", "shapes=" + shapes);
  Captured captured;
  const Fusion& defined = *fusion;
  FusionRuntime runtime(fusion->clone(), loadConfigFile(defaultConfigFile()), builtinPlugins(),
                        options, captured.options());
  Sweep sweep;
  int seed = 1;
  for (const auto& [n, m] : sizes) {
    SCOPED_TRACE(fmt::format("[{}, {}] shapes={}", n, m, shapes));
    const std::vector<Argument> in = {sampleTensor({n, m}, seed++)};
    const std::vector<Argument> out = runtime.run(in);
    const std::vector<Argument> want = evaluateFusion(defined, in);
    const std::vector<OutputTolerance> tolerances = outputTolerances(defined, in);
    EXPECT_TRUE(testing::matchesWithin(out[0], want[0], tolerances[0]));
    const RunReport& report = runtime.lastRun();
    EXPECT_FALSE(report.cache_hit);
    sweep.symbolic.push_back(report.symbolic_shapes);
    for (const SegmentRunRecord& s : report.segments) {
      EXPECT_FALSE(s.kernel.empty()) << s.scheduler << " ran no kernel";
      sweep.decisions.insert({s.scheduler, s.params_hash});
    }
  }
  sweep.counters = runtime.counters();
  return sweep;
}

const std::vector<std::pair<int64_t, int64_t>> kTwentySizes = {
    {2, 3},   {3, 2},   {5, 7},    {7, 5},    {6, 6},    {4, 8},   {8, 4},
    {8, 8},   {16, 16}, {9, 12},   {12, 9},   {2, 128},  {3, 256}, {5, 130},
    {7, 131}, {64, 64}, {40, 200}, {33, 100}, {17, 512}, {65, 96}};

TEST(KernelReuse, PointwiseOverTwentySizesCompilesOncePerDecision) {
  const Sweep s = runSizes(scaleAndSquare(), "symbolic", kTwentySizes);
  EXPECT_EQ(s.counters.concretizations, 1);
  EXPECT_LE(s.counters.kernels_compiled, static_cast<int64_t>(s.decisions.size()));
  EXPECT_LT(s.counters.kernels_compiled, 20);  // sizes share kernels
  EXPECT_EQ(s.counters.kernels_compiled + s.counters.kernels_reused, 20);
  EXPECT_THAT(s.symbolic, ::testing::Each(true));
}

TEST(KernelReuse, ReductionOverTwentySizesCompilesOncePerDecision) {
  const Sweep s = runSizes(rowSumOfSquares(), "symbolic", kTwentySizes);
  EXPECT_LE(s.counters.kernels_compiled, static_cast<int64_t>(s.decisions.size()));
  EXPECT_LT(s.counters.kernels_compiled, 20);
  EXPECT_EQ(s.counters.kernels_compiled + s.counters.kernels_reused, 20);
}

TEST(KernelReuse, StaticShapesCompileEverySize) {
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{4, 8}, {8, 8}, {12, 8}};
  const Sweep s = runSizes(scaleAndSquare(), "static", sizes);
  EXPECT_EQ(s.counters.kernels_compiled, 3);
  EXPECT_EQ(s.counters.kernels_reused, 0);
  EXPECT_THAT(s.symbolic, ::testing::Each(false));
}

// Sizes whose symbolic decisions agree: the first size gets a static kernel,
// the second a symbolic one, every later one reuses it.
TEST(KernelReuse, AutoShapesAreStaticUntilASecondSize) {
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{4, 8}, {8, 8}, {12, 8}, {16, 8}};
  const Sweep s = runSizes(scaleAndSquare(), "auto", sizes);
  EXPECT_EQ(s.symbolic, (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(s.counters.kernels_compiled, 2);
  EXPECT_EQ(s.counters.kernels_reused, 2);
}

TEST(KernelReuse, AutoShapesKeepOneSizeStatic) {
  Options options;
  options.applyEnvironmentText("test", "runtime", "shapes=auto");
  options.applyEnvironmentText("test", "dump", "runtime_cache");
  Captured captured;
  FusionRuntime runtime(scaleAndSquare(), loadConfigFile(defaultConfigFile()), builtinPlugins(),
                        options, captured.options());
  const std::vector<Argument> in = {sampleTensor({4, 8}, 1)};
  for (int k = 0; k < 3; ++k) runtime.run(in);
  EXPECT_EQ(runtime.counters().kernels_compiled, 1);
  EXPECT_EQ(runtime.counters().cache_hits, 2);
  EXPECT_THAT(captured.dump.str(), ::testing::HasSubstr("kernels over static sizes"));
  EXPECT_THAT(captured.dump.str(), ::testing::Not(::testing::HasSubstr("symbolic")));
}

}  // namespace
}  // namespace fusebox
