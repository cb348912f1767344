// The pass pipeline built from TOML: names, options, required passes and
// ordering constraints, each bad kind with its message and place.
#include <fusebox/ir/ops.h>
#include <fusebox/pass_pipeline.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugins/pipeline_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace pipeline_testing;
using Strings = std::vector<std::string>;

TEST(PipelineBuild, DefaultConfigRunsTheFivePassesInOrder) {
  PassPipeline p = buildPipeline(defaultConfigText());
  EXPECT_EQ(p.names(), (Strings{"remove_empty", "remove_bcast_squeeze", "consecutive_cast",
                                "gather_before_pointwise", "allocation_order_inference"}));
  EXPECT_TRUE(p.setupDiagnostics().empty());
}

TEST(PipelineBuild, DisabledPassesAreLeftOut) {
  PassPipeline p = buildPipeline(withPaths({}) + R"(
[passes]
order = ["remove_empty", "consecutive_cast"]
disabled = ["consecutive_cast"]
)");
  EXPECT_EQ(p.names(), Strings{"remove_empty"});
  PassPipeline q =
      buildPipeline(withPaths({}) + "[passes]\norder = [\"remove_empty\", \"consecutive_cast\"]\n",
                    {{"remove_empty", {"--disable-pass", 0, 0}}});
  EXPECT_EQ(q.names(), Strings{"consecutive_cast"});
}

TEST(PipelineBuild, UnknownPassInOrderListsTheKnownOnesAndWhereEachWasFound) {
  std::string message =
      buildError(withPaths({}) + "[passes]\norder = [\"remove_empty\", \"remove_emtpy\"]\n");
  EXPECT_THAT(message,
              HasSubstr(kConfigName + ":4:26: [passes] order: unknown pass 'remove_emtpy'"));
  EXPECT_THAT(message, HasSubstr("known passes: "));
  EXPECT_THAT(message, HasSubstr("remove_empty (from " + pluginFile("remove_empty") + ")"));
  EXPECT_THAT(message, HasSubstr("consecutive_cast (from " + pluginFile("consecutive_cast") + ")"));
}

TEST(PipelineBuild, UnknownDisabledPassAndOptionTable) {
  EXPECT_THAT(buildError(withPaths({}) + "[passes]\ndisabled = [\"nope\"]\n"),
              HasSubstr(":4:13: [passes] disabled: unknown pass 'nope'; known passes: "));
  EXPECT_THAT(buildError(withPaths({}) + "[passes.nope]\nx = 1\n"),
              HasSubstr(":3:9: [passes.nope]: unknown pass 'nope'"));
  EXPECT_THAT(buildError(defaultConfigText(), {{"nope", {"--disable-pass", 0, 0}}}),
              HasSubstr("--disable-pass: unknown pass 'nope'"));
}

TEST(PipelineBuild, PassOptionsAreCheckedByThePass) {
  EXPECT_THAT(buildError(withPaths({}) + "[passes.remove_bcast_squeeze]\nswap_unary = false\n"),
              HasSubstr(":4:14: unknown option 'swap_unary' for pass 'remove_bcast_squeeze'; "
                        "valid options: swap_unary_ops (bool)"));
  EXPECT_THAT(buildError(withPaths({}) + "[passes.remove_bcast_squeeze]\nswap_unary_ops = 1\n"),
              HasSubstr(":4:18: option 'swap_unary_ops' of pass 'remove_bcast_squeeze' expects a "
                        "bool, got an integer (1)"));
  EXPECT_THAT(
      buildError(withPaths({}) + "[passes.remove_empty]\naggressive = true\n"),
      HasSubstr(":4:14: unknown option 'aggressive': pass 'remove_empty' takes no options"));
  // Even a disabled pass's table is checked.
  EXPECT_THAT(buildError(withPaths({}) + "[passes]\ndisabled = [\"remove_bcast_squeeze\"]\n"
                                         "[passes.remove_bcast_squeeze]\nswap = 1\n"),
              HasSubstr("unknown option 'swap'"));
}

TEST(PipelineBuild, APassMayCheckItsOwnOptionValues) {
  const std::string paths = withPaths({fixture("constraints")});
  EXPECT_THAT(buildError(paths + "[passes.early_pass]\nlimit = -1\n"),
              HasSubstr(":4:9: option 'limit' of pass 'early_pass' must be >= 0"));
  // An integer is a fine float; a string is a list of one.
  PassPipeline p = buildPipeline(paths + "[passes.early_pass]\nratio = 2\nnames = \"one\"\n");
  EXPECT_THAT(p.names(), ::testing::Contains("early_pass"));
}

