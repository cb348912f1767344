// Generated kernels compiled by NVRTC for sm_90, without a GPU. The CI
// machines have the CUDA toolkit but no device: there kernels run on the host
// backend, whose compiler takes the device runtime's host paths, so code only
// the device compiler sees (`#if defined(__CUDA_ARCH__)` in core/runtime:
// inline PTX, cache hints, shuffles) would first be compiled on the GPU
// machine. A hinted load that called a builtin NVRTC lacks was found that
// way (docs/perf.md). Skipped where the toolkit or NVRTC is missing.
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include <optional>
#include <regex>

#include "persistent/norm_definitions.h"
#include "support/scheduler_run.h"
#include "support/temp_dir.h"

#ifndef FUSEBOX_TEST_NO_CUDA_TOOLKIT
#include "backend/cuda/nvrtc_compile.h"
#endif

namespace fusebox {
namespace {

using namespace fusebox::test;

#ifndef FUSEBOX_TEST_NO_CUDA_TOOLKIT

// A Hopper-class device's properties, so the schedulers pick what they pick
// there (clusters allowed, 132 SMs).
DeviceProperties hopper() {
  DeviceProperties d;
  d.is_gpu = true;
  d.compute_major = 9;
  d.name = "sm_90 (NVRTC only)";
  d.multiprocessor_count = 132;
  d.max_cluster_blocks = 8;
  d.l2_cache_bytes = 50 << 20;
  return d;
}

class NvrtcCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      compiler_.emplace(90, std::vector<std::string>{});
    } catch (const UserError& e) {
      GTEST_SKIP() << "no NVRTC here: " << e.what();
    }
  }

  // The scheduler's kernel for `fusion` (the host backend runs it and checks
  // it against the evaluator), then NVRTC's cubin of the same source.
  void expectCompiles(const std::string& scheduler, const Fusion& fusion,
                      const std::vector<Argument>& inputs, const OptionSettings& options,
                      const std::string& must_contain) {
    auto s = builtinScheduler(scheduler);
    s->configure(options);
    SchedulerRun r = expectSchedulerMatchesEvaluator(*s, *backend_, fusion, inputs, hopper());
    ASSERT_FALSE(r.source.empty()) << r.params;
    EXPECT_NE(r.source.find(must_contain), std::string::npos) << r.source;
    std::smatch name;
    ASSERT_TRUE(std::regex_search(
        r.source, name, std::regex("__global__ void (?:__launch_bounds__\\([^)]*\\) )?(\\w+)\\(")));
    testing::TempDir failures;
    std::string cubin;
    try {
      cubin = compiler_->compile({name[1], r.source, {}, false}, failures.path());
    } catch (const UserError& e) {
      ADD_FAILURE() << e.what();
    }
    EXPECT_FALSE(cubin.empty()) << r.source;
  }

  std::optional<cuda::NvrtcCompiler> compiler_;
  std::unique_ptr<Backend> backend_ = makeHostBackend();
};

// Vector loads and stores, bfloat16 stores of rounded values, Philox draws.
TEST_F(NvrtcCompile, PointwiseKernelWithRandomNumbersAndBfloat16) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* bias = defineTensor(f, {-1}, DataType::BFloat16);
  std::vector<Val*> shape;
  for (IterDomain* id : x->logical()) shape.push_back(id->extent());
  TensorView* keep = lt(uniform(f, shape, f.constantDouble(0.0), f.constantDouble(1.0),
                                DataType::Float, f.constantInt(7), f.constantInt(0)),
                        f.constantDouble(0.9));
  TensorView* y =
      mul(add(castOp(DataType::Float, x), castOp(DataType::Float, broadcast(bias, {true, false}))),
          castOp(DataType::Float, keep));
  f.addOutput(castOp(DataType::BFloat16, y));
  expectCompiles("pointwise", f,
                 {randomTensor(DataType::BFloat16, {64, 1024}, 1),
                  randomTensor(DataType::BFloat16, {1024}, 2)},
                 {}, "fusebox::loadVec<8>");
}

// Reloaded rows: cache-hinted loads, the online max and exp-sum, block
// combines; and the same over a cluster (distributed shared memory).
TEST_F(NvrtcCompile, ReloadedSoftmaxRowsInOneBlockAndOverACluster) {
  const PythonDefinition def = normDefinition(Norm::SoftmaxFwd, DataType::BFloat16);
  for (int64_t blocks_per_row : {1, 2}) {
    SCOPED_TRACE(fmt::format("{} blocks a row", blocks_per_row));
    OptionSettings options;
    options["persistent_buffers"] = OptionSetting{OptionValue(std::string("reload")), {}};
    options["blocks_per_row"] = OptionSetting{OptionValue(blocks_per_row), {}};
    expectCompiles("inner_persistent", *def.fusion, normInputs(def, 8, 3000, 3), options,
                   "fusebox::loadVecHinted<fusebox::L2Hint::KeepForNextPass");
  }
}

// Rows kept in registers and column partials (layernorm backward).
TEST_F(NvrtcCompile, InnerOuterLayerNormBackward) {
  const PythonDefinition def = normDefinition(Norm::LayerNormBwd, DataType::BFloat16);
  expectCompiles("inner_outer_persistent", *def.fusion, normInputs(def, 64, 1024, 4), {},
                 "fusebox::loadVec<8>");
}

#else

TEST(NvrtcCompile, NeedsTheCudaToolkit) {
  GTEST_SKIP() << "built without the CUDA toolkit";
}

#endif

}  // namespace
}  // namespace fusebox
