// `fusebox run` with integers at the edges of int64: scalar inputs read
// exactly (never through double), shapes and sizes that overflow are errors
// naming the input or the op, and INT64_MIN as a literal compiles and runs.
#include <fusebox/npy.h>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using testing::runCommand;
using testing::TempDir;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

constexpr const char* kHeader =
    "import torch\n"
    "from nvfuser import FusionDefinition, DataType\n"
    "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";

// T0 + S1 (int64), T0 + S3 (double), and S2 choosing between them.
constexpr const char* kScalars =
    "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
    "    S1 = fd.define_scalar(None, dtype=DataType.Int)\n"
    "    S2 = fd.define_scalar(None, dtype=DataType.Bool)\n"
    "    S3 = fd.define_scalar(None, dtype=DataType.Double)\n"
    "    T4 = fd.ops.add(T0, S1)\n"
    "    T5 = fd.ops.add(T0, S3)\n"
    "    T6 = fd.ops.where(S2, T4, T0)\n"
    "    fd.add_output(T4)\n"
    "    fd.add_output(T5)\n"
    "    fd.add_output(T6)\n"
    "inputs = [torch.zeros(2, dtype=torch.int64), 0, True, 1.5]\n";

struct ScriptRun {
  testing::CommandResult result;
  std::filesystem::path outputs;
};

// Runs `body` (after kHeader) with `flags`, saving the outputs.
ScriptRun runScript(const TempDir& dir, const std::string& body, const std::string& flags,
                    const std::string& backend = "eval") {
  const auto script = dir.write("script.py", std::string(kHeader) + body);
  ScriptRun r;
  r.outputs = dir.path() / "out";
  r.result =
      runCommand(std::string(FUSEBOX_EXE) + " run " + script.string() + " --no-ir --backend " +
                 backend + " --save-outputs " + r.outputs.string() + " " + flags);
  return r;
}

int64_t firstInt(const ScriptRun& r, int output) {
  Tensor t = loadNpy((r.outputs / fmt::format("output_{}.npy", output)).string());
  return t.getInt({0});
}

TEST(CliIntegers, IntScalarInputsAreExact) {
  TempDir dir;
  // 2^53 + 1 became ...992 through double; INT64_MAX became INT64_MIN.
  for (int64_t v : {int64_t{9007199254740993}, kMax, kMin}) {
    ScriptRun r = runScript(dir, kScalars, fmt::format("--input S1={}", v));
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    EXPECT_EQ(firstInt(r, 0), v);
  }
}

// The summary line shows integers exactly, not through "%.6g".
TEST(CliIntegers, SummariesShowIntegersExactly) {
  TempDir dir;
  ScriptRun r = runScript(dir, kScalars, "--input S1=9007199254740993");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  EXPECT_THAT(r.result.output,
              HasSubstr("output 0 T1_g: int64[2]{strides 1} min=9007199254740993 "
                        "max=9007199254740993 mean=9.0072e+15 first=[9007199254740993, "
                        "9007199254740993]"));
}

// A tensor with no finite value says so instead of min=inf max=-inf.
TEST(CliIntegers, SummaryOfATensorWithoutFiniteValues) {
  TempDir dir;
  ScriptRun r = runScript(dir, kScalars, "--input S3=inf");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("output 1 T2_g: float[2]{strides 1} no finite values "
                                         "first=[inf, inf] non-finite=2"));
}

TEST(CliIntegers, IntScalarInputThatIsNotAnInt64IsAnError) {
  TempDir dir;
  ScriptRun r = runScript(dir, kScalars, "--input S1=1.9");  // was truncated to 1
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("--input S1=1.9: S1 is an Int scalar; expected an "
                                         "integer from -9223372036854775808 to "
                                         "9223372036854775807"));
  r = runScript(dir, kScalars, "--input S1=9223372036854775808");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("9223372036854775808 is out of range"));
  r = runScript(dir, kScalars, "--input S1=1e3");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
}

TEST(CliIntegers, BoolAndDoubleScalarInputs) {
  TempDir dir;
  ScriptRun r = runScript(dir, kScalars, "--input S2=2");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("--input S2=2: S2 is a Bool scalar; expected True, "
                                         "False, true, false, 1 or 0"));
  r = runScript(dir, kScalars, "--input S2=false --input S1=5");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  EXPECT_EQ(firstInt(r, 2), 0);  // where(False, T0 + 5, T0)
  r = runScript(dir, kScalars, "--input S3=-inf");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  Tensor t5 = loadNpy((r.outputs / "output_1.npy").string());
  EXPECT_EQ(t5.getDouble({0}), -INFINITY);
  r = runScript(dir, kScalars, "--input S3=1.5x");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("--input S3=1.5x: S3 is a Double scalar; expected a "
                                         "number"));
}

