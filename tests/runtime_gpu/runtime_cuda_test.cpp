// The runtime on the cuda backend: the examples and workloads match the
// evaluator; device tensors pass through without copies; expr_eval runs matmul
// through cuBLAS and anything else on the host with copies it names; kernels
// time with CUDA events; index errors reach the host. Every test skips
// without a usable GPU.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <filesystem>

#include "runtime/runtime_test_util.h"
#include "runtime/runtime_workloads.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace runtime_testing;

class RuntimeCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    CudaAvailability cuda = cudaAvailable();
    if (!cuda.available) GTEST_SKIP() << "no usable GPU: " << cuda.reason;
  }
  std::unique_ptr<FusionRuntime> runtime(std::unique_ptr<Fusion> fusion, bool outputs_on_host,
                                         Options options = Options(),
                                         const std::vector<std::string>& disabled = {}) {
    RuntimeOptions o = captured.options();
    o.backend = BackendChoice::Cuda;
    o.outputs_on_host = outputs_on_host;
    Config config = loadConfigFile(defaultConfigFile());
    for (const std::string& name : disabled) config.disabled_schedulers.push_back({name, {}});
    return std::make_unique<FusionRuntime>(std::move(fusion), std::move(config), builtinPlugins(),
                                           std::move(options), o);
  }
  Captured captured;
};

// Each workload twice, with other values: the second call reuses the kept
// scratch (tickets, grid barrier words, partials) and index-error records.
TEST_F(RuntimeCuda, EveryExampleAndWorkloadMatchesTheEvaluator) {
  for (const Workload& w : kWorkloads) {
    SCOPED_TRACE(w.file);
    PythonDefinition def = parsePythonFile((fs::path(FUSEBOX_SOURCE_DIR) / w.file).string());
    auto rt = runtime(def.fusion->clone(), /*outputs_on_host=*/true);
    EXPECT_EQ(rt->backendChoice(), BackendChoice::Cuda);
    for (uint64_t call = 0; call < 2; ++call) expectWorkloadCallMatches(*rt, def, w, call);
  }
}

std::unique_ptr<Fusion> chain() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(add(mul(exp(x), f->constantDouble(2.0)), x));
  return f;
}

TEST_F(RuntimeCuda, DeviceTensorsPassThroughAndOutputsStayOnTheDevice) {
  auto rt = runtime(chain(), /*outputs_on_host=*/false);
  Backend& backend = *rt->backend();
  Tensor host = sampleTensor({33, 65});
  Tensor device = backend.toBackend(host);
  std::vector<Argument> got = rt->run({device});
  const Tensor& out = std::get<Tensor>(got[0]);
  EXPECT_EQ(out.device(), Device::Cuda);
  EXPECT_EQ(rt->lastRun().segments.at(0).scheduler, "pointwise");
  Tensor back = backend.toHost(out);
  EXPECT_TRUE(checkClose(back, std::get<Tensor>(evaluateFusion(rt->fusion(), {host})[0])).pass);
  // A second call hits the cache and compiles nothing.
  rt->run({device});
  EXPECT_TRUE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().compile.kernels, 0);
}

TEST_F(RuntimeCuda, HostAndDeviceTensorsOfOneLayoutShareOneEntry) {
  // The key is what the kernels read: a host input is copied to the GPU
  // first, so a GPU input of the same layout is the same signature, not a
  // second one (which would compile over symbolic sizes).
  auto rt = runtime(chain(), /*outputs_on_host=*/false);
  Tensor host = sampleTensor({33, 65});
  Tensor device = rt->backend()->toBackend(host);
  rt->run({host});
  EXPECT_FALSE(rt->lastRun().cache_hit);
  EXPECT_FALSE(rt->lastRun().symbolic_shapes);
  const std::string signature = rt->lastRun().signature;
  rt->run({device});
  EXPECT_TRUE(rt->lastRun().cache_hit) << rt->lastRun().signature << " after " << signature;
  EXPECT_EQ(rt->lastRun().signature, signature);
  EXPECT_EQ(rt->counters().kernels_compiled, 1);
}

std::unique_ptr<Fusion> gatherRows() {
  auto f = std::make_unique<Fusion>();
  TensorView* table = defineSymbolicTensor(*f, 2);
  TensorView* rows = defineSymbolicTensor(*f, 1, DataType::Int64);
  f->addOutput(indexSelect(table, rows, 0));
  return f;
}

