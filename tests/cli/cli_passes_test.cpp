// End-to-end tests of `fusebox plugins` and the pass flags of `run` and `print`.
#include "support/run_command.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;
using Strings = std::vector<std::string>;

std::string exe() {
  return FUSEBOX_EXE;
}
std::string example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/examples/" + name;
}
const std::string kChain = example("cast_squeeze_issue3635.py");
const std::string kChannelsLast = example("channels_last_relu.py");

// The "=== IR after pass 'x' (changed) ===" headers, as "x:changed".
Strings dumpHeaders(const std::string& out) {
  Strings headers;
  std::regex header("=== IR after pass '([a-z_]+)' \\((changed|unchanged)\\) ===");
  for (std::sregex_iterator it(out.begin(), out.end(), header), end; it != end; ++it)
    headers.push_back((*it)[1].str() + ":" + (*it)[2].str());
  return headers;
}

// The IR printed last (after every dump).
std::string finalIr(const std::string& out) {
  return out.substr(out.rfind("Inputs:"));
}

// A config that searches fusebox's own plugins, plus `rest`.
std::string config(const std::string& rest) {
  return "[plugins]\npaths = [\"@builtin\"]\n" + rest;
}

TEST(CliVersion, SaysVersionPluginApiAbiTagAndBackends) {
  auto r = runCommand(exe() + " --version");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("^fusebox [0-9]+\\.[0-9]+\\.[0-9]+\n")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\nplugin API version [0-9]+\n"))) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\nplugin ABI tag [^ ]+/fusebox-[0-9.]+\n")))
      << r.output;
  // The host backend always runs; cuda says whether it does here, and why not.
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex("\nbackends: host; cuda (\\([0-9]+ devices?\\)|"
                                             "unavailable here: .+)\n")))
      << r.output;
}

TEST(CliPlugins, ListsEveryBuiltinPassWithKindVersionPathAndOptions) {
  auto r = runCommand(exe() + " plugins");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("lib/fusebox/default.toml"));
  for (const char* name : {"remove_empty", "consecutive_cast", "remove_bcast_squeeze",
                           "gather_before_pointwise", "allocation_order_inference"})
    EXPECT_THAT(r.output, HasSubstr(std::string(name) + "  pass  1.0  ")) << name;
  EXPECT_THAT(r.output, HasSubstr("lib/fusebox/plugins/libfusebox_pass_remove_empty.so"));
  EXPECT_THAT(r.output, HasSubstr("option swap_unary_ops (bool, default true"));
  EXPECT_THAT(r.output, HasSubstr("pipeline: position 5"));
}

TEST(CliPlugins, ShowsWhatAConfigChanges) {
  testing::TempDir dir;
  auto file =
      dir.write("c.toml", config("[passes]\norder = [\"remove_bcast_squeeze\"]\n"
                                 "disabled = [\"consecutive_cast\"]\n"
                                 "[passes.remove_bcast_squeeze]\nswap_unary_ops = false\n"));
  auto r = runCommand(exe() + " plugins --config " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("config: " + file.string()));
  EXPECT_THAT(r.output, HasSubstr("pipeline: disabled"));
  EXPECT_THAT(r.output, HasSubstr("pipeline: not run (not in [passes] order)"));
  EXPECT_THAT(r.output, HasSubstr("pipeline: position 1"));
  EXPECT_THAT(r.output, HasSubstr("(bool, default true, configured false)"));
}

TEST(CliPrint, PrintAfterAllShowsEachPassAndTheFinalIr) {
  auto r = runCommand(exe() + " print " + kChain + " --print-after all");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(
      dumpHeaders(r.output),
      (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed", "consecutive_cast:changed",
               "gather_before_pointwise:unchanged", "allocation_order_inference:unchanged"}));
  EXPECT_THAT(finalIr(r.output), HasSubstr("= Set( T0_g"));
  EXPECT_THAT(finalIr(r.output), Not(HasSubstr("cast(")));
}

