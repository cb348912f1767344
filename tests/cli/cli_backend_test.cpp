// `fusebox run` with kernels: --backend host/eval (and cuda where a GPU is
// usable), --validate (passing, and a planted mismatch), --bench, --time-compile
// and the kernel_source dump.
#include <fusebox/backend/cuda_backend.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;
using testing::TempDir;

std::string run(const std::string& script, const std::string& flags) {
  return std::string(FUSEBOX_EXE) + " run " + (fs::path(FUSEBOX_SOURCE_DIR) / script).string() +
         " --no-ir " + flags;
}

const std::string kBiasGelu = "examples/bias_gelu.py";
const std::string kSmall = "--input T0=8x64 --input T1=64 ";

TEST(CliBackend, HostBackendRunsThePointwiseKernel) {
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend host"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("backend: host ("));
  EXPECT_THAT(r.output, HasSubstr("1 segment in"));
  EXPECT_THAT(r.output, HasSubstr("group 0 by pointwise"));
}

TEST(CliBackend, EvalBackendRunsTheEvaluatorWithoutWarnings) {
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend eval --dump scheduler_params"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("backend: eval"));
  EXPECT_THAT(r.output, HasSubstr("group 0 by expr_eval"));
  EXPECT_THAT(r.output, HasSubstr("plan: host evaluation of"));
  EXPECT_THAT(r.output, Not(HasSubstr("warning")));
  EXPECT_THAT(r.output, Not(HasSubstr("kernel fusebox_pointwise_")));
}

TEST(CliBackend, UnknownBackendIsAUserError) {
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend tpu"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("--backend"));
}

TEST(CliBackend, CudaWithoutAGpuSaysWhy) {
  if (cudaAvailable().available) GTEST_SKIP() << "a GPU is usable here";
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend cuda"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("--backend cuda: no usable GPU"));
}

TEST(CliBackend, DefaultBackendIsCudaOnlyWithAGpu) {
  auto r = runCommand(run(kBiasGelu, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr(cudaAvailable().available ? "backend: NVIDIA" : "backend: host ("));
}

// An aliased output overwrites its input: --validate compares with the
// evaluator on the inputs from before the last run, on every backend and
// however many runs came before. Zeros in: T2 = 0 + exp(0) = 1.
TEST(CliBackend, ValidateComparesAliasedOutputsWithTheInputsBeforeTheRun) {
  for (const std::string backend : {"host", "eval"})
    for (const std::string repeat : {"1", "3"}) {
      SCOPED_TRACE(backend + " x" + repeat);
      auto r = runCommand(run("tests/data/alias_in_place.py",
                              "--validate --backend " + backend + " --repeat " + repeat));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_THAT(r.output, HasSubstr("validate: PASS (3 outputs"));
      if (repeat == "1") {
        EXPECT_THAT(r.output, HasSubstr("output 1 T2_g: float[4, 8]{strides 8, 1} min=1 max=1"));
        EXPECT_THAT(r.output, HasSubstr("output 2 T3_g: float[4]{strides 1} min=0 max=0"));
      }
    }
}

TEST(CliBackend, ValidatePassesPerOutput) {
  // gelu_bias_grad has two outputs and sums over 2x8 rows.
  auto r = runCommand(run("examples/gelu_bias_grad.py",
                          "--input T0=2x8x16 --input T1=2x8x16 --input T2=16 --backend host "
                          "--validate"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("validate output 0 T[0-9]+_g: max abs error [0-9.e+-]+, "
                                      "max rel error [0-9.e+-]+ \\(atol [0-9.e+-]+, rtol "
                                      "[0-9.e+-]+\\): PASS"));
  EXPECT_THAT(r.output, HasSubstr("validate output 1 "));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (2 outputs, largest reduction 16)"));

  auto kernel = runCommand(run(kBiasGelu, kSmall + "--backend host --validate"));
  ASSERT_EQ(kernel.exit_code, 0) << kernel.output;
  EXPECT_THAT(kernel.output, HasSubstr("group 0 by pointwise"));
  EXPECT_THAT(kernel.output, HasSubstr("validate: PASS (1 output, largest reduction 1)"));
}

TEST(CliBackend, ValidateCatchesAWrongResult) {
  // The test-only wrong_by_one scheduler adds one to every element.
  TempDir dir;
  fs::path config = dir.write("wrong.toml", "[plugins]\npaths = [\"@builtin\", \"" +
                                                std::string(FUSEBOX_TEST_SCHEDULERS_DIR) +
                                                "\"]\n[schedulers]\norder = [\"wrong_by_one\"]\n");
  auto r =
      runCommand(run(kBiasGelu, kSmall + "--backend host --validate --config " + config.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 by wrong_by_one"));
  EXPECT_THAT(r.output, ContainsRegex("validate output 0 T15_g: max abs error 1, .*: FAIL"));
  EXPECT_THAT(r.output, HasSubstr("512 mismatched, first at element [0, 0]"));
  EXPECT_THAT(r.output, HasSubstr("validate: FAIL (1 output, 1 failed"));
}

TEST(CliBackend, BenchReportsEachKernelAndTheCacheHitRun) {
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend host --bench 3"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // bias_gelu reads 8x64 + 64 halves and writes 8x64 halves: 2176 bytes.
  EXPECT_THAT(r.output, ContainsRegex("bench: group 0 kernel fusebox_pointwise_[0-9a-f]+: median "
                                      "[0-9.]+ ms over 3 launches \\(steady_clock\\), [0-9.]+ "
                                      "GB/s \\(2176 bytes moved\\)"));
  EXPECT_THAT(r.output, ContainsRegex("bench: run\\(\\) on a cache hit: median [0-9.]+ ms over 3 "
                                      "calls\n"));
  // The call timed between CUDA events is the cuda backend's line.
  EXPECT_THAT(r.output, Not(HasSubstr("bench: call:")));

  auto none = runCommand(run(kBiasGelu, kSmall + "--backend eval --bench 2"));
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_THAT(none.output, HasSubstr("bench: no kernels ran (every segment ran a host plan)"));
}

TEST(CliBackend, TimeCompileSplitsTheColdRun) {
  TempDir dir;
  // A private kernel cache, so the kernel is really compiled.
  auto r = runCommand("FUSEBOX_KERNEL_CACHE_DIR=" + (dir.path() / "cache").string() + " " +
                      run(kBiasGelu, kSmall + "--backend host --time-compile --repeat 2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* stage : {"passes", "segmentation", "heuristics\\+codegen", "load"})
    EXPECT_THAT(r.output, ContainsRegex(std::string("time-compile: ") + stage + " [0-9.]+ ms\n"));
  EXPECT_THAT(r.output,
              ContainsRegex("time-compile: compile \\(host compiler\\) [0-9.]+ ms over 1 kernel "
                            "\\(0 from the kernel cache; parallel wall time [0-9.]+ ms\\)"));
  EXPECT_THAT(r.output, HasSubstr("run 2: cache hit"));
}

TEST(CliBackend, KernelSourceDump) {
  auto r = runCommand(run(kBiasGelu, kSmall + "--backend host --dump kernel_source"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              ContainsRegex("=== kernel source: group 0 \\(fusebox_pointwise_[0-9a-f]+\\) "
                            "===\n"));
  EXPECT_THAT(r.output, HasSubstr("#include <fusebox_runtime.cuh>"));
  EXPECT_THAT(r.output, HasSubstr("extern \"C\" __global__ void fusebox_pointwise_"));
}

// --dump kernel_ir: the kernels are built through the kernel IR and their
// dump shows the structure the source has.
TEST(CliBackend, KernelIrDump) {
  auto r = runCommand(run("benchmarks/workloads/cumsum_rows_f32.py",
                          "--input T0=3x100 --backend host --dump kernel_ir,kernel_source"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m,
                                std::regex("=== kernel IR: group 0 \\((fusebox_scan_[0-9a-f]+)\\) "
                                           "===\n")))
      << r.output;
  const std::string name = m[1].str();
  const size_t ir_at = r.output.find(m[0].str());
  const size_t source_at = r.output.find("=== kernel source: group 0 (" + name + ") ===");
  ASSERT_NE(source_at, std::string::npos) << r.output;
  EXPECT_LT(ir_at, source_at);  // the IR first
  const std::string ir = r.output.substr(ir_at, source_at - ir_at);
  EXPECT_THAT(ir, HasSubstr("decl const scan_op: fusebox::ReduceSum\n"));
  EXPECT_THAT(ir, ContainsRegex("\nfor c: idx_t = 0 while c < 100 step \\+= [0-9]+ \\{\n"));
  EXPECT_THAT(ir,
              ContainsRegex("\n    unrolled for v: int = 0 while v < [0-9]+ step \\+= 1 \\{\n"));
  const std::string source = r.output.substr(source_at);
  EXPECT_THAT(source, ContainsRegex("\n  for \\(idx_t c = 0; c < 100; c \\+= [0-9]+\\) \\{\n"));
  EXPECT_THAT(source, HasSubstr("\n  const fusebox::ReduceSum scan_op;\n"));

  auto pointwise = runCommand(run(kBiasGelu, kSmall + "--backend host --dump kernel_ir"));
  ASSERT_EQ(pointwise.exit_code, 0) << pointwise.output;
  EXPECT_THAT(pointwise.output,
              ContainsRegex("=== kernel IR: group 0 \\(fusebox_pointwise_[0-9a-f]+\\) ===\n"));
  // The one-dimensional loop or the loop over rows, whichever the params chose.
  EXPECT_THAT(pointwise.output,
              ContainsRegex("\n(unrolled for u: int|for r: idx_t) = 0 while (u|r) < "));

  // A reduction over 64-wide rows: the row's lanes combine, a node in the
  // dump and its lowering in the source.
  auto reduction = runCommand(run("benchmarks/workloads/sum_rows_f32.py",
                                  "--input T0=8x64 --backend host --dump kernel_ir"));
  ASSERT_EQ(reduction.exit_code, 0) << reduction.output;
  EXPECT_THAT(reduction.output,
              ContainsRegex("=== kernel IR: group 0 \\(fusebox_reduction_[0-9a-f]+\\) ===\n"));
  EXPECT_THAT(reduction.output,
              ContainsRegex("\ncombine lanes\\([0-9]+\\) acc0: float by fusebox::ReduceSum"));

  // The persistent kernels: softmax's two stages, each a lanes combine of
  // the row's 8 lanes, and the row's chunk loop.
  auto softmax = runCommand(run("benchmarks/workloads/softmax_fwd_bf16.py",
                                "--input T0=8x64 --backend host --dump kernel_ir"));
  ASSERT_EQ(softmax.exit_code, 0) << softmax.output;
  EXPECT_THAT(
      softmax.output,
      ContainsRegex("=== kernel IR: group 0 \\(fusebox_inner_persistent_[0-9a-f]+\\) ===\n"));
  EXPECT_THAT(softmax.output,
              HasSubstr("\ncombine lanes(8) acc0: float by fusebox::ReduceMax through "
                        "fusebox_norm_smem\n"));
  EXPECT_THAT(softmax.output,
              HasSubstr("\ncombine lanes(8) acc1: float by fusebox::ReduceSum through "
                        "fusebox_norm_smem\n"));
  EXPECT_THAT(softmax.output, HasSubstr("\nunrolled for k: int = 0 while k < 1 step += 1 {\n"));
}

// Every built-in scheduler's kernel is IR from its first line to its last:
// the index type, pointer and size declarations open it, and no statement
// is text the IR holds as lines (`code { | ... }`).
TEST(CliBackend, EveryBuiltInKernelIsIrThroughout) {
  struct Case {
    const char* workload;
    const char* inputs;
    const char* kernel;
  };
  for (const Case& c :
       {Case{"cumsum_rows_f32", "-i T0=3x100", "scan"},
        Case{"sum_cols_f32", "-i T0=4096x64", "reduction"},
        Case{"softmax_fwd_bf16", "-i T0=8x64", "inner_persistent"},
        Case{"batchnorm_fwd_bf16", "-i T0=400x96 -i T1=96 -i T2=96", "outer_persistent"},
        Case{"layernorm_bwd_bf16", "-i T0=40x300 -i T1=40x300 -i T2=40 -i T3=40 -i T4=300",
             "inner_outer_persistent"},
        Case{"bias_gelu", "-i T0=8x64 -i T1=64", "pointwise"}}) {
    SCOPED_TRACE(c.workload);
    auto r = runCommand(run(std::string("benchmarks/workloads/") + c.workload + ".py",
                            std::string(c.inputs) + " --backend host --validate --dump kernel_ir"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output,
                ContainsRegex(std::string("=== kernel IR: group [0-9]+ \\(fusebox_") + c.kernel +
                              "_[0-9a-f]+\\) ===\ntype idx_t = int(32|64)_t\n"));
    EXPECT_THAT(r.output, Not(HasSubstr("\ncode {")));
    EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  }
}

// FUSEBOX_RECORD_KERNELS (docs/testing.md, "The kernel corpus"): the file
// holds the kernel the run compiled, and a second run records the same file.
TEST(CliBackend, RecordedKernelsAreTheCompiledSources) {
  TempDir dir;
  std::vector<std::string> names;
  for (const char* folder : {"first", "second"}) {
    const fs::path record = dir.path() / folder;
    auto r = runCommand("FUSEBOX_RECORD_KERNELS=" + record.string() + " " +
                        run(kBiasGelu, kSmall + "--backend host --dump kernel_source"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(record)) files.push_back(e.path());
    ASSERT_EQ(files.size(), 1u);
    names.push_back(files[0].filename().string());
    std::ifstream in(files[0]);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(text, m, std::regex("^// kernel: (fusebox_pointwise_[0-9a-f]+)\n")))
        << text;
    EXPECT_EQ(names.back().rfind(m[1].str() + "-", 0), 0u) << names.back();
    // The source after the recorded comments is the one the dump printed.
    const size_t source_at = text.find("// Generated by the fusebox pointwise scheduler.");
    ASSERT_NE(source_at, std::string::npos) << text;
    EXPECT_THAT(r.output, HasSubstr(text.substr(source_at)));
  }
  EXPECT_EQ(names[0], names[1]);
  // The comparison script sees the two recordings as one.
  const std::string script =
      (fs::path(FUSEBOX_SOURCE_DIR) / "tools/scripts/kernel_corpus.py").string();
  auto same = runCommand("python3 " + script + " compare " + (dir.path() / "first").string() + " " +
                         (dir.path() / "second").string());
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_THAT(same.output, HasSubstr("same kernels, byte for byte"));
  fs::rename(dir.path() / "second" / names[1], dir.path() / "second" / ("x" + names[1]));
  auto differ = runCommand("python3 " + script + " compare " + (dir.path() / "first").string() +
                           " " + (dir.path() / "second").string());
  EXPECT_EQ(differ.exit_code, 1) << differ.output;
  EXPECT_THAT(differ.output,
              HasSubstr("only in " + (dir.path() / "first").string() + ": " + names[0]));
}

TEST(CliBackend, ARecordFolderThatCannotBeMadeIsAnError) {
  TempDir dir;
  const fs::path file = dir.write("plain_file", "not a folder\n");
  auto r = runCommand("FUSEBOX_RECORD_KERNELS=" + (file / "sub").string() + " " +
                      run(kBiasGelu, kSmall + "--backend host"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FUSEBOX_RECORD_KERNELS=" + (file / "sub").string() +
                                  ": the folder cannot be created"));
}

}  // namespace
}  // namespace fusebox
