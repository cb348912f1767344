// The runtime with kernels on the host backend: every example and benchmark
// workload (small inputs) matches the evaluator and is run by the scheduler we
// expect; a cache hit binds and launches only; --backend eval runs no kernels;
// KernelParams come from a plan's bindings; kept scratch is shared by a
// plan's launches, other scratch is zeroed for each.
#include <fusebox/backend/backend_choice.h>
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/kernel_launch.h>

#include <gmock/gmock.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "runtime/runtime_test_util.h"
#include "runtime/runtime_workloads.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace runtime_testing;
using runtime_testing::kWorkloads;

std::unique_ptr<FusionRuntime> hostRuntime(std::unique_ptr<Fusion> fusion, Captured& captured,
                                           BackendChoice backend = BackendChoice::Host) {
  RuntimeOptions o = captured.options();
  o.backend = backend;
  return std::make_unique<FusionRuntime>(std::move(fusion), loadConfigFile(defaultConfigFile()),
                                         builtinPlugins(), Options(), o);
}

// Each workload is called twice with other values: the second call, a cache
// hit, reuses the scratch and index-error records the first left behind.
TEST(RuntimeBackends, EveryExampleAndWorkloadMatchesTheEvaluatorOnTheHostBackend) {
  for (const Workload& w : kWorkloads) {
    SCOPED_TRACE(w.file);
    PythonDefinition def = parsePythonFile((fs::path(FUSEBOX_SOURCE_DIR) / w.file).string());
    Captured captured;
    auto rt = hostRuntime(def.fusion->clone(), captured);
    for (uint64_t call = 0; call < 2; ++call) {
      for (const Argument& out : expectWorkloadCallMatches(*rt, def, w, call)) {
        if (const auto* t = std::get_if<Tensor>(&out)) {
          EXPECT_EQ(t->device(), Device::Host);
        }
      }
      EXPECT_EQ(captured.diagnostics.str(), "");
    }
  }
}

// exp(x) * 2 + x: one pointwise kernel.
std::unique_ptr<Fusion> chain() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(add(mul(exp(x), f->constantDouble(2.0)), x));
  return f;
}

TEST(RuntimeBackends, ACacheHitOnlyBindsAndLaunches) {
  Captured captured;
  auto rt = hostRuntime(chain(), captured);
  Tensor x = sampleTensor({3, 5});
  auto first = rt->run({x});
  EXPECT_FALSE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().compile.kernels, 1);
  ASSERT_EQ(rt->lastRun().segments.size(), 1u);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "pointwise");
  EXPECT_THAT(rt->lastRun().segments[0].kernel, HasSubstr("fusebox_pointwise_"));
  const RuntimeCounters before = rt->counters();

  Tensor y = sampleTensor({3, 5}, 4);  // same signature, other values
  auto second = rt->run({y});
  const RuntimeCounters& after = rt->counters();
  EXPECT_TRUE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().compile.kernels, 0);
  EXPECT_EQ(rt->lastRun().compile.heuristics_ms, 0);
  EXPECT_EQ(after.plans_made, before.plans_made);
  EXPECT_EQ(after.proposals_made, before.proposals_made);
  EXPECT_EQ(after.segmentations, before.segmentations);
  EXPECT_EQ(after.pass_pipeline_runs, before.pass_pipeline_runs);
  EXPECT_EQ(after.segments_run, before.segments_run + 1);
  // The kernel really ran again on the new values.
  EXPECT_TRUE(checkClose(std::get<Tensor>(second[0]),
                         std::get<Tensor>(evaluateFusion(rt->fusion(), {y})[0]))
                  .pass);
  EXPECT_FALSE(checkClose(std::get<Tensor>(second[0]), std::get<Tensor>(first[0])).pass);
}

