// The differential checker: a right pipeline passes, a planted wrong scheduler
// (tests/scheduler_fixtures/wrong_by_one) is caught, aliased inputs are compared
// with the evaluator's run on a copy.
#include "differential_check.h"
#include "generator.h"
#include "parser_fuzz.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>

namespace fusebox::fuzz {
namespace {

const char* kScript = R"(# fuzz-exact: T1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.mul(T0, 2.0)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)
    fd.add_output(T2)

inputs = [
    torch.randn((3, 5), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
)";

TEST(FuzzChecker, RightPipelinePasses) {
  DifferentialChecker checker(CheckOptions{});
  CheckResult r = checker.check(kScript, BackendChoice::Eval);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.category << ": " << r.message;
}

TEST(FuzzChecker, CatchesAPlantedWrongScheduler) {
  auto dir = std::filesystem::temp_directory_path() / "fusebox_fuzz_checker_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "wrong.toml")
      << "[plugins]\npaths = [\"@builtin\", \"" << FUSEBOX_TEST_SCHEDULERS_DIR << "\"]\n"
      << "[schedulers]\norder = [\"wrong_by_one\"]\n";
  CheckOptions o;
  o.config_file = (dir / "wrong.toml").string();
  DifferentialChecker checker(o);
  CheckResult r = checker.check(kScript, BackendChoice::Eval);
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.category, "exact-mismatch") << r.message;
  EXPECT_NE(r.message.find("output T1"), std::string::npos) << r.message;
}

TEST(FuzzChecker, InvalidCasesAreNotFailures) {
  DifferentialChecker checker(CheckOptions{});
  std::string bad = kScript;
  bad.replace(bad.find("dims=[1]"), 8, "dims=[7]");
  EXPECT_EQ(checker.check(bad, BackendChoice::Eval).verdict, Verdict::Invalid);
}

TEST(FuzzChecker, GeneratedCasesRunOnTheEvalBackend) {
  DifferentialChecker checker(CheckOptions{});
  int checked = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    GeneratorOptions g;
    // (A hostile-index case may be invalid by design: a test below.)
    g.excluded = {"alias", "float-scalar", "squeeze-expanded", "hostile-index"};
    GeneratedCase c = generateCase(seed, g);
    if (!c.generator_failure.empty()) continue;  // met a bug while being made
    CheckResult r = checker.check(renderScript(c.fuzz_case), BackendChoice::Eval);
    EXPECT_NE(r.verdict, Verdict::Invalid) << r.message << "\n" << renderScript(c.fuzz_case);
    checked += r.verdict != Verdict::Invalid;
  }
  EXPECT_GE(checked, 15);
}

// A case ending in an indexing op at data-made indices is valid or invalid
// (both sides refuse it alike), never a failure, and the generator makes
// both kinds.
TEST(FuzzChecker, HostileIndexingIsRefusedByBothSidesOrRuns) {
  DifferentialChecker checker(CheckOptions{});
  int hostile = 0, invalid = 0, valid = 0;
  for (uint64_t seed = 0; seed < 400 && (invalid < 3 || valid < 3); ++seed) {
    GeneratorOptions g;
    g.excluded = {"alias", "float-scalar", "squeeze-expanded"};
    g.hostile_index_probability = 1.0;
    g.max_statements = 6;
    GeneratedCase c = generateCase(seed, g);
    if (!c.generator_failure.empty()) continue;
    if (std::find(c.features.begin(), c.features.end(), "hostile-index") == c.features.end())
      continue;
    ++hostile;
    CheckResult r = checker.check(renderScript(c.fuzz_case), BackendChoice::Eval);
    EXPECT_NE(r.verdict, Verdict::Fail) << r.category << ": " << r.message << "\n"
                                        << renderScript(c.fuzz_case);
    invalid += r.verdict == Verdict::Invalid;
    valid += r.verdict == Verdict::Pass;
  }
  EXPECT_GE(invalid, 3) << "of " << hostile << " hostile cases";
  EXPECT_GE(valid, 3) << "of " << hostile << " hostile cases";
}

// Messages of one bug compare equal once numbers, names, shapes and kernel
// hashes are blurred.
TEST(FuzzChecker, SignaturesBlurWhatVariesBetweenCases) {
  EXPECT_EQ(blurMessage("T12_g dim 3 has size 5"), "T#_g dim # has size #");
  EXPECT_EQ(blurMessage("T4_g = slice(T2_g, 0, -1, i3): sizes [2, 3]"),
            blurMessage("T9_g = slice(T1_g, 7, 2): sizes [0]"));
  EXPECT_EQ(blurMessage("kernel fusebox_pointwise_00009054aea89a76 does not compile"),
            blurMessage("kernel fusebox_pointwise_0000430280ae0f6f does not compile"));
  EXPECT_EQ(blurMessage("unexpected character '\x03'"), blurMessage("unexpected character 'x'"));
  EXPECT_NE(blurMessage("operand 1 has size 4"), blurMessage("cannot reshape to 4 elements"));
}

TEST(FuzzParsers, AcceptsTheCorpusAndSurvivesGarbage) {
  ParserCorpus corpus =
      loadParserCorpus({FUSEBOX_SOURCE_DIR "/tests/data/corpus", FUSEBOX_SOURCE_DIR "/config"});
  ASSERT_FALSE(corpus.python.empty());
  ASSERT_FALSE(corpus.toml.empty());
  for (const auto& text : corpus.python)
    EXPECT_EQ(checkParserInput(ParserTarget::Python, text), std::nullopt);
  for (const auto& text : corpus.toml)
    EXPECT_EQ(checkParserInput(ParserTarget::Toml, text), std::nullopt);
  EXPECT_EQ(checkParserInput(ParserTarget::Python, "def (((\n"), std::nullopt);
  EXPECT_EQ(checkParserInput(ParserTarget::Toml, "[[[\n"), std::nullopt);
  Mutation a = makeMutation(corpus, 5, 17), b = makeMutation(corpus, 5, 17);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.how, b.how);
}

}  // namespace
}  // namespace fusebox::fuzz
