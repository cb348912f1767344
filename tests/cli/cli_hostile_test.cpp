// `fusebox` as a hostile user drives it (issue 29): index tensors whose
// shapes do not fit the input, out-of-range indices behind empty outputs,
// masked softmax under --validate, NaN and out-of-range numeric options,
// messages that name what to fix, and arithmetic in a repro script's inputs
// list. Every case exits 0 with the right answer or 1 with a message naming
// the place; never a signal, never a silent wrong answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;
using testing::TempDir;

constexpr const char* kHeader =
    "import torch\n"
    "from nvfuser import FusionDefinition, DataType\n"
    "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";

// A one-op body, for the tests of options and messages.
constexpr const char* kNegation =
    "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
    "    T1 = fd.ops.neg(T0)\n"
    "    fd.add_output(T1)\n"
    "inputs = [torch.randn(4)]\n";

// `fusebox run` of kHeader + body on `backend`.
CommandResult runScript(const TempDir& dir, const std::string& body, const std::string& flags,
                        const std::string& backend = "host") {
  const auto script = dir.write("case.py", std::string(kHeader) + body);
  return runCommand(fmt::format("{} run {} --no-ir --backend {} {}", FUSEBOX_EXE, script.string(),
                                backend, flags));
}

// gather(T0, T1, dim) of a float input and an int64 index, then `tail`
// (what reads the gather: nothing, a sum, a cumsum).
std::string gatherScript(const std::string& op, int dim, const std::string& in_shape,
                         const std::string& index_shape, const std::string& tail = "") {
  return fmt::format(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)\n"
      "    T2 = fd.ops.{}(T0, T1, dim={})\n"
      "{}"
      "inputs = [torch.arange(12, dtype=torch.float32).reshape({}), torch.zeros({}, "
      "dtype=torch.int64)]\n",
      op, dim, tail.empty() ? "    fd.add_output(T2)\n" : tail, in_shape, index_shape);
}

// Item 1: a generated kernel would read past T0; the evaluator's message comes
// first, on every backend and whatever reads the result.
TEST(CliHostile, GatherIndexLargerThanTheInputOutsideDimIsRefused) {
  TempDir dir;
  for (const std::string backend : {"host", "eval"}) {
    CommandResult r = runScript(dir, gatherScript("gather", 1, "3, 4", "4, 2"), "", backend);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("case.py:6:10: T2_g = gather(T0_g, T1_g): gather: index "
                                    "T1_g has size 4 in dim 0, larger than T0_g (3); outside "
                                    "dim 1 the index may not exceed the input"));
  }
  // 2,000,000 rows of index was a SIGSEGV.
  CommandResult big = runScript(dir, gatherScript("gather", 1, "3, 4", "2000000, 2"), "");
  EXPECT_EQ(big.exit_code, 1) << big.output.substr(0, 2000);
  EXPECT_THAT(big.output, HasSubstr("has size 2000000 in dim 0, larger than T0_g (3)"));
  // Along dim 0 with an index wider than the input.
  CommandResult wide = runScript(dir, gatherScript("gather", 0, "3, 4", "2, 6"), "");
  EXPECT_EQ(wide.exit_code, 1) << wide.output;
  EXPECT_THAT(wide.output, HasSubstr("has size 6 in dim 1, larger than T0_g (4)"));
}

TEST(CliHostile, GatherThenReductionOrScanIsRefusedToo) {
  TempDir dir;
  const std::string sum = "    T3 = fd.ops.sum(T2, dims=[1])\n    fd.add_output(T3)\n";
  const std::string cumsum = "    T3 = fd.ops.cumsum(T2, dim=1)\n    fd.add_output(T3)\n";
  for (const std::string& tail : {sum, cumsum}) {
    CommandResult r = runScript(dir, gatherScript("gather", 1, "3, 4", "4, 2", tail), "");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("index T1_g has size 4 in dim 0, larger than T0_g (3)"));
  }
}

