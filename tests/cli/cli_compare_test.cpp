// `fusebox compare` and `fusebox bench` on the host backend: Google
// Benchmark JSON with every variant and sample, a deliberately slower
// variant (sleepy_host) reported slower, identical variants no different,
// the segments and params hashes each variant chose, and bad variants and
// --set settings refused with the place named.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;
using testing::TempDir;

const std::string kExe = FUSEBOX_EXE;
const std::string kScript = std::string(FUSEBOX_SOURCE_DIR) + "/tests/sdk/traced_identities.py";
// Small inputs: a run takes well under a millisecond on the host backend.
const std::string kSmall = " --input T0=16x64:bfloat16 --input T1=16x64:int32";

// A config with the test schedulers beside the built-in ones, tried in
// `order` (names, quoted), written to `dir`; returns its path.
std::string testSchedulers(const TempDir& dir, const std::string& order) {
  const std::string name =
      "schedulers_" + std::to_string(std::hash<std::string>()(order)) + ".toml";
  return dir
      .write(name, fmt::format("[plugins]\npaths = [\"@builtin\", \"{}\"]\n[schedulers]\n"
                               "order = [{}]\n",
                               FUSEBOX_TEST_SCHEDULERS_DIR, order))
      .string();
}

nlohmann::json readJson(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

std::vector<const nlohmann::json*> iterations(const nlohmann::json& doc, const std::string& name) {
  std::vector<const nlohmann::json*> out;
  for (const auto& b : doc["benchmarks"])
    if (b["name"] == name && b["run_type"] == "iteration") out.push_back(&b);
  return out;
}

TEST(CliCompare, TwoSchedulerOptionsGiveJsonWithBothVariantsAndTheirParams) {
  TempDir dir;
  const fs::path json = dir.path() / "ab.json";
  // 1024 elements: the heuristic's own unroll is 1.
  auto r = runCommand(kExe + " compare " + kScript + kSmall +
                      " --variant base= --variant 'unroll4=--set schedulers.pointwise.unroll=4'"
                      " --repetitions 9 --json " +
                      json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("every variant validates against the evaluator"));
  EXPECT_THAT(r.output, HasSubstr("unroll4 vs base:"));
  const nlohmann::json doc = readJson(json);
  EXPECT_EQ(doc["context"]["fusebox_command"], "compare");
  ASSERT_EQ(doc["context"]["variants"].size(), 2u);
  const auto base = iterations(doc, "traced_identities.py/base");
  const auto other = iterations(doc, "traced_identities.py/unroll4");
  ASSERT_EQ(base.size(), 9u);
  ASSERT_EQ(other.size(), 9u);
  for (const auto* b : base) EXPECT_GT((*b)["real_time"].get<double>(), 0);
  EXPECT_EQ((*base[0])["time_unit"], "us");
  // The one segment is pointwise in both, with different decisions (unroll).
  const auto& sa = (*base[0])["segments"];
  const auto& sb = (*other[0])["segments"];
  ASSERT_EQ(sa.size(), 1u);
  ASSERT_EQ(sb.size(), 1u);
  EXPECT_EQ(sa[0]["scheduler"], "pointwise");
  EXPECT_EQ(sb[0]["scheduler"], "pointwise");
  EXPECT_NE(sa[0]["params_hash"], sb[0]["params_hash"]);
  EXPECT_EQ((*other[0])["vs_baseline"]["same_decision"], false);
  EXPECT_EQ((*other[0])["vs_baseline"]["baseline"], "base");
}

TEST(CliCompare, ASchedulerThatSleepsIsSlowerWithASmallPValue) {
  TempDir dir;
  const fs::path json = dir.path() / "sleep.json";
  auto r = runCommand(kExe + " compare " + kScript + kSmall + " --variant 'fast=--config " +
                      testSchedulers(dir, "\"accept_all_host\"") + "' --variant 'sleepy=--config " +
                      testSchedulers(dir, "\"sleepy_host\"") +
                      " --set schedulers.sleepy_host.sleep_us=2000' --repetitions 9"
                      " --min-sample-ms 0 --json " +
                      json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("sleepy vs fast: 0 faster, 1 slower, 0 no difference"));
  const nlohmann::json doc = readJson(json);
  const auto sleepy = iterations(doc, "traced_identities.py/sleepy");
  ASSERT_EQ(sleepy.size(), 9u);
  const auto& vs = (*sleepy[0])["vs_baseline"];
  EXPECT_EQ(vs["verdict"], "slower");
  EXPECT_LT(vs["p_value"].get<double>(), 0.05);
  EXPECT_GT(vs["ratio_low"].get<double>(), 1.0);
  EXPECT_EQ((*sleepy[0])["segments"][0]["scheduler"], "sleepy_host");
}

TEST(CliCompare, IdenticalVariantsShowNoDifferenceAndTheSameDecision) {
  // alpha 0.001: two samples of one distribution differ at that level once
  // in a thousand runs.
  auto r = runCommand(kExe + " compare " + kScript + kSmall +
                      " --variant one= --variant two= --repetitions 12 --alpha 0.001");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("two vs one: 0 faster, 0 slower, 1 no difference"));
  EXPECT_THAT(r.output, HasSubstr("(same as one)"));
}

