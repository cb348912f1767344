// Running the pipeline: IR dumps after passes, the timing table, verification,
// and plugins that throw, lie or corrupt the fusion.
#include <fusebox/ir/ops.h>
#include <fusebox/ir/printer.h>
#include <fusebox/pass_pipeline.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "plugins/pipeline_test_util.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace pipeline_testing;
using Strings = std::vector<std::string>;

Options dumpOptions(Strings print_after, bool time_passes = false, bool verify = false) {
  Options o;
  SourceLocation test{"test", 0, 0};
  o.apply("dump", {{"print_after", {print_after, test}}, {"time_passes", {time_passes, test}}});
  o.apply("runtime", {{"verify_passes", {verify, test}}});
  return o;
}

struct RunResult {
  std::string out;
  std::string diagnostics;
  PipelineReport report;
  std::unique_ptr<Fusion> fusion;
};

RunResult runOn(const std::string& config_text, std::unique_ptr<Fusion> fusion,
                const Options& options) {
  PassPipeline pipeline = buildPipeline(config_text);
  std::ostringstream out, diag;
  RunResult r;
  r.report = pipeline.run(fusion, options, out, &diag);
  r.out = out.str();
  r.diagnostics = diag.str();
  r.fusion = std::move(fusion);
  return r;
}

// The section headers of an IR dump, in order.
Strings dumpHeaders(const std::string& out) {
  Strings headers;
  std::regex header("=== IR after pass '([a-z_]+)' \\((changed|unchanged)\\) ===");
  for (std::sregex_iterator it(out.begin(), out.end(), header), end; it != end; ++it)
    headers.push_back((*it)[1].str() + ":" + (*it)[2].str());
  return headers;
}

std::string opsOf(const Fusion& f) {
  std::string s;
  for (Expr* e : f.tensorExprs()) s += (s.empty() ? "" : " ") + e->opName();
  return s;
}

TEST(PipelineRun, DefaultPipelineRemovesTheUpDownCastAroundBroadcastSqueeze) {
  RunResult r = runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({}));
  // broadcast/squeeze cancel once the cast moves out; bf16 -> float -> bf16 folds.
  EXPECT_EQ(opsOf(*r.fusion), "set");
  EXPECT_TRUE(r.report.changed());
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(PipelineRun, PrintAfterAllShowsEveryPassInOrder) {
  RunResult r = runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({"all"}));
  EXPECT_EQ(
      dumpHeaders(r.out),
      (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed", "consecutive_cast:changed",
               "gather_before_pointwise:unchanged", "allocation_order_inference:unchanged"}));
  // The dump after remove_bcast_squeeze still has the two casts; the last has none.
  auto after_rbs = r.out.find("remove_bcast_squeeze' (changed)");
  auto after_cc = r.out.find("consecutive_cast' (changed)");
  std::string rbs_dump = r.out.substr(after_rbs, after_cc - after_rbs);
  EXPECT_THAT(rbs_dump, HasSubstr("cast("));
  EXPECT_THAT(rbs_dump, Not(HasSubstr("broadcast(")));
  EXPECT_THAT(r.out.substr(after_cc), Not(HasSubstr("cast(")));
}

TEST(PipelineRun, PrintAfterChangedAndNamed) {
  RunResult changed = runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({"changed"}));
  EXPECT_EQ(dumpHeaders(changed.out),
            (Strings{"remove_bcast_squeeze:changed", "consecutive_cast:changed"}));
  RunResult named = runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({"remove_empty"}));
  EXPECT_EQ(dumpHeaders(named.out), Strings{"remove_empty:unchanged"});
}

TEST(PipelineRun, PrintAfterAnUnknownPassIsAnError) {
  try {
    runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({"remove_emtpy"}));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("print_after: unknown pass 'remove_emtpy'; expected \"all\", "
                                    "\"changed\" or a pass name: "));
    EXPECT_THAT(e.what(), HasSubstr("remove_empty"));
  }
}

TEST(PipelineRun, PrintAfterADisabledPassWarns) {
  RunResult r = runOn(withPaths({}) +
                          "[passes]\norder = [\"remove_empty\", \"consecutive_cast\"]\n"
                          "disabled = [\"consecutive_cast\"]\n",
                      castSqueezeChain(), dumpOptions({"consecutive_cast", "remove_empty"}));
  EXPECT_EQ(dumpHeaders(r.out), Strings{"remove_empty:unchanged"});
  EXPECT_THAT(r.diagnostics,
              HasSubstr("warning: print_after names pass 'consecutive_cast', which does not run "
                        "(disabled, or not in [passes] order): nothing is printed after it"));
  EXPECT_THAT(r.diagnostics, Not(HasSubstr("'remove_empty'")));
}

