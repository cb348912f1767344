// `fusebox run --backend cuda`: the kernel runs on the GPU and validates;
// --bench times with CUDA events; --time-compile names NVRTC; the example
// with a reduction copies for expr_eval and says so. Skips without a GPU.
#include <fusebox/backend/cuda_backend.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using testing::runCommand;
using testing::TempDir;

std::string run(const std::string& script, const std::string& flags) {
  return std::string(FUSEBOX_EXE) + " run " + (fs::path(FUSEBOX_SOURCE_DIR) / script).string() +
         " --no-ir " + flags;
}

class CliCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    CudaAvailability cuda = cudaAvailable();
    if (!cuda.available) GTEST_SKIP() << "no usable GPU: " << cuda.reason;
  }
};

TEST_F(CliCuda, PointwiseKernelValidatesAndBenchesWithEvents) {
  TempDir dir;
  auto r = runCommand("FUSEBOX_KERNEL_CACHE_DIR=" + (dir.path() / "cache").string() + " " +
                      run("examples/bias_gelu.py",
                          "--input T0=256x1024 --input T1=1024 --backend cuda --validate "
                          "--bench 5 --time-compile"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("backend: NVIDIA"));
  EXPECT_THAT(r.output, HasSubstr("group 0 by pointwise"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (1 output, largest reduction 1)"));
  // 256x1024 + 1024 halves read, 256x1024 halves written.
  EXPECT_THAT(r.output,
              ContainsRegex("bench: group 0 kernel fusebox_pointwise_[0-9a-f]+: median "
                            "[0-9.]+ ms over 5 launches \\(CUDA events, L2 flushed\\), [0-9.]+ "
                            "GB/s \\(1050624 bytes moved\\)"));
  // The whole call, as do_bench times a function: here the same bytes.
  EXPECT_THAT(r.output, ContainsRegex("bench: call: median [0-9.]+ ms over 5 calls \\(CUDA "
                                      "events, L2 flushed, once a call\\), [0-9.]+ GB/s "
                                      "\\(1050624 bytes of inputs and outputs\\)"));
  EXPECT_THAT(r.output, ContainsRegex("time-compile: compile \\(NVRTC\\) [0-9.]+ ms over 1 kernel "
                                      "\\(0 from the kernel cache"));
}

// The cuda backend plans for its own GPU: [runtime] device is refused
// there, and device_properties prints the GPU's as a device text the host
// backend takes.
TEST_F(CliCuda, TheGpuPlansForItselfAndPrintsItsDeviceText) {
  auto refused = runCommand(run("examples/bias_gelu.py",
                                "--input T0=256x1024 --input T1=1024 --backend cuda --set "
                                "runtime.device=h100"));
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_THAT(refused.output,
              HasSubstr("[runtime] device \"h100\" plans kernels for a GPU on "
                        "the host backend; the cuda backend plans for its own GPU"));
  auto r = runCommand(run("examples/bias_gelu.py",
                          "--input T0=256x1024 --input T1=1024 --backend cuda --plan-only --dump "
                          "device_properties,ptxas_info"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("\\[runtime\\] device: \"sm=[0-9]+,sms=[0-9]+,threads="));
  EXPECT_THAT(r.output, ContainsRegex("=== ptxas info: group 0 \\(fusebox_pointwise_[0-9a-f]+, "
                                      "sm_[0-9]+\\) ==="));
  EXPECT_THAT(r.output, HasSubstr("plan only: 1 segment (group 0 by pointwise), 1 generated "
                                  "kernel; nothing ran"));
}

TEST_F(CliCuda, ExampleWithAReductionIsOneReductionKernel) {
  auto r = runCommand(run("examples/gelu_bias_grad.py",
                          "--input T0=2x8x16 --input T1=2x8x16 --input T2=16 --backend cuda "
                          "--validate --dump scheduler_params"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("plan: kernel fusebox_reduction_[0-9a-f]+ "));
  EXPECT_THAT(r.output, HasSubstr("1 segment in "));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (2 outputs, largest reduction 16)"));
}

TEST_F(CliCuda, ReductionOnTheEvaluatorCopiesAndSaysSo) {
  auto r = runCommand(run("examples/gelu_bias_grad.py",
                          "--input T0=2x8x16 --input T1=2x8x16 --input T2=16 --backend cuda "
                          "--disable-scheduler reduction --validate --dump scheduler_params"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("plan: host evaluation with copies: "));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (2 outputs, largest reduction 16)"));
}

}  // namespace
}  // namespace fusebox
