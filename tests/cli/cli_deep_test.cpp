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

constexpr const char* kHeader =
    "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n"
    "def fusion(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.Float, is_cpu=False)\n";

// The inputs list (T0, then `more` entries) and the execute call.
std::string footer(const std::string& more = "") {
  return "\ninputs = [\n    torch.randn(2, 3, device=\"cuda\"),\n" + more +
         "]\n\nwith FusionDefinition() as fd:\n    fusion(fd)\n\nfd.execute(inputs)\n";
}

// A repro script: T0 float[-1, -1] negated `n` times (one name, reassigned,
// keeps the file small: about 25 bytes per op).
std::string negationScript(int64_t n) {
  std::string src = std::string(kHeader) + "    T = T0\n";
  for (int64_t k = 0; k < n; ++k) src += "    T = fd.ops.neg(T)\n";
  return src + "    fd.add_output(T)\n" + footer();
}

// T0 plus a scalar computed by `n` additions of 3 to the scalar input S (1
// in the inputs list).
std::string scalarChainScript(int64_t n) {
  std::string src = std::string(kHeader) + "    S = fd.define_scalar(None, dtype=DataType.Int)\n";
  for (int64_t k = 0; k < n; ++k) src += "    S = fd.ops.add(S, 3)\n";
  return src + "    T1 = fd.ops.add(T0, S)\n    fd.add_output(T1)\n" + footer("    1,\n");
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

TEST(CliDeep, PrintALongScalarChainAndReadItBack) {
  auto dir = scratch();
  const std::string script = (dir / "scalars.py").string();
  std::ofstream(script) << scalarChainScript(kDeepChainLength);
  // The IR writes the scalar inline, capped: the print stays short.
  auto r = runCommand(exe() + " print " + script);
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_THAT(r.output, HasSubstr("( ( ( ( "));
  EXPECT_LT(r.output.size(), 10000u);
  const std::string printed = r.output;
  // Written back as Python (one line per scalar op) and read again: the same IR.
  const std::string back = (dir / "back.py").string();
  r = runCommand(exe() + " print --python " + script + " > " + back);
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  r = runCommand(exe() + " print " + back);
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_EQ(r.output, printed);
}

}  // namespace
}  // namespace fusebox