TEST(RuntimeBackends, EvalBackendRefusesKernelsQuietly) {
  Captured captured;
  auto rt = hostRuntime(chain(), captured, BackendChoice::Eval);
  EXPECT_EQ(rt->backendChoice(), BackendChoice::Eval);
  Tensor x = sampleTensor({3, 5});
  auto got = rt->run({x});
  ASSERT_EQ(rt->lastRun().segments.size(), 1u);
  EXPECT_EQ(rt->lastRun().segments[0].scheduler, "expr_eval");
  EXPECT_EQ(rt->lastRun().compile.kernels, 0);
  EXPECT_EQ(rt->counters().fallbacks, 1);
  EXPECT_EQ(captured.diagnostics.str(), "");  // what the user asked for: no warning
  expectSameValues(got[0], evaluateFusion(rt->fusion(), {x})[0]);
  EXPECT_THAT(rt->describeBackend(), HasSubstr("eval"));
}

TEST(RuntimeBackends, BenchmarkKernelsTimesEachKernel) {
  Captured captured;
  auto rt = hostRuntime(chain(), captured);
  Tensor x = sampleTensor({64, 32});
  auto bench = rt->benchmarkKernels({x}, 3);
  ASSERT_EQ(bench.size(), 1u);
  EXPECT_THAT(bench[0].kernel, HasSubstr("fusebox_pointwise_"));
  EXPECT_GT(bench[0].median_ms, 0);
  EXPECT_EQ(bench[0].bytes_moved, 2 * 64 * 32 * 4);  // x read once, the output written once
  EXPECT_GT(bench[0].gigabytesPerSecond(), 0);
}

TEST(RuntimeBackends, GridCombinesLeaveTheirKeptScratchReadyForTheNextCall) {
  // Split over 4 blocks a column, a sum and a var_mean combine partials
  // through a ticket the last block resets: kept scratch, zeroed before the
  // first call only. Each later call, on other values, must still be right.
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(sum(x, {0}));
  auto [var, mean] = varMean(x, {0}, 1, false);
  f->addOutput(var);
  f->addOutput(mean);
  Config config = loadConfigFile(defaultConfigFile());
  applySetting(config, "schedulers.reduction.grid_splits=4");
  Captured captured;
  RuntimeOptions o = captured.options();
  o.backend = BackendChoice::Host;
  Options options;
  options.applyEnvironmentText("test", "dump", "scheduler_params");
  FusionRuntime rt(std::move(f), config, builtinPlugins(), options, o);
  for (int salt = 0; salt < 3; ++salt) {
    SCOPED_TRACE(salt);
    const Tensor in = sampleTensor({512, 24}, salt);
    const std::vector<Argument> got = rt.run({in});
    const std::vector<Argument> expected = evaluateFusion(rt.fusion(), {in});
    const std::vector<OutputTolerance> tolerances = outputTolerances(rt.fusion(), {in});
    ASSERT_EQ(got.size(), 3u);
    for (size_t k = 0; k < got.size(); ++k) {
      const CloseResult r = checkClose(got[k], expected[k], tolerances[k]);
      EXPECT_TRUE(r.pass) << "output " << k << ": " << r.shape_error << r.first_mismatch;
    }
    ASSERT_EQ(rt.lastRun().segments.size(), 1u);
    EXPECT_EQ(rt.lastRun().segments[0].scheduler, "reduction");
  }
  EXPECT_THAT(captured.dump.str(), HasSubstr(", 4, 1]")) << "the grid splits each column in 4";
}

TEST(KernelLaunch, ParamsComeFromTheBindings) {
  KernelPlan plan;
  plan.kernel.name = "k";
  plan.bindings = {{ParamBinding::Source::OutputData, 0, 0},
                   {ParamBinding::Source::InputData, 1, 2},
                   {ParamBinding::Source::InputScalar, 0, 3, false},
                   {ParamBinding::Source::InputScalar, 2, 1, true}};
  Tensor in = sampleTensor({4});
  Tensor out = sampleTensor({2});
  std::vector<Argument> inputs = {ScalarValue(int64_t{7}), in, ScalarValue(2.5)};
  KernelParams p = bindKernelParams(plan, inputs, {out});
  EXPECT_EQ(p.ptr[0], out.data());
  EXPECT_EQ(p.ptr[2], in.data());
  EXPECT_EQ(p.ptr[1], nullptr);
  EXPECT_EQ(p.i64[3], 7);
  EXPECT_EQ(p.f64[1], 2.5);
}

