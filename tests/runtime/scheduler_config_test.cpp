// The [schedulers] table and the runtime's dump options: what a config
// selects, and each kind of bad input with its file:line:col.
#include <fusebox/options.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;
using Strings = std::vector<std::string>;

template <class F>
std::string userErrorOf(F&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

SchedulerSetup build(const std::string& text, const std::vector<NamedSetting>& disabled = {}) {
  return buildSchedulers(parseConfig(text, "s.toml"), builtinPlugins(), disabled);
}

TEST(SchedulerConfig, TheDefaultOrderEndsWithExprEval) {
  Config config = loadConfigFile(defaultConfigFile());
  ASSERT_TRUE(config.scheduler_order.has_value());
  SchedulerSetup setup = buildSchedulers(config, builtinPlugins());
  EXPECT_EQ(setup.names(),
            (Strings{"no_op", "transpose", "pointwise", "reduction", "inner_persistent",
                     "outer_persistent", "inner_outer_persistent", "scan", "expr_eval"}));
  EXPECT_TRUE(setup.diagnostics.empty());
  EXPECT_EQ(setup.entries.back().scheduler->name(), "expr_eval");
}

TEST(SchedulerConfig, OrderDisabledAndTheCommandLine) {
  EXPECT_EQ(build("[schedulers]\norder = [\"expr_eval\", \"no_op\"]\n").names(),
            (Strings{"expr_eval", "no_op"}));
  EXPECT_EQ(
      build("[schedulers]\norder = [\"no_op\", \"expr_eval\"]\ndisabled = [\"no_op\"]\n").names(),
      (Strings{"expr_eval"}));
  EXPECT_EQ(build("[schedulers]\norder = [\"no_op\", \"expr_eval\"]\n",
                  {{"expr_eval", {"--disable-scheduler", 0, 0}}})
                .names(),
            (Strings{"no_op"}));
}

TEST(SchedulerConfig, WithoutAnOrderEverySchedulerFoundTakesPartInDiscoveryOrder) {
  Strings found;
  for (const auto& p : builtinPlugins().plugins(PluginKind::Scheduler)) found.push_back(p.name);
  EXPECT_EQ(build("").names(), found);
  EXPECT_THAT(found, ::testing::Contains("expr_eval"));
}

// A config file without [schedulers] order keeps the default order (issue
// 12: discovery order put expr_eval, which accepts everything, first).
TEST(SchedulerConfig, AFileWithoutAnOrderKeepsTheDefaultOrder) {
  testing::TempDir dir;
  Config config =
      loadConfigFile(dir.write("mine.toml", "[schedulers]\ndisabled = [\"reduction\"]\n"));
  EXPECT_FALSE(config.scheduler_order.has_value());
  EXPECT_EQ(buildSchedulers(config, builtinPlugins()).names(),
            (Strings{"no_op", "transpose", "pointwise", "inner_persistent", "outer_persistent",
                     "inner_outer_persistent", "scan", "expr_eval"}));
}

TEST(SchedulerConfig, UnknownNamesListTheKnownSchedulersAndWhereEachWasFound) {
  std::string message =
      userErrorOf([] { build("[schedulers]\norder = [\"no_op\", \"expr_evl\"]\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:19: [schedulers] order: unknown scheduler 'expr_evl'"));
  EXPECT_THAT(message, HasSubstr("known schedulers: "));
  EXPECT_THAT(message, HasSubstr("expr_eval (from "));
  EXPECT_THAT(message, HasSubstr("libfusebox_scheduler_expr_eval.so"));

  message = userErrorOf([] { build("[schedulers]\ndisabled = [\"nope\"]\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:13: [schedulers] disabled: unknown scheduler 'nope'"));

  message = userErrorOf([] { build("[schedulers.nope]\nx = 1\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:1:13: [schedulers.nope]: unknown scheduler 'nope'"));

  message = userErrorOf([] { build("", {{"nope", {"--disable-scheduler", 0, 0}}}); });
  EXPECT_THAT(message, HasSubstr("--disable-scheduler: unknown scheduler 'nope'"));
}

TEST(SchedulerConfig, ANameTwiceInTheOrder) {
  std::string message =
      userErrorOf([] { build("[schedulers]\norder = [\"no_op\", \"expr_eval\", \"no_op\"]\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:32: scheduler 'no_op' appears twice in [schedulers] "
                                 "order, at position 1 (s.toml:2:10) and position 3 "
                                 "(s.toml:2:32)"));
}

TEST(SchedulerConfig, WrongTypesAndUnknownKeys) {
  std::string message = userErrorOf([] { build("[schedulers]\norder = 3\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:9: [schedulers] order must be an array of strings, "
                                 "got an integer"));
  message = userErrorOf([] { build("[schedulers]\norder = [\"no_op\", 2]\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:19: [schedulers] order must be an array of strings, "
                                 "but this entry is an integer"));
  message = userErrorOf([] { build("schedulers = 3\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:1:14: 'schedulers' must be a table"));
  message = userErrorOf([] { build("[schedulers]\nenabled = [\"no_op\"]\n"); });
  EXPECT_THAT(message, HasSubstr("s.toml:2:1: unknown key 'enabled' in [schedulers]"));
  EXPECT_THAT(message, HasSubstr("[schedulers.<scheduler name>]"));
}

TEST(SchedulerConfig, EachSchedulerChecksItsOwnOptions) {
  // expr_eval declares no options, so any option is unknown, even when disabled.
  std::string message = userErrorOf([] {
    build("[schedulers]\ndisabled = [\"expr_eval\"]\n[schedulers.expr_eval]\nfast = true\n");
  });
  EXPECT_THAT(message, HasSubstr("s.toml:4:8"));
  EXPECT_THAT(message, HasSubstr("unknown option 'fast': scheduler 'expr_eval' takes no options"));
}

TEST(DumpOptions, TheRuntimeDumpsAreOptionsOfTheDumpTable) {
  Options o;
  EXPECT_FALSE(o.dumpSegmentedFusion());
  EXPECT_FALSE(o.dumpSegmenterLog());
  EXPECT_FALSE(o.dumpSchedulerParams());
  EXPECT_FALSE(o.dumpFusionIr());
  EXPECT_EQ(o.graphFile(), "");
  o.applyConfig(parseConfig("[dump]\nsegmented_fusion = true\ngraph_file = \"g.dot\"\n"));
  o.applyEnvironmentText("FUSEBOX_DUMP", "dump", "segmenter_log,scheduler_params=on");
  o.applyEnvironmentText("--dump", "dump", "fusion_ir,segmented_fusion=false");
  EXPECT_FALSE(o.dumpSegmentedFusion());  // the command line came last
  EXPECT_TRUE(o.dumpSegmenterLog());
  EXPECT_TRUE(o.dumpSchedulerParams());
  EXPECT_TRUE(o.dumpFusionIr());
  EXPECT_EQ(o.graphFile(), "g.dot");
}

TEST(DumpOptions, UnknownDumpNamesListTheValidOnes) {
  std::string message =
      userErrorOf([] { Options().applyEnvironmentText("--dump", "dump", "segmented_fusoin"); });
  EXPECT_THAT(message, HasSubstr("--dump: unknown option 'segmented_fusoin'; valid options: "));
  for (const char* name :
       {"segmented_fusion (bool)", "segmenter_log (bool)", "scheduler_params (bool)",
        "fusion_ir (bool)", "graph_file (string)", "print_after (array of strings)"})
    EXPECT_THAT(message, HasSubstr(name));
  message = userErrorOf([] { parseConfig("[dump]\nsegmenter_logs = true\n", "d.toml"); });
  EXPECT_THAT(message, HasSubstr("d.toml:2:"));
  EXPECT_THAT(message, HasSubstr("unknown option 'segmenter_logs' for [dump]"));
  message = userErrorOf([] { Options().applyEnvironmentText("--dump", "dump", "graph_file"); });
  EXPECT_THAT(message, HasSubstr("option 'graph_file' needs a value: graph_file=<string>"));
}

}  // namespace
}  // namespace fusebox