TEST(CliPrint, DisablingAPassInTomlChangesPrintAfterAll) {
  testing::TempDir dir;
  const std::string order =
      "[passes]\norder = [\"remove_empty\", \"remove_bcast_squeeze\", \"consecutive_cast\"]\n";
  auto on = dir.write("on.toml", config(order));
  auto off = dir.write("off.toml", config(order + "disabled = [\"consecutive_cast\"]\n"));
  auto a = runCommand(exe() + " print " + kChain + " --print-after all --config " + on.string());
  auto b = runCommand(exe() + " print " + kChain + " --print-after all --config " + off.string());
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(dumpHeaders(a.output),
            (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed",
                     "consecutive_cast:changed"}));
  EXPECT_EQ(dumpHeaders(b.output),
            (Strings{"remove_empty:unchanged", "remove_bcast_squeeze:changed"}));
  EXPECT_THAT(finalIr(a.output), Not(HasSubstr("cast(")));
  EXPECT_THAT(finalIr(b.output), HasSubstr("dtype = float"));
  EXPECT_THAT(finalIr(b.output), HasSubstr("dtype = __bfloat"));
}

TEST(CliPrint, ReorderingPassesInTomlChangesPrintAfterAll) {
  testing::TempDir dir;
  auto squeeze_first = dir.write(
      "a.toml", config("[passes]\norder = [\"remove_bcast_squeeze\", \"consecutive_cast\"]\n"));
  auto cast_first = dir.write(
      "b.toml", config("[passes]\norder = [\"consecutive_cast\", \"remove_bcast_squeeze\"]\n"));
  auto a = runCommand(exe() + " print " + kChain + " --print-after all --config " +
                      squeeze_first.string());
  auto b =
      runCommand(exe() + " print " + kChain + " --print-after all --config " + cast_first.string());
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(dumpHeaders(a.output),
            (Strings{"remove_bcast_squeeze:changed", "consecutive_cast:changed"}));
  EXPECT_EQ(dumpHeaders(b.output),
            (Strings{"consecutive_cast:unchanged", "remove_bcast_squeeze:changed"}));
  EXPECT_THAT(finalIr(b.output), HasSubstr("cast("));
}

TEST(CliPrint, DisablePassFlagAndPrintAfterChanged) {
  auto r = runCommand(exe() + " print " + kChain +
                      " --print-after changed --disable-pass remove_bcast_squeeze");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(dumpHeaders(r.output).empty()) << r.output;  // nothing else changes this fusion
  EXPECT_THAT(finalIr(r.output), HasSubstr("broadcast("));
}

TEST(CliPrint, EnvironmentDumpOptionsAndCommandLineOverride) {
  auto env =
      runCommand("FUSEBOX_DUMP=print_after=changed,time_passes " + exe() + " print " + kChain);
  ASSERT_EQ(env.exit_code, 0) << env.output;
  EXPECT_EQ(dumpHeaders(env.output),
            (Strings{"remove_bcast_squeeze:changed", "consecutive_cast:changed"}));
  EXPECT_THAT(env.output, HasSubstr("time (ms)"));
  auto cli = runCommand("FUSEBOX_DUMP=print_after=changed " + exe() + " print " + kChain +
                        " --print-after remove_empty");
  EXPECT_EQ(dumpHeaders(cli.output), Strings{"remove_empty:unchanged"});
}