TEST(CliHostile, TakeAlongAxisWithShapesThatDoNotBroadcastIsRefused) {
  TempDir dir;
  for (const std::string index : {"5, 2", "2, 2"}) {
    CommandResult r = runScript(dir, gatherScript("take_along_axis", 1, "3, 4", index), "");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(fmt::format(
                              "take_along_axis: dim 0 of the input T0_g has size 3 and of the "
                              "index T1_g size {}; outside dim 1 they must be equal",
                              index.substr(0, 1))));
  }
  // An index declared with a size-1 dim there broadcasts: the answer.
  CommandResult ok =
      runScript(dir,
                std::regex_replace(
                    gatherScript("take_along_axis", 1, "3, 4", "1, 2"),
                    std::regex(R"(T1 = fd.define_tensor\(shape=\[-1, -1\], contiguity=\[True)"),
                    "T1 = fd.define_tensor(shape=[1, -1], contiguity=[None"),
                "--validate");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("validate: PASS"));
}

// A symbolic kernel compiled for good sizes is not reused for bad ones: each
// new signature is checked before anything runs.
TEST(CliHostile, ShapesAreCheckedForEveryNewSignature) {
  TempDir dir;
  CommandResult r = runScript(dir, gatherScript("gather", 1, "3, 4", "3, 2"),
                              "--shapes symbolic --sweep T1=4x2:int64");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("index T1_g has size 4 in dim 0, larger than T0_g (3)"));
}

// Item 2: torch raises for each, whatever the output's size.
TEST(CliHostile, OutOfRangeIndicesBehindEmptyOutputsAreErrors) {
  TempDir dir;
  const std::string index_select =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T2 = fd.ops.index_select(T0, T1, dim=1)\n"
      "    fd.add_output(T2)\n"
      "inputs = [torch.zeros(0, 4), torch.tensor([9])]\n";
  const std::string embedding =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.embedding_fwd(T0, T1)\n"
      "    fd.add_output(T2)\n"
      "inputs = [torch.tensor([7]), torch.zeros(5, 0)]\n";
  const std::string select =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.select(T0, 7, dim=1)\n"
      "    fd.add_output(T1)\n"
      "inputs = [torch.zeros(0, 4)]\n";
  // The empty result read by more ops, which remove_empty must not replace.
  const std::string chained =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T2 = fd.ops.index_select(T0, T1, dim=1)\n"
      "    T3 = fd.ops.add(T2, T2)\n"
      "    T4 = fd.ops.sum(T3, dims=[0])\n"
      "    fd.add_output(T4)\n"
      "inputs = [torch.zeros(0, 4), torch.tensor([2, 9])]\n";
  struct Case {
    std::string body, message;
  };
  for (const Case& c : {Case{index_select,
                             "index_select: index 9 (at [0] of T1_g) is out of "
                             "range for dim 1 of T0_g, of size 4"},
                        Case{embedding,
                             "index 7 (at [0] of T0_g) is out of range for dim 0 of "
                             "T1_g, of size 5"},
                        Case{select, "select: index 7 is out of range for dim 1 of T0_g"},
                        Case{chained, "index 9 (at [1] of T1_g) is out of range"}})
    for (const std::string backend : {"host", "eval"}) {
      CommandResult r = runScript(dir, c.body, "", backend);
      EXPECT_EQ(r.exit_code, 1) << backend << "\n" << r.output;
      EXPECT_THAT(r.output, HasSubstr(c.message)) << backend;
    }
  // In range, the empty result is the answer.
  CommandResult ok =
      runScript(dir, std::regex_replace(index_select, std::regex("\\[9\\]"), "[3]"), "--validate");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("output 0 T2_g: float[0, 1]"));
}

// Item 3: a causal mask's -inf is exact, so every element of the softmax is
// checked (130048 of 131072 were "unbounded").
TEST(CliHostile, MaskedSoftmaxIsCheckedElementByElement) {
  TempDir dir;
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "    T1 = fd.ops.iota(128, dtype=DataType.Int)\n"
      "    T2 = fd.ops.broadcast_in_dim(T1, shape=[128, 128], broadcast_dims=[1])\n"
      "    T3 = fd.ops.broadcast_in_dim(T1, shape=[128, 128], broadcast_dims=[0])\n"
      "    T4 = fd.ops.gt(T2, T3)\n"
      "    T5 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T6 = fd.ops.mul(T5, 0.125)\n"
      "    T7 = fd.ops.broadcast_in_dim(T4, shape=[2, 4, 128, 128], broadcast_dims=[2, 3])\n"
      "    T8 = fd.ops.where(T7, float('-inf'), T6)\n"
      "    T9 = fd.ops.max(T8, dims=[3], keepdim=True)\n"
      "    T10 = fd.ops.sub(T8, T9)\n"
      "    T11 = fd.ops.exp(T10)\n"
      "    T12 = fd.ops.sum(T11, dims=[3], keepdim=True)\n"
      "    T13 = fd.ops.div(T11, T12)\n"
      "    T14 = fd.ops.cast(T13, dtype=DataType.BFloat16)\n"
      "    fd.add_output(T14)\n"
      "inputs = [torch.randn(2, 4, 128, 128, dtype=torch.bfloat16)]\n";
  CommandResult r = runScript(dir, body, "--validate");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  EXPECT_THAT(r.output, Not(HasSubstr("unbounded")));
}

