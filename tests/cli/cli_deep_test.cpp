// `fusebox run` and `fusebox print` on a generated script of 100,000
// dependent ops: the program reads, prints, segments and runs it like a short
// one (every walk keeps its own stack) and the result is the closed form.
#include "support/deep_chains.h"
#include "support/run_command.h"

#include <fusebox/npy.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fusebox {
namespace {

using deep_chains::kDeepChainLength;
using ::testing::HasSubstr;
using testing::runCommand;

std::string exe() {
  return FUSEBOX_EXE;
}

std::filesystem::path scratch() {
  auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("fusebox_cli_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A repro script: T0 float[-1, -1] negated `n` times.
std::string negationScript(int64_t n) {
  std::string src =
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n"
      "def fusion(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False)\n";
  for (int64_t k = 1; k <= n; ++k) src += fmt::format("    T{} = fd.ops.neg(T{})\n", k, k - 1);
  src += fmt::format("    fd.add_output(T{})\n", n);
  src +=
      "\ninputs = [\n    torch.randn(2, 3, device=\"cuda\"),\n]\n\n"
      "with FusionDefinition() as fd:\n    fusion(fd)\n\nfd.execute(inputs)\n";
  return src;
}

TEST(CliDeep, RunOnTheEvalBackend) {
  auto dir = scratch();
  const std::string script = (dir / "deep.py").string();
  // An odd count: the output is -T0.
  std::ofstream(script) << negationScript(kDeepChainLength + 1);
  Tensor x = deep_chains::sampleInput({2, 3});
  saveNpy((dir / "x.npy").string(), x);
  auto r = runCommand(exe() + " run " + script + " --backend eval --input T0=" +
                      (dir / "x.npy").string() + " --save-outputs " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_THAT(r.output, HasSubstr(fmt::format("T{}_g", kDeepChainLength + 1)));
  Tensor out = loadNpy((dir / "out" / "output_0.npy").string());
  ASSERT_EQ(out.sizes(), x.sizes());
  EXPECT_EQ(out.toDoubles(), deep_chains::scaled(x, -1));
}

TEST(CliDeep, PrintAsPythonReadsBack) {
  auto dir = scratch();
  const std::string script = (dir / "deep.py").string();
  std::ofstream(script) << negationScript(kDeepChainLength);
  auto r = runCommand(exe() + " print --python " + script + " > " + (dir / "back.py").string());
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  r = runCommand(exe() + " print " + (dir / "back.py").string());
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_THAT(r.output, HasSubstr(fmt::format("T{}_g", kDeepChainLength)));
}

}  // namespace
}  // namespace fusebox