TEST(PipelineRun, TimePassesPrintsATable) {
  RunResult r = runOn(defaultConfigText(), castSqueezeChain(), dumpOptions({}, true));
  EXPECT_THAT(r.out, HasSubstr("time (ms)"));
  for (const char* row : {"remove_empty ", "remove_bcast_squeeze ", "consecutive_cast ",
                          "gather_before_pointwise ", "allocation_order_inference ", "total "})
    EXPECT_THAT(r.out, HasSubstr(row));
  EXPECT_TRUE(std::regex_search(r.out, std::regex("consecutive_cast +[0-9]+\\.[0-9]{3}  yes")))
      << r.out;
  ASSERT_EQ(r.report.passes.size(), 5u);
  for (const auto& p : r.report.passes) EXPECT_GE(p.milliseconds, 0.0);
}

TEST(PipelineRun, DisablingAPassInTomlChangesPrintAfterAll) {
  const std::string order =
      "[passes]\norder = [\"remove_empty\", \"remove_bcast_squeeze\", \"consecutive_cast\"]\n";
  RunResult on = runOn(withPaths({}) + order, castSqueezeChain(), dumpOptions({"all"}));
  RunResult off = runOn(withPaths({}) + order + "disabled = [\"consecutive_cast\"]\n",
                        castSqueezeChain(), dumpOptions({"all"}));
  EXPECT_EQ(dumpHeaders(on.out), (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed",
                                          "consecutive_cast:changed"}));
  EXPECT_EQ(dumpHeaders(off.out),
            (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed"}));
  EXPECT_EQ(opsOf(*on.fusion), "set");
  EXPECT_EQ(opsOf(*off.fusion), "cast cast");
  EXPECT_NE(on.out, off.out);
}

// A config file without [passes] order keeps the default order and
// `disabled` only removes from it (issue 12: the passes ran in alphabetical
// order, consecutive_cast before remove_bcast_squeeze, and nvFuser issue
// 3635's casts stayed).
TEST(PipelineRun, AFileWithoutAnOrderKeepsTheDefaultOrder) {
  testing::TempDir dir;
  Config config = loadConfigFile(
      dir.write("mine.toml", withPaths({}) + "[passes]\ndisabled = [\"remove_empty\"]\n"));
  EXPECT_FALSE(config.pass_order.has_value());
  PluginRegistry registry;
  registry.discover(config.plugin_paths);
  PassPipeline pipeline = PassPipeline::build(config, registry);
  std::unique_ptr<Fusion> fusion = castSqueezeChain();
  std::ostringstream out, diag;
  pipeline.run(fusion, dumpOptions({"all"}), out, &diag);
  EXPECT_EQ(dumpHeaders(out.str()),
            (Strings{"remove_bcast_squeeze:changed", "consecutive_cast:changed",
                     "gather_before_pointwise:unchanged", "allocation_order_inference:unchanged"}));
  EXPECT_EQ(opsOf(*fusion), "set");
}

TEST(PipelineRun, ReorderingPassesChangesPrintAfterAll) {
  RunResult squeeze_first =
      runOn(withPaths({}) + "[passes]\norder = [\"remove_bcast_squeeze\", \"consecutive_cast\"]\n",
            castSqueezeChain(), dumpOptions({"all"}));
  RunResult cast_first =
      runOn(withPaths({}) + "[passes]\norder = [\"consecutive_cast\", \"remove_bcast_squeeze\"]\n",
            castSqueezeChain(), dumpOptions({"all"}));
  EXPECT_EQ(dumpHeaders(squeeze_first.out),
            (Strings{"remove_bcast_squeeze:changed", "consecutive_cast:changed"}));
  // The casts are not adjacent until the broadcast/squeeze pair is gone.
  EXPECT_EQ(dumpHeaders(cast_first.out),
            (Strings{"consecutive_cast:unchanged", "remove_bcast_squeeze:changed"}));
  EXPECT_EQ(opsOf(*squeeze_first.fusion), "set");
  EXPECT_EQ(opsOf(*cast_first.fusion), "cast cast");
}

TEST(PipelineRun, SwitchingAPassOptionOffInTomlChangesTheResult) {
  RunResult r = runOn(withPaths({}) +
                          "[passes]\norder = [\"remove_bcast_squeeze\"]\n"
                          "[passes.remove_bcast_squeeze]\nswap_unary_ops = false\n",
                      castSqueezeChain(), dumpOptions({"all"}));
  EXPECT_EQ(dumpHeaders(r.out), Strings{"remove_bcast_squeeze:unchanged"});
  EXPECT_EQ(opsOf(*r.fusion), "broadcast cast squeeze cast");
}

TEST(PipelineRun, ThrowingPassIsReportedRolledBackAndThePipelineGoesOn) {
  RunResult r = runOn(withPaths({fixture("misbehaving")}) +
                          "[passes]\norder = [\"remove_bcast_squeeze\", \"throwing_pass\", "
                          "\"consecutive_cast\"]\n",
                      castSqueezeChain(), dumpOptions({}));
  EXPECT_THAT(r.diagnostics, HasSubstr("warning: pass 'throwing_pass' ("));
  EXPECT_THAT(r.diagnostics,
              HasSubstr("libthrowing_pass.so) failed: the throwing pass always "
                        "throws; its changes were discarded and the pipeline goes on"));
  ASSERT_EQ(r.report.passes.size(), 3u);
  EXPECT_EQ(r.report.passes[1].status, PassRunRecord::Status::Failed);
  EXPECT_EQ(r.report.passes[2].status, PassRunRecord::Status::Changed);
  // The neg() it added before throwing is gone; the next pass still ran.
  EXPECT_EQ(opsOf(*r.fusion), "set");
  // One more diagnostic: bad_factory, in the same folder, fails to construct.
  ASSERT_EQ(r.report.diagnostics.size(), 2u);
  EXPECT_THAT(r.report.diagnostics[0], HasSubstr("plugin 'bad_factory'"));
  EXPECT_THAT(r.report.diagnostics[1], HasSubstr("pass 'throwing_pass'"));
}

TEST(PipelineRun, FailingFactoryLeavesThePassOutWithADiagnostic) {
  PassPipeline p = buildPipeline(withPaths({fixture("misbehaving")}) +
                                 "[passes]\norder = [\"bad_factory\", \"remove_empty\"]\n");
  EXPECT_EQ(p.names(), Strings{"remove_empty"});
  ASSERT_EQ(p.setupDiagnostics().size(), 1u);
  EXPECT_THAT(p.setupDiagnostics()[0], HasSubstr("plugin 'bad_factory' ("));
  EXPECT_THAT(
      p.setupDiagnostics()[0],
      HasSubstr("failed in its factory: cannot construct bad_factory; the pass is left out"));
  auto fusion = castSqueezeChain();
  std::ostringstream out;
  p.run(fusion, dumpOptions({}), out);
  EXPECT_THAT(out.str(), HasSubstr("warning: plugin 'bad_factory'"));
}

TEST(PipelineRun, VerifyModeCatchesAPassThatHidesItsChange) {
  const std::string config =
      withPaths({fixture("misbehaving")}) + "[passes]\norder = [\"lying_pass\"]\n";
  RunResult checked = runOn(config, castSqueezeChain(), dumpOptions({"changed"}, false, true));
  EXPECT_THAT(checked.diagnostics,
              HasSubstr("pass 'lying_pass' (" + fixture("misbehaving") +
                        "/liblying_pass.so) reported no change, but the fusion changed "
                        "(structural hash "));
  EXPECT_EQ(checked.report.passes.at(0).status, PassRunRecord::Status::Changed);
  EXPECT_EQ(dumpHeaders(checked.out), Strings{"lying_pass:changed"});

  RunResult unchecked = runOn(config, castSqueezeChain(), dumpOptions({"changed"}, false, false));
  EXPECT_THAT(unchecked.diagnostics, Not(HasSubstr("reported no change")));
  EXPECT_EQ(unchecked.report.passes.at(0).status, PassRunRecord::Status::Unchanged);
}

TEST(PipelineRun, VerifyModeRejectsAnInvalidResult) {
  const std::string config =
      withPaths({fixture("misbehaving")}) + "[passes]\norder = [\"corrupting_pass\"]\n";
  RunResult checked = runOn(config, castSqueezeChain(), dumpOptions({}, false, true));
  EXPECT_THAT(checked.diagnostics, HasSubstr("pass 'corrupting_pass' ("));
  EXPECT_THAT(checked.diagnostics, HasSubstr("failed: it left an invalid fusion:"));
  EXPECT_THAT(checked.diagnostics, HasSubstr("which is neither an input nor computed"));
  EXPECT_EQ(checked.fusion->outputs().size(), 1u);  // rolled back

  RunResult unchecked = runOn(config, castSqueezeChain(), dumpOptions({}, false, false));
  EXPECT_EQ(unchecked.fusion->outputs().size(), 2u);  // nothing looked
}

}  // namespace
}  // namespace fusebox