// An output whose elements mostly have no bound fails --validate unless the
// user allows it.
TEST(CliHostile, ValidateFailsWhenMostOfAnOutputIsUnchecked) {
  TempDir dir;
  // 1 / sum(x) over values whose sum may be 0 either side: no bound.
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.sum(T0, dims=[1])\n"
      "    T2 = fd.ops.reciprocal(T1)\n"
      "    fd.add_output(T2)\n"
      "inputs = [torch.tensor([[1.0, -1.0], [2.0, -2.0], [0.5, -0.5], [3.0, -3.0]])]\n";
  CommandResult r = runScript(dir, body, "--validate");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 of 4 elements (100%) have no error bound and were not "
                                  "checked, more than the 1% allowed (--max-unchecked)"));
  EXPECT_THAT(r.output, HasSubstr("validate: FAIL"));
  r = runScript(dir, body, "--validate --max-unchecked 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = runScript(dir, body, "--validate --max-unchecked nan");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--max-unchecked: 'nan' is out of range: expected a number in "
                                  "[0, 1]"));
}

// Items 4 and 5: NaN and integers past their range are errors naming the
// option and its range, not saturated or wrapped values.
TEST(CliHostile, NumericOptionsOutsideTheirRangeAreRefused) {
  TempDir dir;
  const std::string body = kNegation;
  const auto script = dir.write("case.py", std::string(kHeader) + body);
  struct Case {
    std::string command, message;
  };
  const std::string run = fmt::format("{} run {} --backend eval ", FUSEBOX_EXE, script.string());
  const std::string bench =
      fmt::format("{} bench {} --backend eval --repetitions 2 ", FUSEBOX_EXE, script.string());
  for (const Case& c : {
           Case{bench + "--min-sample-ms nan",
                "--min-sample-ms: 'nan' is out of range: expected a number in [0, 60000]"},
           Case{bench + "--min-sample-ms inf", "'inf' is out of range"},
           Case{run + "--repeat 99999999999999999999999",
                "--repeat: '99999999999999999999999' is out of range: expected an integer in "
                "[1, 1000000]"},
           Case{run + "--repeat 0", "expected an integer in [1, 1000000]"},
           Case{run + "--bench -1", "--bench: '-1' is out of range"},
           Case{run + "--seed 99999999999999999999999",
                "--seed: '99999999999999999999999' is out of range: expected an integer in [0, "
                "18446744073709551615]"},
           Case{run + "--seed -1", "--seed: '-1' is out of range"},
           Case{bench + "--seed -1", "--seed: '-1' is out of range"},
           Case{bench + "--warmup 1e9", "--warmup: '1e9' is out of range"},
       }) {
    CommandResult r = runCommand(c.command);
    EXPECT_EQ(r.exit_code, 1) << c.command << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.command;
  }
  // The largest seed is still a seed.
  CommandResult ok = runCommand(run + "--seed 18446744073709551615 --no-ir");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// Item 7: the reshape, its place in the script and the -1, as torch says it.
TEST(CliHostile, ReshapeOfNothingWithMinusOneNamesTheReshape) {
  TempDir dir;
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.reshape(T0, new_shape=[0, -1])\n"
      "    fd.add_output(T1)\n"
      "inputs = [torch.zeros(0, 5)]\n";
  for (const std::string backend : {"host", "eval"}) {
    CommandResult r = runScript(dir, body, "", backend);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("case.py:5:10: T1_g = reshape("));
    EXPECT_THAT(r.output, HasSubstr("cannot reshape a tensor of 0 elements (sizes [0, 5]) into "
                                    "shape [0, -1] because the unspecified dimension size -1 can "
                                    "be any value"));
    EXPECT_THAT(r.output, Not(HasSubstr("division by zero")));
  }
  // A tensor with elements and a 0 beside the -1: no size fits either.
  CommandResult r = runScript(
      dir, std::regex_replace(body, std::regex("zeros\\(0, 5\\)"), "zeros(2, 5)"), "", "eval");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shape [0, -1] is invalid for an input of 10 elements"));
}