TEST(KernelLaunch, ABadBindingIsAnInternalErrorNamingIt) {
  KernelPlan plan;
  plan.kernel.name = "k";
  plan.bindings = {{ParamBinding::Source::InputData, 0, 0}};
  std::vector<Argument> scalar_only = {ScalarValue(1.0)};
  try {
    bindKernelParams(plan, scalar_only, {});
    ADD_FAILURE() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel k: binding {InputData, index 0, slot 0} names no "
                                    "tensor input"));
  }
  plan.bindings = {{ParamBinding::Source::OutputData, 0, KernelParams::kMaxPointers}};
  EXPECT_THROW(bindKernelParams(plan, {}, {sampleTensor({1})}), InternalError);
}

// The host backend with memory that starts dirty (0x5a bytes) and a count of
// the zeroings, so that a test sees which buffers were zeroed and when.
class DirtyMemoryBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Host; }
  std::string describe() const override { return "dirty host memory"; }
  std::shared_ptr<CompiledKernel> compile(const KernelSource& kernel,
                                          CompileTimings* timings) override {
    return host_->compile(kernel, timings);
  }
  Tensor allocate(DataType dtype, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides) override {
    Tensor t = host_->allocate(dtype, sizes, strides);
    std::memset(t.data(), 0x5a, static_cast<size_t>(t.storage()->nbytes));
    return t;
  }
  Tensor toBackend(const Tensor& host) override { return host_->toBackend(host); }
  Tensor toHost(const Tensor& t) override { return host_->toHost(t); }
  void memsetZero(const Tensor& t) override {
    ++zeroings;
    host_->memsetZero(t);
  }
  void copy(const Tensor& src, const Tensor& dst) override { host_->copy(src, dst); }
  void synchronize() override {}
  int zeroings = 0;

 private:
  std::shared_ptr<Backend> host_ = sharedBackend(BackendKind::Host);
};

TEST(KernelLaunch, KeptScratchIsZeroedOnceAndSharedByEveryLaunch) {
  DirtyMemoryBackend backend;
  KernelPlan plan;
  plan.kernel.name = "k";
  ParamBinding kept{ParamBinding::Source::ScratchData, 0, 0};
  kept.bytes = 20;
  kept.kept = true;
  ParamBinding fresh{ParamBinding::Source::ScratchData, 1, 1};
  fresh.bytes = 8;
  plan.bindings = {kept, {ParamBinding::Source::IndexErrors, 0, 2}, fresh};
  plan.index_checks = {{"gather", "T0", 0, 4, 0}};
  SharedScratch shared;
  std::vector<Tensor> first = allocateKernelScratch(backend, plan, shared);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].numel(), 3) << "20 bytes in whole 8-byte words";
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(first[0].getDouble({i}), 0);
  EXPECT_EQ(first[2].getDouble({0}), 0);
  ASSERT_NE(shared.index_errors, nullptr);
  EXPECT_EQ(first[1].data(), shared.index_errors->words().data());
  EXPECT_EQ(first[1].getDouble({0}), 0) << "the record starts clear";
  EXPECT_EQ(first[1].getDouble({1}), 0);
  const int zeroings = backend.zeroings;
  // What a launch leaves in its buffers.
  static_cast<int64_t*>(first[0].data())[1] = 5;
  static_cast<int64_t*>(first[2].data())[0] = 9;
  std::vector<Tensor> second = allocateKernelScratch(backend, plan, shared);
  EXPECT_EQ(second[0].data(), first[0].data()) << "kept: the same buffer";
  EXPECT_EQ(second[0].getDouble({1}), 5) << "kept: not zeroed again";
  EXPECT_EQ(second[1].data(), first[1].data());
  EXPECT_NE(second[2].data(), first[2].data());
  EXPECT_EQ(second[2].getDouble({0}), 0) << "not kept: zeroed for every launch";
  EXPECT_EQ(backend.zeroings, zeroings + 1) << "the second launch zeroes the fresh buffer only";
}

}  // namespace
}  // namespace fusebox
