// The option set: defaults, config < environment < command line, and bad names
// and values from each place.
#include <fusebox/options.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
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

TEST(Options, Defaults) {
  Options o;
  EXPECT_TRUE(o.printAfter().empty());
  EXPECT_FALSE(o.timePasses());
  EXPECT_FALSE(o.printTransforms());
#ifdef NDEBUG
  EXPECT_FALSE(o.verifyPasses());
#else
  EXPECT_TRUE(o.verifyPasses());
#endif
}

TEST(Options, LaterPlacesWin) {
  Config config = parseConfig(
      "[dump]\nprint_after = [\"remove_empty\"]\ntime_passes = true\n"
      "[runtime]\nverify_passes = true\n",
      "c.toml");
  Options o;
  o.applyConfig(config);
  EXPECT_EQ(o.printAfter(), Strings{"remove_empty"});
  EXPECT_TRUE(o.timePasses());
  EXPECT_TRUE(o.verifyPasses());

  // The environment overrides what it names and leaves the rest.
  o.applyEnvironmentText("FUSEBOX_DUMP", "dump", "print_after=changed, print_transforms");
  o.applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", "verify_passes=off");
  EXPECT_EQ(o.printAfter(), Strings{"changed"});
  EXPECT_TRUE(o.printTransforms());
  EXPECT_TRUE(o.timePasses());
  EXPECT_FALSE(o.verifyPasses());

  // The command line comes last.
  SourceLocation cli{"--print-after", 0, 0};
  o.apply("dump", {{"print_after", {Strings{"all"}, cli}}, {"time_passes", {false, cli}}});
  EXPECT_EQ(o.printAfter(), Strings{"all"});
  EXPECT_FALSE(o.timePasses());
  EXPECT_TRUE(o.printTransforms());
}

TEST(Options, EnvironmentListsCollectRepeatedValues) {
  Options o;
  o.applyEnvironmentText("FUSEBOX_DUMP", "dump", "print_after=a,print_after=b,,time_passes=1");
  EXPECT_EQ(o.printAfter(), (Strings{"a", "b"}));
  EXPECT_TRUE(o.timePasses());
}

TEST(Options, ReadsTheRealEnvironment) {
  ::setenv("FUSEBOX_DUMP", "time_passes", 1);
  ::setenv("FUSEBOX_RUNTIME", "verify_passes=no", 1);
  Options o;
  o.applyEnvironment();
  ::unsetenv("FUSEBOX_DUMP");
  ::unsetenv("FUSEBOX_RUNTIME");
  EXPECT_TRUE(o.timePasses());
  EXPECT_FALSE(o.verifyPasses());
}

TEST(Options, UnknownEnvironmentNameListsTheValidOnes) {
  Options o;
  std::string message =
      userErrorOf([&] { o.applyEnvironmentText("FUSEBOX_DUMP", "dump", "print_before=all"); });
  EXPECT_THAT(message, HasSubstr("FUSEBOX_DUMP: unknown option 'print_before'"));
  EXPECT_THAT(message, HasSubstr("print_after (array of strings)"));
  EXPECT_THAT(message, HasSubstr("print_transforms (bool)"));
  EXPECT_THAT(message, HasSubstr("time_passes (bool)"));
}

TEST(Options, BadEnvironmentValues) {
  Options o;
  EXPECT_THAT(userErrorOf([&] {
                o.applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", "verify_passes=maybe");
              }),
              HasSubstr("FUSEBOX_RUNTIME: option 'verify_passes' expects a bool"));
  EXPECT_THAT(userErrorOf([&] { o.applyEnvironmentText("FUSEBOX_DUMP", "dump", "print_after"); }),
              HasSubstr("FUSEBOX_DUMP: option 'print_after' needs a value"));
}

TEST(Options, CommandLineWrongTypeAndUnknownTable) {
  Options o;
  SourceLocation cli{"--time-passes", 0, 0};
  EXPECT_THAT(
      userErrorOf([&] {
        o.apply("dump", {{"time_passes", {std::string("x"), cli}}});
      }),
      HasSubstr("--time-passes: option 'time_passes' of [dump] expects a bool, got a string"));
  EXPECT_THAT(userErrorOf([&] { o.apply("dumps", {}); }),
              HasSubstr("unknown option table 'dumps'; valid tables: dump, runtime"));
}

}  // namespace
}  // namespace fusebox