// Item 8: plugin paths that hold no plugins are named as the fault.
TEST(CliHostile, PluginPathsWithoutPluginsAreNamed) {
  TempDir dir;
  const std::string body = kNegation;
  CommandResult r = runScript(dir, body, "--set 'plugins.paths=[]'", "eval");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--set:1:17: the plugin paths [] (an empty list) hold no "
                                  "fusebox plugins"));
  EXPECT_THAT(r.output, Not(HasSubstr("default.toml")));
  // A folder of shared libraries that are not plugins.
  const auto libs = dir.path() / "libs";
  std::filesystem::create_directories(libs);
  std::filesystem::copy_file("/lib/x86_64-linux-gnu/libm.so.6", libs / "libm.so");
  r = runScript(dir, body, fmt::format("--set 'plugins.paths=[\"{}\"]'", libs.string()), "eval");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("the plugin paths [{}] hold no fusebox plugins; 1 "
                                              "file there is not a plugin",
                                              libs.string())));
}

// Item 9: every `--set` example in docs/cli.md is accepted.
TEST(CliHostile, EverySetExampleOfTheCliPageWorks) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/docs/cli.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t row = doc.find("| `--set KEY=VALUE` |");
  ASSERT_NE(row, std::string::npos);
  const std::string line = doc.substr(row, doc.find('\n', row) - row);
  TempDir dir;
  const std::string body = kNegation;
  // `'key=value'` or `key=value` with a dotted key.
  static const std::regex example(R"(`'?([a-z_]+\.[a-z_.]+=[^`']+)'?`)");
  int examples = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), example);
       it != std::sregex_iterator(); ++it) {
    const std::string setting = (*it)[1].str();
    // Relative plugin paths are read from the current folder.
    std::filesystem::create_directories(dir.path() / "my" / "plugins");
    const auto script = dir.write("case.py", std::string(kHeader) + body);
    CommandResult r =
        runCommand(fmt::format("cd {} && {} run case.py --no-ir --backend eval --set '{}'",
                               dir.path().string(), FUSEBOX_EXE, setting));
    EXPECT_EQ(r.exit_code, 0) << setting << "\n" << r.output;
    ++examples;
  }
  EXPECT_GE(examples, 6);
}

// Item 10: as `run` says it.
TEST(CliHostile, BenchOfADeviceSaysItIsNotARegularFile) {
  CommandResult r = runCommand(fmt::format("{} bench /dev/null --backend eval", FUSEBOX_EXE));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("/dev/null: the script is a character device, not a regular "
                                  "file"));
}

// Item 11: arithmetic with numbers and the common unary methods in the
// inputs list, with torch's result dtypes.
TEST(CliHostile, InputsListArithmetic) {
  TempDir dir;
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T5 = fd.ops.log(T0)\n"
      "    fd.add_output(T5)\n"
      "    fd.add_output(T1)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n"
      "    fd.add_output(T4)\n"
      "inputs = [torch.rand(256) + 0.5, torch.randn(8, 8) * 2, torch.randn(4).abs(),\n"
      "          torch.randn(4).exp(), (1 - torch.tensor([1, 2, 3])) / 4]\n";
  CommandResult r = runScript(dir, body, "--validate", "eval");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  // rand + 0.5 lies in [0.5, 1.5); |randn| and exp(randn) are positive.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.output, m, std::regex(R"(input 0 T0: float\[256\][^\n]*? min=(\S+))")))
      << r.output;
  EXPECT_GE(std::stod(m[1]), 0.5);
  EXPECT_THAT(r.output, HasSubstr("input 4 T4: float[3]{strides 1} min=-0.5 max=0 "));
  // An int64 tensor stays int64 with an int; the definition says Float.
  CommandResult wrong =
      runScript(dir,
                std::regex_replace(body, std::regex(R"(\(1 - torch.tensor\(\[1, 2, 3\]\)\) / 4)"),
                                   "torch.tensor([1, 2, 3]) * 2"),
                "", "eval");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("expected dtype float, got int64"));
}

}  // namespace
}  // namespace fusebox