TEST(CliCompare, AWrongVariantIsReportedAsDisagreeing) {
  TempDir dir;
  auto r = runCommand(kExe + " compare " + kScript + kSmall +
                      " --variant right= --variant 'wrong=--config " +
                      testSchedulers(dir, "\"wrong_by_one\"") + "' --repetitions 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("outputs: wrong output 0"));
  EXPECT_THAT(r.output, HasSubstr("FAIL"));
}

TEST(CliCompare, RefusesBadVariantsAndSettings) {
  auto one = runCommand(kExe + " compare " + kScript + " --variant a=");
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_THAT(one.output, HasSubstr("compare needs two variants or more"));
  auto flag = runCommand(kExe + " compare " + kScript + " --variant a= --variant 'b=--bogus 1'");
  EXPECT_EQ(flag.exit_code, 1);
  EXPECT_THAT(flag.output, HasSubstr("--variant 'b=--bogus 1'"));
  auto twice = runCommand(kExe + " compare " + kScript + " --variant a= --variant a=");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_THAT(twice.output, HasSubstr("the name 'a' is taken"));
  auto range = runCommand(kExe + " compare " + kScript + kSmall +
                          " --variant a= --variant 'b=--set schedulers.pointwise.unroll=99'");
  EXPECT_EQ(range.exit_code, 1);
  EXPECT_THAT(range.output, HasSubstr("--set:1:"));
  EXPECT_THAT(range.output, HasSubstr("option 'unroll' must be in [0, 16]"));
  auto effect =
      runCommand(kExe + " compare " + kScript + " --variant a= --variant b= --min-effect 2");
  EXPECT_EQ(effect.exit_code, 1);
  EXPECT_THAT(effect.output, HasSubstr("--min-effect 2: expected a fraction in [0, 1)"));
  auto missing = runCommand(kExe + " compare /nonexistent.py --variant a= --variant b=");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("/nonexistent.py"));
}

