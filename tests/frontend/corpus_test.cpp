// The corpus under tests/data/corpus: every file parses into the structure its
// header promises (hand-counted `# expect-...` lines), round-trips through the
// printer, runs on its own inputs list with the values `fusebox run --backend
// eval` computes, and runs on the host backend (generated kernels compiled for
// the CPU) with every output matching the evaluator; together the files use
// every op and every dtype.
#include <fmt/format.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/npy.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/output_match.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

fs::path corpusDir() {
  return fs::path(FUSEBOX_SOURCE_DIR) / "tests" / "data" / "corpus";
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(corpusDir()))
    if (entry.path().extension() == ".py") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Expectation {
  int64_t inputs = -1;
  int64_t outputs = -1;
  std::map<std::string, int64_t> ops;  // OpType name -> count
};

// Reads "# expect-inputs: N", "# expect-outputs: N", "# expect-ops: a=1 b=2".
Expectation readExpectation(const std::string& text) {
  Expectation e;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    auto value = [&](const std::string& key) -> std::optional<std::string> {
      std::string prefix = "# expect-" + key + ":";
      if (line.rfind(prefix, 0) != 0) return std::nullopt;
      return line.substr(prefix.size());
    };
    if (auto v = value("inputs")) e.inputs = std::stoll(*v);
    if (auto v = value("outputs")) e.outputs = std::stoll(*v);
    if (auto v = value("ops")) {
      std::istringstream items(*v);
      std::string item;
      while (items >> item) {
        size_t eq = item.find('=');
        e.ops[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
      }
    }
  }
  return e;
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, StructureMatchesTheHandCountedHeader) {
  fs::path path = corpusDir() / GetParam();
  std::string text = readFile(path);
  Expectation want = readExpectation(text);
  ASSERT_GE(want.inputs, 0) << "missing # expect-inputs";
  ASSERT_GE(want.outputs, 0) << "missing # expect-outputs";
  ASSERT_FALSE(want.ops.empty()) << "missing # expect-ops";

  PythonDefinition d = parsePythonDefinition(text, path.string());
  EXPECT_EQ(static_cast<int64_t>(d.fusion->inputs().size()), want.inputs);
  EXPECT_EQ(static_cast<int64_t>(d.fusion->outputs().size()), want.outputs);
  std::map<std::string, int64_t> got;
  for (const Expr* e : d.fusion->exprs()) ++got[std::string(toString(e->op()))];
  EXPECT_EQ(got, want.ops);
  EXPECT_TRUE(d.has_inputs_list);
  EXPECT_EQ(d.inputs.size(), d.fusion->inputs().size());
  EXPECT_EQ(d.input_names.size(), d.fusion->inputs().size());
}

TEST_P(CorpusTest, RoundTripsThroughThePrinter) {
  fs::path path = corpusDir() / GetParam();
  PythonDefinition d = parsePythonFile(path.string());
  PythonPrintOptions options;
  options.inputs = d.inputs;
  std::string printed = printPythonDefinition(*d.fusion, options);
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*d.fusion, *back.fusion, &why)) << why << "\n" << printed;
  // The inputs list survives too, and printing is a fixed point.
  ASSERT_EQ(back.inputs.size(), d.inputs.size());
  for (size_t i = 0; i < d.inputs.size(); ++i)
    EXPECT_EQ(toPython(back.inputs[i]), toPython(d.inputs[i]));
  EXPECT_EQ(printPythonDefinition(*back.fusion, options), printed);
}

TEST_P(CorpusTest, RunsOnItsOwnInputsList) {
  // The evaluator on the file's inputs list, in this process, against an
  // independent run: `fusebox run --backend eval`, which builds the inputs
  // from the list itself and evaluates the fusion after passes and
  // segmentation, one segment at a time. Same seeds, so every value agrees.
  fs::path path = corpusDir() / GetParam();
  PythonDefinition d = parsePythonFile(path.string());
  std::vector<Argument> args;
  for (size_t i = 0; i < d.inputs.size(); ++i)
    args.push_back(materializeInput(d.inputs[i], 1000 + i));
  EvaluatorOptions options;
  options.input_names = d.input_names;
  std::vector<Argument> outs = evaluateFusion(*d.fusion, args, options);
  ASSERT_EQ(outs.size(), d.fusion->outputs().size());

  testing::TempDir dir;
  const auto r = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + path.string() +
                                     " --backend eval --seed 1000 --no-ir --save-outputs " +
                                     dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (size_t k = 0; k < outs.size(); ++k) {
    SCOPED_TRACE("output " + std::to_string(k));
    Tensor saved = loadNpy((dir.path() / fmt::format("output_{}.npy", k)).string());
    const Val* declared = d.fusion->outputs()[k];
    if (const auto* s = std::get_if<ScalarValue>(&outs[k])) {
      ASSERT_FALSE(declared->isTensor());
      EXPECT_EQ(saved.getDoubleLinear(0), toDouble(*s));
      continue;
    }
    const Tensor& got = std::get<Tensor>(outs[k]);
    // The dtype and rank the fusion declares.
    ASSERT_TRUE(declared->isTensor());
    EXPECT_EQ(got.dtype(), declared->dtype());
    EXPECT_EQ(got.dim(),
              static_cast<int64_t>(declared->as<TensorView>()->logicalNoReductions().size()));
    // .npy has no bfloat16: the CLI saves it as float32, exactly.
    if (got.dtype() == DataType::BFloat16 && saved.dtype() == DataType::Float) {
      Tensor narrowed = Tensor::empty(DataType::BFloat16, saved.sizes());
      copyInto(saved, narrowed);
      saved = narrowed;
    }
    EXPECT_TRUE(testing::matchesExactly(saved, got)) << "output " << k;
  }
}