TEST_F(RuntimeCuda, IndexErrorsReachTheHostThroughMappedMemory) {
  // The kernel writes its record into pinned host memory: a call that waits
  // raises it, one that does not leaves it for a later check, and the record
  // is zeroed after each error so that good calls after it pass.
  auto rt = runtime(gatherRows(), /*outputs_on_host=*/false);
  Backend& backend = *rt->backend();
  const Tensor table = backend.toBackend(sampleTensor({4, 64}));
  const Tensor good = backend.toBackend(int64Values({3, 0, 2}));
  const Tensor bad = backend.toBackend(int64Values({1, 7, 2}));
  rt->run({table, good});
  try {
    rt->run({table, bad});
    FAIL() << "a call that waits did not raise its index error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 7 is out of range for dim 0"));
  }
  std::vector<Argument> got = rt->run({table, good});
  Tensor rows = backend.toHost(std::get<Tensor>(got.at(0)));
  EXPECT_EQ(rows.getDouble({0, 5}), backend.toHost(table).getDouble({3, 5}));

  rt->setDeferIndexErrors(true);
  for (int i = 0; i < 3; ++i) rt->run({table, good});
  EXPECT_NO_THROW(rt->checkDeferredIndexErrors(/*wait=*/true));
  rt->run({table, bad});
  try {
    rt->checkDeferredIndexErrors(/*wait=*/true);
    FAIL() << "a deferred index error was not raised";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("an earlier call of this fusion: index_select"));
    EXPECT_THAT(e.what(), HasSubstr("index 7 is out of range"));
  }
  EXPECT_NO_THROW(rt->checkDeferredIndexErrors(/*wait=*/true)) << "raised once";
  // Without waiting: once the kernel is done, the next call sees it.
  rt->run({table, bad});
  backend.synchronize();
  EXPECT_THROW(rt->run({table, good}), UserError);
  EXPECT_NO_THROW(rt->checkDeferredIndexErrors(/*wait=*/true));
  // A timed run checks its own launches at once: an earlier call's pending
  // error is raised as that call's first, not taken for the timed run's.
  rt->run({table, bad});
  try {
    rt->benchmarkKernels({table, good}, 2);
    FAIL() << "the benchmark did not raise the earlier call's index error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("an earlier call of this fusion"));
  }
  EXPECT_NO_THROW(rt->benchmarkKernels({table, good}, 2));
}

TEST_F(RuntimeCuda, MatmulRunsThroughCublas) {
  auto f = std::make_unique<Fusion>();
  TensorView* a = defineSymbolicTensor(*f, 2);
  TensorView* b = defineSymbolicTensor(*f, 2);
  f->addOutput(matmul(a, b));
  Options options;
  options.applyEnvironmentText("test", "dump", "scheduler_params");
  auto rt = runtime(std::move(f), true, options);
  std::vector<Argument> inputs = {sampleTensor({16, 24}), sampleTensor({24, 8}, 1)};
  auto got = rt->run(inputs);
  EXPECT_THAT(captured.dump.str(), HasSubstr("plan: cuBLAS matmul on the device (no copies)"));
  const auto tolerances = outputTolerances(rt->fusion(), inputs);
  EXPECT_EQ(tolerances[0].reduction_size, 24);
  EXPECT_TRUE(checkClose(got[0], evaluateFusion(rt->fusion(), inputs)[0], tolerances[0]).pass);
}

TEST_F(RuntimeCuda, ReductionsRunAsKernelsOnTheDevice) {
  auto f = std::make_unique<Fusion>();
  TensorView* a = defineSymbolicTensor(*f, 2);
  f->addOutput(sum(a, {1}));
  Options options;
  options.applyEnvironmentText("test", "dump", "scheduler_params");
  auto rt = runtime(std::move(f), true, options);
  std::vector<Argument> inputs = {sampleTensor({4, 8})};
  auto got = rt->run(inputs);
  EXPECT_THAT(captured.dump.str(), HasSubstr("plan: kernel fusebox_reduction_"));
  EXPECT_EQ(rt->lastRun().segments.at(0).scheduler, "reduction");
  const auto tolerances = outputTolerances(rt->fusion(), inputs);
  EXPECT_TRUE(checkClose(got[0], evaluateFusion(rt->fusion(), inputs)[0], tolerances[0]).pass);
}

TEST_F(RuntimeCuda, OtherExprEvalSegmentsSayTheyCopy) {
  // With the reduction scheduler disabled, the sum falls to expr_eval.
  auto f = std::make_unique<Fusion>();
  TensorView* a = defineSymbolicTensor(*f, 2);
  f->addOutput(sum(a, {1}));
  Options options;
  options.applyEnvironmentText("test", "dump", "scheduler_params");
  auto rt = runtime(std::move(f), true, options, {"reduction"});
  std::vector<Argument> inputs = {sampleTensor({4, 8})};
  auto got = rt->run(inputs);
  EXPECT_THAT(captured.dump.str(),
              HasSubstr("plan: host evaluation with copies: 1 input to host, 1 output to device"));
  expectSameValues(got[0], evaluateFusion(rt->fusion(), inputs)[0]);
}

TEST_F(RuntimeCuda, KernelsTimeWithEvents) {
  auto rt = runtime(chain(), true);
  auto bench = rt->benchmarkKernels({sampleTensor({256, 1024})}, 5);
  ASSERT_EQ(bench.size(), 1u);
  EXPECT_GT(bench[0].median_ms, 0);
  EXPECT_EQ(bench[0].bytes_moved, 2 * 256 * 1024 * 4);
}

}  // namespace
}  // namespace fusebox
