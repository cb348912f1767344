// End-to-end tests of `fusebox run` through the runtime: every example and
// corpus file prints its segmentation on request and gives the evaluator's
// direct result; the cache at work with --repeat; dump flags; schedulers
// that throw or reject everything; `fusebox plugins` lists schedulers; bad
// [schedulers] config.
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/npy.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "support/output_match.h"
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

std::string exe() {
  return FUSEBOX_EXE;
}
fs::path source(const std::string& rel) {
  return fs::path(FUSEBOX_SOURCE_DIR) / rel;
}

std::vector<fs::path> scripts(const fs::path& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Smaller shapes for the examples whose own inputs are large (the reference
// evaluator is slow in Debug builds): input name -> sizes.
const std::map<std::string, std::map<std::string, std::vector<int64_t>>> kSmallerInputs = {
    {"bias_gelu.py", {{"T0", {8, 64}}, {"T1", {64}}}},
    {"gelu_bias_grad.py", {{"T0", {2, 8, 16}}, {"T1", {2, 8, 16}}, {"T2", {16}}}},
    {"layer_norm.py", {{"T0", {4, 32}}, {"T1", {32}}, {"T2", {32}}}},
    {"segmented_issue785.py", {{"T4", {2, 8, 16}}, {"T6", {2, 8, 16}}}},
};

Tensor asDtype(const Tensor& t, DataType dtype) {
  Tensor out = Tensor::empty(dtype, t.sizes());
  std::vector<int64_t> index(t.dim(), 0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t rest = i;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = rest % t.sizes()[d];
      rest /= t.sizes()[d];
    }
    out.setDouble(index, t.getDouble(index));
  }
  return out;
}

std::vector<std::string> splitNames(const std::string& list) {
  std::vector<std::string> names;
  std::istringstream items(list);
  for (std::string name; std::getline(items, name, ',');) {
    name.erase(0, name.find_first_not_of(' '));
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// Which outputs only the reference evaluator and views computed, from the
// segmented fusion dump: "Outputs:" lists them in order, and each group says
// "// group G (scheduler): ..., reads A, B; writes C, D". An output is exact
// when the group writing it, and every group it reads from, ran on the
// evaluator (expr_eval) or is a view (no_op); a generated kernel upstream
// computes in float where the evaluator uses double.
std::vector<bool> exactOutputs(const std::string& dump) {
  struct Group {
    bool exact;
    std::vector<std::string> reads;
  };
  static const std::regex group_line(
      R"(^// group \d+ \((\w+)\): [^;]*?(?:reads (.*))?; writes (.*)$)");
  std::vector<std::string> outputs;
  std::vector<Group> groups;
  std::map<std::string, size_t> writer;
  std::istringstream lines(dump);
  bool in_outputs = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Outputs:") {
      in_outputs = true;
      continue;
    }
    if (in_outputs && line.rfind("  ", 0) == 0) {
      outputs.push_back(line.substr(2, line.find_first_of("[,") - 2));
      continue;
    }
    in_outputs = false;
    std::smatch m;
    if (!std::regex_match(line, m, group_line)) continue;
    const std::string scheduler = m[1];
    groups.push_back({scheduler == "expr_eval" || scheduler == "no_op", splitNames(m[2])});
    for (const std::string& name : splitNames(m[3])) writer[name] = groups.size() - 1;
  }
  // Inexact inputs make a group inexact; repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (Group& g : groups)
      for (const std::string& read : g.reads)
        if (auto it = writer.find(read); g.exact && it != writer.end() && !groups[it->second].exact)
          g.exact = false, changed = true;
  }
  std::vector<bool> exact;
  for (const std::string& name : outputs) {
    auto it = writer.find(name);
    exact.push_back(it == writer.end() || groups[it->second].exact);
  }
  return exact;
}

