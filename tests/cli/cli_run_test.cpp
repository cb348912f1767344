// End-to-end tests of `fusebox run` and `fusebox print`.
#include "support/run_command.h"

#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/npy.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;

std::string exe() { return FUSEBOX_EXE; }
std::string source(const std::string& rel) { return std::string(FUSEBOX_SOURCE_DIR) + "/" + rel; }

// A scratch folder per test.
std::filesystem::path scratch() {
  auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("fusebox_cli_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

constexpr const char* kAddScript = R"(import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T3 = fd.ops.mul(T0, S2)
    T4 = fd.ops.add(T3, T1)
    fd.add_output(T4)

inputs = [
    torch.randn(2, 3, device="cuda"),
    torch.randn(2, 3, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
)";

TEST(CliRun, GeluExamplePrintsIrAndOutputs) {
  auto r = runCommand(exe() + " run " + source("examples/gelu_bias_grad.py") +
                      " --input T0=4x8x16 --input T1=4x8x16 --input T2=16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("%kernel_math {"));
  EXPECT_THAT(r.output, HasSubstr("Inputs:"));
  EXPECT_THAT(r.output, HasSubstr("output 0"));
  // The summary says how the run went and which scheduler ran each segment.
  EXPECT_THAT(r.output, HasSubstr("run 1: cache miss (passes and segmentation "));
  // One generated kernel writes the GELU backward and reduces the bias
  // gradient (the reduction scheduler; nvFuser issue 785).
  EXPECT_THAT(r.output, HasSubstr("1 segment in "));
  EXPECT_THAT(r.output, HasSubstr("group 0 by reduction"));
}

TEST(CliRun, OutputsMatchTheEvaluatorThroughNpyFiles) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  // Inputs from .npy files with known values.
  Tensor a = Tensor::empty(DataType::Float, {2, 3});
  Tensor b = Tensor::empty(DataType::Float, {2, 3});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      a.setDouble({i, j}, i * 3 + j);
      b.setDouble({i, j}, 0.5 * j - i);
    }
  saveNpy((dir / "a.npy").string(), a);
  saveNpy((dir / "b.npy").string(), b);
  auto r = runCommand(exe() + " run " + script + " --no-ir --input T0=" + (dir / "a.npy").string() +
                      " --input '#1=" + (dir / "b.npy").string() + "' --save-outputs " +
                      (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("%kernel_math")));
  Tensor out = loadNpy((dir / "out" / "output_0.npy").string());
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_DOUBLE_EQ(out.getDouble({i, j}), 2.0 * (i * 3 + j) + (0.5 * j - i));
}

TEST(CliRun, ShapeOverrideChangesTheInput) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " run " + script + " --no-ir -i T0=5x7 -i T1=5x7:float");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[5, 7]"));
}

TEST(CliRun, UnknownInputNameIsAUserError) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " run " + script + " --input T9=2x3");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--input T9"));
  EXPECT_THAT(r.output, HasSubstr("T0 (#0)"));
}

TEST(CliRun, MalformedOverrideIsAUserError) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " run " + script + " --input T0=2xfoo");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'foo' is not a size"));
  // A 100 kB spec (an argument may hold 128 kB) is cut in the message.
  r = runCommand(exe() + " run " + script + " --input T0=" + std::string(100000, '1') + "x");
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 300);
  EXPECT_THAT(r.output, HasSubstr("111..."));
  EXPECT_LT(r.output.size(), 2000u) << r.output.substr(0, 300);
  r = runCommand(exe() + " run " + script + " --input T0");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected NAME=SPEC"));
}

TEST(CliRun, WrongDtypeInputIsAUserErrorNamingTheInput) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " run " + script + " --input T1=2x3:int64");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("T1"));
  EXPECT_THAT(r.output, HasSubstr("float"));
}

TEST(CliRun, MismatchedShapesAreAUserError) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " run " + script + " --input T1=2x4");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("T1"));
}

TEST(CliRun, MissingInputsListSaysHowToGiveInputs) {
  auto dir = scratch();
  std::string text = kAddScript;
  text = text.substr(0, text.find("inputs = ["));
  auto script = writeFile(dir / "noinputs.py", text);
  auto r = runCommand(exe() + " run " + script);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("input T0 has no value"));
  EXPECT_THAT(r.output, HasSubstr("--input T0="));
}

TEST(CliRun, MalformedScriptNamesFileLineColumn) {
  auto dir = scratch();
  std::string text = kAddScript;
  text.replace(text.find("fd.ops.add(T3, T1)"), 18, "fd.ops.frobnicate(T3, T1)");
  auto script = writeFile(dir / "bad.py", text);
  auto r = runCommand(exe() + " run " + script);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bad.py:9:"));
  EXPECT_THAT(r.output, HasSubstr("frobnicate"));
}

TEST(CliRun, MissingFileAndUnknownFlagAreUserErrors) {
  EXPECT_EQ(runCommand(exe() + " run /nonexistent/x.py").exit_code, 1);
  EXPECT_EQ(runCommand(exe() + " run --frobnicate x.py").exit_code, 1);
  EXPECT_EQ(runCommand(exe()).exit_code, 1);
}

TEST(CliRun, HelpExitsZeroOnEveryCommand) {
  for (const char* args : {" --help", " run --help", " print --help"}) {
    auto r = runCommand(exe() + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("Usage"));
  }
}

TEST(CliPrint, PrintsIrTransformsAndPython) {
  auto dir = scratch();
  auto script = writeFile(dir / "add.py", kAddScript);
  auto r = runCommand(exe() + " print " + script);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("T0_g[ iS0{i0}, iS1{i1} ], float"));
  EXPECT_THAT(r.output, Not(HasSubstr("%transforms")));
  r = runCommand(exe() + " print --transforms " + script);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("%transforms"));
  // The Python written back parses to the same fusion.
  r = runCommand(exe() + " print --python " + script);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto back = parsePythonDefinition(r.output, "printed.py");
  auto original = parsePythonFile(script);
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*back.fusion, *original.fusion, &why)) << why;
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

TEST(CliRun, AnExpandedBroadcastCrossesASegmentBoundary) {
  auto r = testing::runCommand(
      std::string(FUSEBOX_EXE) +
      " run --no-ir --backend host --validate --disable-scheduler reduction " +
      std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/expanded_broadcast_boundary.py");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("validate: PASS (3 outputs"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("3 segments"));
}

}  // namespace
}  // namespace fusebox