TEST(CliIntegers, ShapesThatOverflowNameTheInput) {
  TempDir dir;
  ScriptRun r = runScript(dir, kScalars, "--input T0=99999999999x99999999999");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("--input T0=99999999999x99999999999: the number of "
                                         "elements overflows int64"));
  // No elements, but strides beyond int64.
  r = runScript(dir, kScalars, "--input T0=0x99999999999x99999999999");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output,
              HasSubstr("--input T0=0x99999999999x99999999999: stride overflows int64"));
  // 8e18 bytes: no allocator gives that much (beyond any address space).
  r = runScript(dir, kScalars, "--input T0=1000000000000000000");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("--input T0=1000000000000000000: cannot allocate "
                                         "8000000000000000000 bytes of host memory"));
}

TEST(CliIntegers, PadBySymbolicWidthsThatOverflowIsAnError) {
  // Gave float[10] of zeros on the host backend.
  TempDir dir;
  ScriptRun r = runScript(dir,
                          "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], "
                          "dtype=DataType.Float)\n"
                          "    T1 = fd.ops.pad(T0, [-9223372036854775807, -9223372036854775807])\n"
                          "    fd.add_output(T1)\n",
                          "--input T0=8", "host");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  // Concretization evaluates the padded extent first and names the op.
  EXPECT_THAT(r.result.output, HasSubstr("pad of T0_g: output size"));
  EXPECT_THAT(r.result.output, HasSubstr("overflows int64"));
}

TEST(CliIntegers, SliceWithStepNearTwoToThe63HasOneElement) {
  // Gave float[0] on the host backend, a negative stride on the evaluator.
  TempDir dir;
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.slice(T0, [1], [8], [9223372036854775807])\n"
      "    fd.add_output(T1)\n";
  for (const char* backend : {"host", "eval"}) {
    ScriptRun r = runScript(dir, body, "--input T0=8", backend);
    ASSERT_EQ(r.result.exit_code, 0) << backend << "\n" << r.result.output;
    EXPECT_THAT(r.result.output, HasSubstr("float[1]")) << backend;
  }
}

TEST(CliIntegers, ReshapeThatOverflowsIsReportedAtTheReshape) {
  // Was reported through the full(...) that remove_empty put in its place.
  TempDir dir;
  ScriptRun r =
      runScript(dir,
                "    T0 = fd.define_tensor(shape=[0], contiguity=[True], "
                "dtype=DataType.Float)\n"
                "    T1 = fd.ops.reshape(T0, [0, 99999999999, 99999999999, 99999999999])\n"
                "    fd.add_output(T1)\n",
                "--input T0=0");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("script.py:5:10: fd.ops.reshape: a tensor of shape"));
  EXPECT_THAT(r.result.output, ::testing::Not(HasSubstr("full(")));
}

TEST(CliIntegers, Int64MinAndMaxLiteralsRunOnTheHostBackend) {
  // INT64_MIN made a kernel that did not compile (an ambiguous fusebox::cast).
  TempDir dir;
  ScriptRun r =
      runScript(dir,
                "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
                "    T1 = fd.ops.add(T0, -9223372036854775808)\n"
                "    T2 = fd.ops.add(T0, 9223372036854775807)\n"
                "    T3 = fd.ops.mul(T0, -9223372036854775808)\n"
                "    fd.add_output(T1)\n"
                "    fd.add_output(T2)\n"
                "    fd.add_output(T3)\n"
                "inputs = [torch.ones(2, dtype=torch.int64)]\n",
                "", "host");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  EXPECT_EQ(firstInt(r, 0), kMin + 1);
  EXPECT_EQ(firstInt(r, 1), kMin);  // 1 + INT64_MAX wraps, as torch's int64 add does
  EXPECT_EQ(firstInt(r, 2), kMin);
}

TEST(CliIntegers, PrintPythonReadsBackInt64Min) {
  TempDir dir;
  const auto script =
      dir.write("min.py", std::string(kHeader) +
                              "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], "
                              "dtype=DataType.Int)\n"
                              "    T1 = fd.ops.add(T0, -9223372036854775808)\n"
                              "    fd.add_output(T1)\n");
  auto first = runCommand(std::string(FUSEBOX_EXE) + " print --python " + script.string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("-9223372036854775808"));
  const auto printed = dir.write("printed.py", first.output);
  auto second = runCommand(std::string(FUSEBOX_EXE) + " print --python " + printed.string());
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(second.output, first.output);
}

}  // namespace
}  // namespace fusebox