// Runs `script` with `fusebox run --dump=segmented_fusion --save-outputs` and
// compares every saved output with evaluateFusion on the definition as parsed
// (no passes) and the same inputs: exactly where only the evaluator and views
// computed the output (exactOutputs), within checkClose's tolerance where a
// generated kernel did (float math instead of the evaluator's double). Counts
// the outputs compared exactly in `exact_outputs`.
void runAndCompare(const fs::path& script, int* exact_outputs) {
  SCOPED_TRACE(script.string());
  TempDir dir;
  PythonDefinition def = parsePythonFile(script.string());
  const auto& smaller = kSmallerInputs.count(script.filename().string())
                            ? kSmallerInputs.at(script.filename().string())
                            : std::map<std::string, std::vector<int64_t>>{};
  std::vector<Argument> inputs;
  std::string flags;
  for (size_t i = 0; i < def.fusion->inputs().size(); ++i) {
    const std::string& name = def.input_names[i];
    if (auto it = smaller.find(name); it != smaller.end()) {
      InputSpec spec;
      spec.shape = it->second;
      spec.dtype = def.fusion->inputs()[i]->dtype();
      std::string file = (dir.path() / (name + ".npy")).string();
      saveNpy(file, std::get<Tensor>(materializeInput(spec, 100 + i)));
      inputs.emplace_back(loadNpy(file));
      flags += " --input " + name + "=" + file;
    } else {
      ASSERT_LT(i, def.inputs.size()) << "no input for " << name;
      inputs.push_back(materializeInput(def.inputs[i], i));  // the CLI's seed for input i
    }
  }
  auto r = runCommand(exe() + " run " + script.string() + flags +
                      " --no-ir --dump=segmented_fusion --save-outputs " + dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("=== segmented fusion ("));
  EXPECT_THAT(r.output, HasSubstr("Groups:"));
  EXPECT_THAT(r.output, HasSubstr("run 1: cache miss"));

  const std::vector<OutputTolerance> tolerances = outputTolerances(*def.fusion, inputs);
  std::vector<Argument> expected = evaluateFusion(*def.fusion, inputs);
  const std::vector<bool> exact = exactOutputs(r.output);
  ASSERT_EQ(exact.size(), expected.size()) << r.output;
  for (size_t k = 0; k < expected.size(); ++k) {
    Tensor saved = loadNpy((dir.path() / fmt::format("output_{}.npy", k)).string());
    if (const auto* s = std::get_if<ScalarValue>(&expected[k])) {
      EXPECT_EQ(saved.getDoubleLinear(0), toDouble(*s)) << "output " << k;
      continue;
    }
    const Tensor& e = std::get<Tensor>(expected[k]);
    // .npy has no bfloat16: such outputs are saved as float32 (exactly).
    if (e.dtype() == DataType::BFloat16 && saved.dtype() == DataType::Float)
      saved = asDtype(saved, DataType::BFloat16);
    if (exact[k]) {
      ++*exact_outputs;
      EXPECT_TRUE(testing::matchesExactly(saved, e)) << "output " << k;
      continue;
    }
    CloseResult close = checkClose(saved, e, tolerances[k]);
    EXPECT_TRUE(close.pass) << "output " << k << ": " << close.shape_error << close.first_mismatch
                            << " (max abs error " << close.max_abs_error << ")";
  }
}

TEST(CliRuntime, EveryExampleMatchesTheEvaluator) {
  auto files = scripts(source("examples"));
  ASSERT_GE(files.size(), 7u);
  int exact = 0;
  for (const auto& f : files) runAndCompare(f, &exact);
  // cast_squeeze_issue3635.py's output (a view) at least.
  EXPECT_GE(exact, 1);
}

TEST(CliRuntime, EveryCorpusFileMatchesTheEvaluator) {
  auto files = scripts(source("tests/data/corpus"));
  ASSERT_GE(files.size(), 16u);
  int exact = 0;
  for (const auto& f : files) runAndCompare(f, &exact);
  // At least matmul_linear.py's 3 outputs, which no generated kernel touches
  // (reductions.py's now come from reduction kernels, compared within tolerance).
  EXPECT_GE(exact, 3);
}

