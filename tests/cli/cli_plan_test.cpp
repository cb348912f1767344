// `fusebox run --plan-only` and [runtime] device: a GPU's plans made on the
// host backend, from a machine without one; the device_properties and
// ptxas_info dumps; bad device texts named where they were set.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;
using testing::TempDir;

std::string rmsnormBackward(const std::string& rows, const std::string& width) {
  return std::string(FUSEBOX_EXE) + " run " +
         (fs::path(FUSEBOX_SOURCE_DIR) / "benchmarks/workloads/rmsnorm_bwd_bf16.py").string() +
         " --backend host --no-ir -i T0=" + rows + "x" + width + ":bfloat16 -i T1=" + rows + "x" +
         width + ":bfloat16 -i T2=" + rows + ":float -i T3=" + width + ":bfloat16";
}

// The kernel name on the plan line (the source's hash: equal names, equal kernels).
std::string plannedKernel(const std::string& output) {
  std::smatch m;
  const std::regex plan("plan: kernel (fusebox_[a-z_]+_[0-9a-f]+) grid");
  return std::regex_search(output, m, plan) ? m[1].str() : std::string();
}

TEST(PlanOnly, AnH100sPlansComeFromTheHost) {
  const auto r = runCommand(rmsnormBackward("4096", "8192") +
                            " --plan-only --set runtime.device=h100"
                            " --dump device_properties,scheduler_params");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("name: H100 (planned on the host)"));
  EXPECT_THAT(r.output, HasSubstr("[runtime] device: \"sm=90,sms=132,threads=1024,shared=232448,"
                                  "registers=65536,l2=52428800,clusters=8\""));
  // One cooperative block pair an SM, as on the GPU.
  EXPECT_THAT(r.output, HasSubstr("grid: [264, 1, 1]"));
  EXPECT_THAT(r.output, HasSubstr("launch_bounds: 256 threads, 2 blocks per SM"));
  EXPECT_THAT(r.output, HasSubstr("plan only: 1 segment (group 0 by inner_outer_persistent), 1 "
                                  "generated kernel; nothing ran"));
  EXPECT_THAT(r.output, Not(HasSubstr("output 0")));

  // The printed text gives the same plans back.
  const auto again = runCommand(rmsnormBackward("4096", "8192") +
                                " --plan-only --dump scheduler_params --set "
                                "'runtime.device=\"sm=90,sms=132,threads=1024,shared=232448,"
                                "registers=65536,l2=52428800,clusters=8\"'");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_FALSE(plannedKernel(r.output).empty()) << r.output;
  EXPECT_EQ(plannedKernel(again.output), plannedKernel(r.output)) << again.output;

  // Without a device: the host's one multiprocessor and 48 KiB a block.
  const auto host = runCommand(rmsnormBackward("4096", "8192") +
                               " --plan-only --dump device_properties,scheduler_params");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_THAT(host.output, HasSubstr("planned for: the host's own properties (1 multiprocessor"));
  EXPECT_THAT(host.output, HasSubstr("grid: [1, 1, 1]"));
}

TEST(PlanOnly, RunFlagsAreRefusedBesideIt) {
  for (const char* other : {" --validate", " --bench 3", " --repeat 2", " --time-compile"}) {
    SCOPED_TRACE(other);
    const auto r = runCommand(rmsnormBackward("8", "64") + " --plan-only" + other);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("excludes --plan-only")) << r.output;
  }
}

// A planned device also runs: the host backend executes the H100's kernel
// (a 264-block grid would want more fibers than a test should take, so the
// planned GPU has two multiprocessors: two blocks each, of the 5 groups of 8
// rows).
TEST(RuntimeDevice, APlannedDevicesKernelsRunOnTheHost) {
  const auto r = runCommand(rmsnormBackward("40", "512") +
                            " --set 'runtime.device=\"h100,sms=2\"' --validate"
                            " --dump scheduler_params");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  EXPECT_THAT(r.output, HasSubstr("grid: [4, 1, 1]"));
}

TEST(RuntimeDevice, BadTextsNameTheItemAndWhereItWasSet) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"h300", "unknown preset 'h300'; the presets are h100 and h200"},
           Case{"sms=0", "'sms' expects an integer from 1 to 4096 (multiprocessors), got '0'"},
           Case{"sms=99999999999999999999", "'sms' expects an integer from 1 to 4096"},
           Case{"h100,wide=3", "unknown key 'wide'; the keys are sm ("},
           Case{"sms=4,h100",
                "'h100' is not key=value; a preset name (h100, h200) may only come "
                "first"},
           Case{"sms=4,sms=8", "'sms' is given twice"},
           Case{"h100,threads=100", "'threads' must be a multiple of 32, got 100"},
           Case{"sm=9", "'sm' expects an integer from 50 to 199"},
           Case{"h100,", "an empty item (two commas in a row, or one at an end)"},
       }) {
    SCOPED_TRACE(c.text);
    const auto r = runCommand(rmsnormBackward("8", "64") + " --plan-only --set 'runtime.device=\"" +
                              c.text + "\"'");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("--set:1:"))) << r.output;
    EXPECT_THAT(r.output,
                HasSubstr(std::string("[runtime] device \"") + c.text + "\": " + c.message))
        << r.output;
  }
  TempDir dir;
  const fs::path config = dir.write("c.toml", "[runtime]\ndevice = \"h100,l2=-1\"\n");
  const auto r =
      runCommand(rmsnormBackward("8", "64") + " --plan-only --config " + config.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(config.string() + ":2:"));
  EXPECT_THAT(r.output, HasSubstr("'l2' expects an integer from 0 to"));
}

// ptxas's report needs NVRTC (the CUDA toolkit), not a GPU.
TEST(PtxasInfo, ReportsEachKernelsRegistersForThePlannedDevice) {
  const auto r = runCommand(rmsnormBackward("4096", "8192") +
                            " --plan-only --set runtime.device=h100 --dump ptxas_info");
  if (r.exit_code != 0 && r.output.find("NVRTC (libnvrtc") != std::string::npos)
    GTEST_SKIP() << "no NVRTC here: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("=== ptxas info: group 0 (fusebox_inner_outer_persistent_"));
  EXPECT_THAT(r.output, HasSubstr(", sm_90) ==="));
  EXPECT_TRUE(std::regex_search(r.output, std::regex("Used [0-9]+ registers"))) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bytes spill stores"));
  // Without a device there is nothing to compile for, and the error says what to set.
  const auto host = runCommand(rmsnormBackward("8", "64") + " --plan-only --dump ptxas_info");
  EXPECT_EQ(host.exit_code, 1) << host.output;
  EXPECT_THAT(host.output, HasSubstr("names no GPU to compile for; on the host backend set "
                                     "[runtime] device (e.g. --set runtime.device=h100)"));
}

}  // namespace
}  // namespace fusebox