// The scheduler of each segment, from the first `run 1: ...: group 0 by
// pointwise, group 1 by expr_eval` line of `fusebox run`'s output.
std::vector<std::string> schedulersOfFirstRun(const std::string& output) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("run 1:", 0) != 0) continue;
    std::vector<std::string> names;
    static const std::regex group(R"(group \d+ by ([A-Za-z0-9_]+))");
    for (std::sregex_iterator it(line.begin(), line.end(), group), end; it != end; ++it)
      names.push_back((*it)[1].str());
    return names;
  }
  return {};
}

// Files whose every op runs on the evaluator on the host backend, so no
// segment can be a generated kernel: matmul and linear have no kernel
// scheduler (they run on expr_eval, through cuBLAS on a GPU).
const std::set<std::string> kNoKernelFiles = {"matmul_linear.py"};

TEST_P(CorpusTest, RunsOnTheHostBackendAgainstTheEvaluator) {
  // The whole pipeline on the host backend: passes, segmentation and the
  // generated kernels compiled by the host compiler, every output checked by
  // `--validate` against the evaluator on the fusion as defined.
  fs::path path = corpusDir() / GetParam();
  const auto r = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + path.string() +
                                     " --backend host --validate --no-ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\nvalidate: PASS"), std::string::npos) << r.output;

  // At least one segment ran as a generated kernel rather than on the
  // evaluator (expr_eval) or as a view (no_op), where the file's ops allow one.
  const std::vector<std::string> schedulers = schedulersOfFirstRun(r.output);
  ASSERT_FALSE(schedulers.empty()) << "no `run 1: ... group N by SCHEDULER` line:\n" << r.output;
  if (kNoKernelFiles.count(GetParam())) return;
  const bool kernel = std::any_of(schedulers.begin(), schedulers.end(), [](const std::string& s) {
    return s != "expr_eval" && s != "no_op";
  });
  EXPECT_TRUE(kernel) << "no segment ran as a generated kernel:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(Files, CorpusTest, ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 3);
                           return name;
                         });

TEST(Corpus, HoldsAtLeastFortyDefinitions) {
  // The issue's floor: 40 definitions of our own, in the styles of nvFuser's
  // tests, Thunder's traces and nvFuser's repro dumps.
  const std::vector<std::string> files = corpusFiles();
  EXPECT_GE(files.size(), 40u);
  for (const char* prefix : {"nvf_", "thunder_", "repro_"})
    EXPECT_TRUE(std::any_of(files.begin(), files.end(),
                            [&](const std::string& f) { return f.rfind(prefix, 0) == 0; }))
        << "no corpus file named " << prefix << "*.py";
  for (const std::string& file : kNoKernelFiles)
    EXPECT_TRUE(std::count(files.begin(), files.end(), file)) << file << " is not in the corpus";
}

TEST(Corpus, TogetherUsesEveryOpAttributeAndDtype) {
  std::set<OpType> ops;
  std::set<UnaryOpType> unary;
  std::set<BinaryOpType> binary;
  std::set<TernaryOpType> ternary;
  std::set<ReductionOpType> reductions;
  std::set<RandomDistribution> dists;
  std::set<DataType> tensor_dtypes, scalar_dtypes;
  for (const std::string& file : corpusFiles()) {
    PythonDefinition d = parsePythonFile((corpusDir() / file).string());
    for (const Expr* e : d.fusion->exprs()) {
      ops.insert(e->op());
      if (auto* u = std::get_if<UnaryOpType>(&e->attrs())) unary.insert(*u);
      if (auto* b = std::get_if<BinaryOpType>(&e->attrs())) binary.insert(*b);
      if (auto* t = std::get_if<TernaryOpType>(&e->attrs())) ternary.insert(*t);
      if (auto* r = std::get_if<ReductionAttr>(&e->attrs())) reductions.insert(r->op);
      if (auto* r = std::get_if<RandAttr>(&e->attrs())) dists.insert(r->dist);
      for (const Val* v : e->inputs())
        (v->isTensor() ? tensor_dtypes : scalar_dtypes).insert(v->dtype());
    }
  }
  for (int i = 0; i <= static_cast<int>(OpType::TopK); ++i)
    EXPECT_TRUE(ops.count(static_cast<OpType>(i)))
        << "no corpus file uses op " << toString(static_cast<OpType>(i));
  for (UnaryOpType t : allUnaryOpTypes())
    EXPECT_TRUE(unary.count(t)) << "unused unary op " << toString(t);
  for (BinaryOpType t : allBinaryOpTypes())
    EXPECT_TRUE(binary.count(t)) << "unused binary op " << toString(t);
  for (TernaryOpType t : allTernaryOpTypes())
    EXPECT_TRUE(ternary.count(t)) << "unused ternary op " << toString(t);
  EXPECT_EQ(reductions.size(), 4u);
  EXPECT_EQ(dists.size(), 2u);
  for (DataType t : kAllDataTypes) {
    EXPECT_TRUE(tensor_dtypes.count(t)) << "no tensor operand of dtype " << pythonName(t);
    EXPECT_TRUE(scalar_dtypes.count(t)) << "no scalar operand of dtype " << pythonName(t);
  }
}

}  // namespace
}  // namespace fusebox