TEST(CliBench, AFolderOfScriptsGivesOneBenchmarkEach) {
  TempDir dir;
  fs::copy_file(kScript, dir.path() / "a.py");
  fs::copy_file(kScript, dir.path() / "b.py");
  dir.write("notes.txt", "not a script");
  const fs::path json = dir.path() / "suite.json";
  auto r = runCommand(kExe + " bench " + dir.path().string() + kSmall + " --repetitions 3 --json " +
                      json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bench: 2 scripts, 3 repetitions"));
  const nlohmann::json doc = readJson(json);
  EXPECT_EQ(doc["context"]["fusebox_command"], "bench");
  EXPECT_EQ(iterations(doc, "a.py").size(), 3u);
  EXPECT_EQ(iterations(doc, "b.py").size(), 3u);
  EXPECT_EQ(iterations(doc, "notes.txt").size(), 0u);
}

TEST(CliBench, ABaselineFromAnotherRunGivesAVerdictPerScript) {
  TempDir dir;
  fs::copy_file(kScript, dir.path() / "a.py");
  const std::string a = (dir.path() / "a.py").string();
  const std::string fast = testSchedulers(dir, "\"accept_all_host\"");
  const std::string sleepy =
      testSchedulers(dir, "\"sleepy_host\"") + " --set schedulers.sleepy_host.sleep_us=2000";
  const std::string common = kSmall + " --repetitions 9 --min-sample-ms 0";
  // Two baseline files (runs of the other build, interleaved): pooled.
  const fs::path old1 = dir.path() / "old1.json", old2 = dir.path() / "old2.json";
  for (const fs::path& file : {old1, old2}) {
    auto r = runCommand(kExe + " bench " + a + " --config " + fast + common + " --json " +
                        file.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  fs::copy_file(kScript, dir.path() / "b.py");  // not in the baseline
  const fs::path json = dir.path() / "new.json";
  auto r = runCommand(kExe + " bench " + dir.path().string() + " --config " + sleepy + common +
                      " --baseline " + old1.string() + " --baseline " + old2.string() + " --json " +
                      json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("vs baseline [95% CI]"));
  EXPECT_THAT(r.output, HasSubstr("(not in the baseline)"));
  EXPECT_THAT(r.output, HasSubstr("vs baseline: 0 faster, 1 slower, 0 no difference, 1 not in the "
                                  "baseline"));
  const nlohmann::json doc = readJson(json);
  const auto runs = iterations(doc, "a.py");
  ASSERT_EQ(runs.size(), 9u);
  EXPECT_EQ((*runs[0])["vs_baseline"]["verdict"], "slower");
  EXPECT_EQ((*runs[0])["vs_baseline"]["baseline_samples"], 18);
  EXPECT_GT((*runs[0])["vs_baseline"]["ratio_low"].get<double>(), 1.0);
}

TEST(CliBench, ABaselineThatIsNotBenchmarkJsonIsNamed) {
  TempDir dir;
  const std::string bench = kExe + " bench " + kScript + kSmall + " --repetitions 2 --baseline ";
  auto missing = runCommand(bench + (dir.path() / "none.json").string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("none.json: cannot open the file"));
  auto text = runCommand(bench + dir.write("text.json", "not json").string());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_THAT(text.output, HasSubstr("text.json: not benchmark JSON"));
  auto shape = runCommand(bench + dir.write("shape.json", "{\"runs\": []}").string());
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_THAT(shape.output, HasSubstr("shape.json: expected Google Benchmark JSON"));
  auto unit = runCommand(bench + dir.write("unit.json",
                                           "{\"benchmarks\": [{\"name\": \"x\", \"run_type\": "
                                           "\"iteration\", \"real_time\": 3, \"time_unit\": "
                                           "\"weeks\"}]}")
                                     .string());
  EXPECT_EQ(unit.exit_code, 1);
  EXPECT_THAT(unit.output, HasSubstr("unit.json: benchmarks[0]: time_unit 'weeks'"));
  auto negative =
      runCommand(bench + dir.write("neg.json",
                                   "{\"benchmarks\": [{\"name\": \"x\", \"real_time\": -1, "
                                   "\"time_unit\": \"us\"}]}")
                             .string());
  EXPECT_EQ(negative.exit_code, 1);
  EXPECT_THAT(negative.output,
              HasSubstr("neg.json: benchmarks[0]: real_time -1 is not a positive"));
}

TEST(CliSet, OverridesASchedulerOptionAndNamesItsPlaceWhenWrong) {
  auto r = runCommand(kExe + " run " + kScript + kSmall +
                      " --no-ir --set schedulers.pointwise.unroll=3 --dump scheduler_params");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unroll: 3"));
  auto threads =
      runCommand(kExe + " run " + kScript + kSmall + " --set schedulers.pointwise.threads=100");
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_THAT(threads.output, HasSubstr("option 'threads' must be a multiple of 32"));
  // TOML's spacing around '=' and '.' names the same key.
  auto spaced = runCommand(kExe + " run " + kScript + kSmall +
                           " --no-ir --set 'schedulers . disabled = [\"pointwise\"]'");
  ASSERT_EQ(spaced.exit_code, 0) << spaced.output;
  EXPECT_THAT(spaced.output, HasSubstr("group 0 by expr_eval"));
  auto table = runCommand(kExe + " run " + kScript + " --set widgets.x=1");
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_THAT(table.output, HasSubstr("--set:1:1: unknown table or key 'widgets'"));
  auto form = runCommand(kExe + " run " + kScript + " --set schedulers.pointwise.unroll");
  EXPECT_EQ(form.exit_code, 1);
  EXPECT_THAT(form.output, HasSubstr("expected KEY=VALUE"));
  // A bare word is a string: the option's type check names it.
  auto word = runCommand(kExe + " run " + kScript + " --set schedulers.pointwise.unroll=four");
  EXPECT_EQ(word.exit_code, 1);
  EXPECT_THAT(word.output, HasSubstr("unroll"));
  EXPECT_THAT(word.output, Not(HasSubstr("internal error")));
}

}  // namespace
}  // namespace fusebox
