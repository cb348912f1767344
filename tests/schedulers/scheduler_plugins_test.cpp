// The built-in scheduler plugins as libraries: found in the built-in folder
// with their records, and exporting nothing but their entry.
#include <gmock/gmock.h>

#include <sstream>

#include "runtime/runtime_test_util.h"
#include "support/run_command.h"

namespace fusebox {
namespace {

using namespace runtime_testing;

TEST(SchedulerPlugins, NoOpAndExprEvalAreFoundWithTheirRecords) {
  for (const std::string name : {"no_op", "expr_eval"}) {
    const PluginDescriptor* d = builtinPlugins().find(name, PluginKind::Scheduler);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->version, "1.0");
    EXPECT_FALSE(d->description.empty());
    EXPECT_EQ(d->file.filename(), "libfusebox_scheduler_" + name + ".so");
    EXPECT_EQ(createScheduler(builtinPlugins(), name)->name(), name);
  }
}

TEST(SchedulerPlugins, EachExportsOnlyItsEntry) {
  if (testing::runCommand("nm --version").exit_code != 0) GTEST_SKIP() << "nm is not available";
  for (const std::string name : {"no_op", "expr_eval"}) {
    auto lib = builtinPlugins().find(name, PluginKind::Scheduler)->file;
    auto result = testing::runCommand("nm -D --defined-only '" + lib.string() + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::istringstream lines(result.output);
    std::vector<std::string> symbols;
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) symbols.push_back(line.substr(line.rfind(' ') + 1));
    EXPECT_EQ(symbols, std::vector<std::string>{"fusebox_plugin_info"}) << lib;
  }
}

}  // namespace
}  // namespace fusebox