TEST(CliPrint, NoPassesPrintsTheFusionAsDefined) {
  auto r = runCommand(exe() + " print " + kChain + " --no-passes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("broadcast("));
  EXPECT_THAT(r.output, HasSubstr("squeeze("));
}

TEST(CliRun, PassesDoNotChangeTheOutputs) {
  auto with = runCommand(exe() + " run " + kChain + " --no-ir --time-passes --verify-passes");
  auto without = runCommand(exe() + " run " + kChain + " --no-ir --no-passes");
  ASSERT_EQ(with.exit_code, 0) << with.output;
  ASSERT_EQ(without.exit_code, 0) << without.output;
  EXPECT_THAT(with.output, HasSubstr("remove_bcast_squeeze "));
  EXPECT_THAT(with.output, Not(HasSubstr("warning")));
  // The summaries print the same statistics and first values.
  std::regex summary("output 0 [A-Za-z0-9_]+: (.*)\n");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(with.output, a, summary)) << with.output;
  ASSERT_TRUE(std::regex_search(without.output, b, summary)) << without.output;
  EXPECT_EQ(a[1].str(), b[1].str());
}

TEST(CliRun, ChannelsLastInputGivesAChannelsLastOutput) {
  auto hinted = runCommand(exe() + " run " + kChannelsLast + " --no-ir");
  auto plain = runCommand(exe() + " run " + kChannelsLast +
                          " --no-ir --disable-pass allocation_order_inference");
  ASSERT_EQ(hinted.exit_code, 0) << hinted.output;
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_THAT(hinted.output, HasSubstr("output 0 T2_g: float[2, 3, 4, 5]{strides 60, 1, 15, 3}"));
  EXPECT_THAT(plain.output, HasSubstr("output 0 T2_g: float[2, 3, 4, 5]{strides 60, 20, 5, 1}"));
  // Same values either way.
  auto stats = [](const std::string& out) {
    return out.substr(out.find("min=", out.find("output 0")));
  };
  EXPECT_EQ(stats(hinted.output).substr(0, 60), stats(plain.output).substr(0, 60));
}

TEST(CliBadInput, MissingConfigFile) {
  auto r = runCommand(exe() + " print " + kChain + " --config /no/such/config.toml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output,
              HasSubstr("error: --config: config file '/no/such/config.toml' does not exist"));
}

TEST(CliBadInput, BadConfigNamesFileLineAndColumn) {
  testing::TempDir dir;
  auto file = dir.write("bad.toml", config("[passes]\norder = [\"remove_empty\"]\nenable = 1\n"));
  auto r = runCommand(exe() + " print " + kChain + " --config " + file.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output,
              HasSubstr("error: " + file.string() + ":5:1: unknown key 'enable' in [passes]"));
  auto env = runCommand("FUSEBOX_CONFIG=" + file.string() + " " + exe() + " plugins");
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_THAT(env.output, HasSubstr(file.string() + ":5:1"));
}

TEST(CliBadInput, UnknownPassNames) {
  auto disabled = runCommand(exe() + " print " + kChain + " --disable-pass remove_emtpy");
  EXPECT_EQ(disabled.exit_code, 1);
  EXPECT_THAT(disabled.output, HasSubstr("error: --disable-pass: unknown pass 'remove_emtpy'; "
                                         "known passes: "));
  EXPECT_THAT(disabled.output, HasSubstr("remove_empty (from "));
  auto printed = runCommand(exe() + " print " + kChain + " --print-after remove_emtpy");
  EXPECT_EQ(printed.exit_code, 1);
  EXPECT_THAT(printed.output, HasSubstr("print_after: unknown pass 'remove_emtpy'"));
  auto env = runCommand("FUSEBOX_DUMP=print_afterr=all " + exe() + " print " + kChain);
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_THAT(env.output, HasSubstr("error: FUSEBOX_DUMP: unknown option 'print_afterr'"));
}

TEST(CliBadInput, OrderThatBreaksAConstraint) {
  testing::TempDir dir;
  auto file = dir.write(
      "order.toml",
      config("[passes]\norder = [\"allocation_order_inference\", \"consecutive_cast\"]\n"));
  auto r = runCommand(exe() + " run " + kChain + " --config " + file.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("pass order conflict: 'allocation_order_inference' must run "
                                  "after 'consecutive_cast'"));
}

}  // namespace
}  // namespace fusebox