TEST(PipelineBuild, RequiredPassCannotBeDisabled) {
  const std::string paths = withPaths({fixture("constraints")});
  EXPECT_THAT(buildError(paths + "[passes]\ndisabled = [\"early_pass\", \"required_pass\"]\n"),
              HasSubstr(":4:27: pass 'required_pass' is required and cannot be disabled"));
  EXPECT_THAT(buildError(paths, {{"required_pass", {"--disable-pass", 0, 0}}}),
              HasSubstr("--disable-pass: pass 'required_pass' is required and cannot be disabled"));
}

TEST(PipelineBuild, RequiredPassMustBeInTheOrder) {
  std::string message =
      buildError(withPaths({fixture("constraints")}) + "[passes]\norder = [\"remove_empty\"]\n");
  EXPECT_THAT(message, HasSubstr("pass 'required_pass'"));
  EXPECT_THAT(message, HasSubstr("librequired_pass.so) is required, but [passes] order does not "
                                 "list it"));
}

TEST(PipelineBuild, OrderBreakingARunsAfterConstraintIsExplained) {
  std::string message = buildError(withPaths({}) + R"([passes]
order = ["allocation_order_inference", "remove_empty"]
)");
  EXPECT_THAT(message,
              HasSubstr("pass order conflict: 'allocation_order_inference' must run after "
                        "'remove_empty' (a constraint declared by 'allocation_order_inference'), "
                        "but the order puts 'allocation_order_inference' at position 1 (" +
                        kConfigName + ":4:10) and 'remove_empty' at position 2 (" + kConfigName +
                        ":4:40)"));
}

TEST(PipelineBuild, OrderBreakingARunsBeforeConstraintIsExplained) {
  std::string message = buildError(withPaths({fixture("constraints")}) + R"([passes]
order = ["required_pass", "remove_empty", "early_pass"]
)");
  EXPECT_THAT(message, HasSubstr("pass order conflict: 'early_pass' must run before "
                                 "'remove_empty' (a constraint declared by 'early_pass'), but the "
                                 "order puts 'remove_empty' at position 2"));
  EXPECT_THAT(message, HasSubstr("and 'early_pass' at position 3"));
}

TEST(PipelineBuild, ConstraintsOnDisabledPassesDoNotApply) {
  PassPipeline p = buildPipeline(withPaths({}) + R"([passes]
order = ["allocation_order_inference", "remove_empty"]
disabled = ["remove_empty"]
)");
  EXPECT_EQ(p.names(), Strings{"allocation_order_inference"});
}

TEST(PipelineBuild, NameTwiceInTheOrder) {
  EXPECT_THAT(
      buildError(withPaths({}) + "[passes]\norder = [\"remove_empty\", \"remove_empty\"]\n"),
      HasSubstr("pass 'remove_empty' appears twice in the pass order, at position 1"));
}

TEST(PipelineBuild, WithoutAnOrderThePassesRunInAnOrderTheirConstraintsAllow) {
  PassPipeline p = buildPipeline(withPaths({fixture("constraints")}));
  Strings names = p.names();
  auto pos = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  ASSERT_EQ(names.size(), 7u);
  EXPECT_LT(pos("early_pass"), pos("remove_empty"));
  for (const char* before :
       {"remove_empty", "remove_bcast_squeeze", "consecutive_cast", "gather_before_pointwise"})
    EXPECT_LT(pos(before), pos("allocation_order_inference"));
  // Alphabetical among the passes that are free to go next.
  EXPECT_EQ(names, (Strings{"consecutive_cast", "early_pass", "gather_before_pointwise",
                            "remove_bcast_squeeze", "remove_empty", "allocation_order_inference",
                            "required_pass"}));
}

TEST(PipelineBuild, InProcessPassesAreCheckedToo) {
  class After final : public Pass {
   public:
    std::string name() const override { return "after_x"; }
    std::vector<std::string> runsAfter() const override { return {"x"}; }
    bool run(Fusion&) override { return false; }
  };
  class X final : public Pass {
   public:
    std::string name() const override { return "x"; }
    bool run(Fusion&) override { return false; }
  };
  auto entry = [](std::shared_ptr<Pass> p) {
    return PipelineEntry{{p->name(), PluginKind::Pass, "", "", {}}, p, {}};
  };
  try {
    PassPipeline bad({entry(std::make_shared<After>()), entry(std::make_shared<X>())});
    FAIL() << "expected a conflict";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'after_x' must run after 'x'"));
    EXPECT_THAT(e.what(), HasSubstr("at position 1 and 'x' at position 2"));
  }
  PassPipeline good({entry(std::make_shared<X>()), entry(std::make_shared<After>())});
  EXPECT_EQ(good.names(), (Strings{"x", "after_x"}));
}

}  // namespace
}  // namespace fusebox
