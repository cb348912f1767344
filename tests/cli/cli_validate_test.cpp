// `fusebox run --validate` under the tolerance model: the test-only
// wrong_by_one scheduler (every result off by one) fails on a reduction
// fusion of every floating dtype, where tolerances grown with the reduction
// once let it pass; correct runs pass; each output says how it was compared;
// an aliased output validates against the inputs from before the run.
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

std::string run(const fs::path& script, const std::string& flags) {
  return std::string(FUSEBOX_EXE) + " run " + script.string() + " --no-ir " + flags;
}

// A [8, 1024] sum accumulated in float, beside a pointwise output and a
// permuted copy of the input: the case of issue 9.
std::string sumScript(const std::string& dtype, const std::string& torch_dtype) {
  return "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n"
         "def nvfuser_fusion(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." +
         dtype +
         ", is_cpu=False)\n"
         "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)\n"
         "    T3 = fd.ops.cast(T2, dtype=DataType." +
         dtype +
         ")\n"
         "    T4 = fd.ops.mul(T1, T1)\n"
         "    T5 = fd.ops.cast(T4, dtype=DataType." +
         dtype +
         ")\n"
         "    T6 = fd.ops.permute(T0, dims=[1, 0])\n"
         "    fd.add_output(T3)\n"
         "    fd.add_output(T5)\n"
         "    fd.add_output(T6)\n\n"
         "inputs = [\n    torch.randn((8, 1024), dtype=torch." +
         torch_dtype +
         ", device='cuda:0'),\n]\n\n"
         "with FusionDefinition() as fd:\n    nvfuser_fusion(fd)\n\nfd.execute(inputs)\n";
}

TEST(CliValidate, WrongByOneFailsOnAReductionOfEveryDtype) {
  TempDir dir;
  const fs::path wrong =
      dir.write("wrong.toml", "[plugins]\npaths = [\"@builtin\", \"" +
                                  std::string(FUSEBOX_TEST_SCHEDULERS_DIR) +
                                  "\"]\n[schedulers]\norder = [\"wrong_by_one\"]\n");
  for (auto [dtype, torch_dtype] : {std::pair{"BFloat16", "bfloat16"}, std::pair{"Half", "float16"},
                                    std::pair{"Float", "float32"}}) {
    SCOPED_TRACE(dtype);
    const fs::path script = dir.write(std::string(dtype) + ".py", sumScript(dtype, torch_dtype));
    auto r = runCommand(run(script, "--backend host --validate --config " + wrong.string()));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("group 0 by wrong_by_one"));
    // The sum itself fails, not only the pointwise output beside it.
    EXPECT_THAT(r.output, ContainsRegex("validate output 0 T3_g: max abs error 1, [^\n]* or the "
                                        "rounding of 1024-term reductions, up to [^\n]*: FAIL\n"));
    EXPECT_THAT(r.output, ContainsRegex("validate output 1 T5_g: max abs error 1[.0-9]*, [^\n]*: "
                                        "FAIL\n"));
    EXPECT_THAT(r.output, ContainsRegex("validate output 2 T6_g: [^\n]*\\(bit for bit\\); 8192 "
                                        "mismatched[^\n]*: FAIL\n"));
    EXPECT_THAT(r.output,
                HasSubstr("validate: FAIL (3 outputs, 3 failed, largest reduction 1024)"));

    // The real schedulers' kernels pass.
    auto ok = runCommand(run(script, "--backend host --validate"));
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_THAT(ok.output, ContainsRegex("validate output 2 T6_g: max abs error 0, max rel error 0 "
                                         "\\(bit for bit\\): PASS\n"));
    EXPECT_THAT(ok.output, HasSubstr("validate: PASS (3 outputs, largest reduction 1024)"));
  }
}

// strides_aliases.py writes T5 = exp(T2) into T2. Validated against the
// inputs as they were before the last run, the evaluator computes what the
// run did; against the overwritten ones, T4 = (T0 + T1) * T2 would read
// exp(T2) and fail.
TEST(CliValidate, AnAliasedOutputValidatesOnEveryBackend) {
  const fs::path script = fs::path(FUSEBOX_SOURCE_DIR) / "tests/data/corpus/strides_aliases.py";
  for (const std::string backend : {"eval", "host"})
    for (const std::string repeat : {"1", "2"}) {
      SCOPED_TRACE(backend + " x" + repeat);
      auto r = runCommand(run(script, "--validate --backend " + backend + " --repeat " + repeat));
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_THAT(r.output, ContainsRegex("validate output 1 T4_g: [^\n]*: PASS\n"));
      EXPECT_THAT(r.output, ContainsRegex("validate output 2 T5_g: [^\n]*: PASS\n"));
      EXPECT_THAT(r.output, HasSubstr("validate: PASS (3 outputs, largest reduction 1)"));
    }
}

}  // namespace
}  // namespace fusebox