TEST(CliRuntime, RepeatShowsTheCacheAtWork) {
  auto r = runCommand(exe() + " run " + source("examples/channels_last_relu.py").string() +
                      " --repeat 3 --no-ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("run 1: cache miss (passes and segmentation "));
  EXPECT_THAT(r.output, HasSubstr("run 2: cache hit; 1 segment in "));
  EXPECT_THAT(r.output, HasSubstr("run 3: cache hit; 1 segment in "));
  EXPECT_THAT(r.output, Not(HasSubstr("run 4")));
  auto bad = runCommand(exe() + " run " + source("examples/channels_last_relu.py").string() +
                        " --repeat 0");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output,
              HasSubstr("--repeat: '0' is out of range: expected an integer in [1, 1000000]"));
}

TEST(CliRuntime, DumpsComeFromTheFlagTheEnvironmentAndTheConfig) {
  std::string script = source("examples/channels_last_relu.py").string();
  auto r = runCommand(exe() + " run " + script +
                      " --no-ir --dump=segmenter_log,scheduler_params --dump fusion_ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("=== segmenter log ==="));
  EXPECT_THAT(r.output, HasSubstr("mul computes new values"));
  // relu * 2 has no reduction: the pointwise scheduler takes it.
  EXPECT_THAT(r.output, HasSubstr("=== scheduler params: group 0 (pointwise) ==="));
  EXPECT_THAT(r.output, HasSubstr("=== fusion IR after passes (inputs float[2, 3, 4, 5]"));
  EXPECT_THAT(r.output, Not(HasSubstr("=== segmented fusion")));

  auto env = runCommand("FUSEBOX_DUMP=segmented_fusion " + exe() + " run " + script + " --no-ir");
  ASSERT_EQ(env.exit_code, 0) << env.output;
  EXPECT_THAT(env.output, HasSubstr("=== segmented fusion (1 group) ==="));
  // The command line overrides the environment.
  auto off = runCommand("FUSEBOX_DUMP=segmented_fusion " + exe() + " run " + script +
                        " --no-ir --dump segmented_fusion=false");
  EXPECT_THAT(off.output, Not(HasSubstr("=== segmented fusion")));

  TempDir dir;
  auto config = dir.write("c.toml", "[dump]\nsegmenter_log = true\nprint_after = [\"all\"]\n");
  auto cfg = runCommand(exe() + " run " + script + " --no-ir --config " + config.string());
  ASSERT_EQ(cfg.exit_code, 0) << cfg.output;
  EXPECT_THAT(cfg.output, HasSubstr("=== segmenter log ==="));
  EXPECT_THAT(cfg.output, HasSubstr("=== IR after pass"));
}

TEST(CliRuntime, RepeatableFlagsBeforeTheFileTakeOneValueEach) {
  auto r = runCommand(exe() +
                      " run --dump segmenter_log --input T0=2x3x4x5 --disable-pass "
                      "remove_empty " +
                      source("examples/channels_last_relu.py").string() + " --no-ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("=== segmenter log ==="));
  EXPECT_THAT(r.output, HasSubstr("input 0 T0: float[2, 3, 4, 5]{strides 60, 20, 5, 1}"));
}

TEST(CliRuntime, UnknownDumpNamesListTheValidOnes) {
  std::string script = source("examples/channels_last_relu.py").string();
  auto r = runCommand(exe() + " run " + script + " --dump=segmented_fusoin");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("--dump: unknown option 'segmented_fusoin'; valid options: "));
  EXPECT_THAT(r.output, HasSubstr("segmented_fusion (bool)"));
  EXPECT_THAT(r.output, HasSubstr("graph_file (string)"));
  auto env = runCommand("FUSEBOX_DUMP=segmenter_logg " + exe() + " run " + script);
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_THAT(env.output, HasSubstr("FUSEBOX_DUMP: unknown option 'segmenter_logg'"));
}

TEST(CliRuntime, DumpGraphWritesGraphvizAndSaysWhatBecameOfTheSvg) {
  TempDir dir;
  fs::path dot = dir.path() / "segments.dot";
  auto r = runCommand(exe() + " run " + source("examples/segmented_issue785.py").string() +
                      " --input T4=2x3x4 --input T6=2x3x4 --no-ir --dump-graph " + dot.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dot));
  std::ifstream in(dot);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("digraph"));
  EXPECT_THAT(r.output, HasSubstr("segment graph written to " + dot.string()));
  fs::path svg = dir.path() / "segments.svg";
  if (runCommand("command -v dot").exit_code == 0) {
    EXPECT_THAT(r.output, HasSubstr("SVG written to " + svg.string()));
    EXPECT_TRUE(fs::exists(svg));
  } else {
    EXPECT_THAT(r.output, HasSubstr("SVG skipped: `dot` (Graphviz) is not on PATH"));
    EXPECT_FALSE(fs::exists(svg));
  }
}

// A config with the test-only schedulers (tests/scheduler_fixtures) tried first.
fs::path fixtureConfig(const TempDir& dir, const std::string& order) {
  return dir.write("fixtures.toml", "[plugins]\npaths = [\"@builtin\", \"" +
                                        std::string(FUSEBOX_TEST_SCHEDULERS_DIR) +
                                        "\"]\n[schedulers]\norder = " + order + "\n");
}

TEST(CliRuntime, SchedulersThatThrowOrRejectEverythingDoNotBreakARun) {
  TempDir dir;
  auto config = fixtureConfig(dir, "[\"throws_always\", \"reject_all\", \"expr_eval\"]");
  auto r = runCommand(exe() + " run " + source("examples/channels_last_relu.py").string() +
                      " --no-ir --dump=segmenter_log --config " + config.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 by expr_eval"));
  // The log says why each of the others did not take the fusion.
  EXPECT_THAT(r.output, HasSubstr("throws_always"));
  EXPECT_THAT(r.output, HasSubstr("reject_all"));
}

TEST(CliRuntime, WithoutAFallbackAFusionNoSchedulerTakesIsAUserError) {
  TempDir dir;
  auto config = fixtureConfig(dir, "[\"reject_all\"]");
  auto r = runCommand(exe() + " run " + source("examples/channels_last_relu.py").string() +
                      " --config " + config.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("reject_all"));
}

// A third party may still write its kernel as text: it runs, and the
// kernel IR dump says the kernel has none.
TEST(CliRuntime, AKernelWrittenAsTextHasNoKernelIr) {
  TempDir dir;
  auto config = fixtureConfig(dir, "[\"text_kernel\", \"pointwise\"]");
  const fs::path script =
      dir.write("neg.py",
                "from nvfuser import FusionDefinition, DataType\n"
                "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n"
                "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                "dtype=DataType.Float, is_cpu=False)\n"
                "    T1 = fd.ops.neg(T0)\n"
                "    fd.add_output(T1)\n");
  auto r = runCommand(exe() + " run " + script.string() +
                      " --input T0=7x300 --backend host --no-ir --validate --dump kernel_ir "
                      "--config " +
                      config.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 by text_kernel"));
  EXPECT_THAT(r.output, ContainsRegex("=== kernel IR: group 0 \\(fusebox_text_kernel_[0-9a-f]+\\): "
                                      "none; the text_kernel scheduler writes this kernel "
                                      "without the kernel IR ===\n"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
}

TEST(CliRuntime, DisableSchedulerFlag) {
  TempDir dir;
  auto config = fixtureConfig(dir, "[\"accept_all_host\", \"expr_eval\"]");
  std::string cmd = exe() + " run " + source("examples/channels_last_relu.py").string() +
                    " --no-ir --config " + config.string();
  EXPECT_THAT(runCommand(cmd).output, HasSubstr("group 0 by accept_all_host"));
  auto r = runCommand(cmd + " --disable-scheduler accept_all_host");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 by expr_eval"));
  auto bad = runCommand(cmd + " --disable-scheduler nope");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("--disable-scheduler: unknown scheduler 'nope'"));
}

TEST(CliRuntime, PluginsListsTheSchedulersAndTheirOrder) {
  auto r = runCommand(exe() + " plugins");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no_op  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("expr_eval  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("libfusebox_scheduler_expr_eval.so"));
  EXPECT_THAT(r.output, HasSubstr("pointwise  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("reduction  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("inner_persistent  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("outer_persistent  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("inner_outer_persistent  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("scan  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("transpose  scheduler  1.0  "));
  EXPECT_THAT(r.output, HasSubstr("scheduler order: position 9"));
  EXPECT_THAT(
      r.output,
      HasSubstr("scheduler order: no_op, transpose, pointwise, reduction, inner_persistent, "
                "outer_persistent, inner_outer_persistent, scan, expr_eval"));
}

TEST(CliRuntime, BadSchedulersConfigNamesFileLineAndColumn) {
  TempDir dir;
  auto config = dir.write("bad.toml", "[schedulers]\norder = [\"no_op\", \"expr_evall\"]\n");
  auto r = runCommand(exe() + " run " + source("examples/channels_last_relu.py").string() +
                      " --config " + config.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr(config.string() + ":2:19: [schedulers] order: unknown "
                                                    "scheduler 'expr_evall'; known schedulers: "));
  EXPECT_THAT(r.output, HasSubstr("expr_eval (from "));

  auto typed = dir.write("typed.toml", "[schedulers]\ndisabled = \"no_op\"\n");
  r = runCommand(exe() + " plugins --config " + typed.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr(typed.string() + ":2:12: [schedulers] disabled must be an "
                                                   "array of strings, got a string"));
}

}  // namespace
}  // namespace fusebox
