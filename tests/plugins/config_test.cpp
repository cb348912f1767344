// The TOML config: every table, path resolution, and each kind of bad input
// with its file:line:col.
#include <fusebox/config.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "plugins/config_test_util.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using config_testing::configError;

TEST(Config, DefaultFileDescribesTheBuiltinPipeline) {
  Config config = loadConfigFile(defaultConfigFile());
  ASSERT_EQ(config.plugin_paths.size(), 1u);
  EXPECT_EQ(fs::weakly_canonical(config.plugin_paths[0].path),
            fs::weakly_canonical(builtinPluginDir()));
  EXPECT_EQ(config.plugin_paths[0].origin.line, 7);  // the paths entry in default.toml
  ASSERT_TRUE(config.pass_order.has_value());
  std::vector<std::string> order;
  for (const auto& n : *config.pass_order) order.push_back(n.name);
  EXPECT_EQ(order,
            (std::vector<std::string>{"remove_empty", "remove_bcast_squeeze", "consecutive_cast",
                                      "gather_before_pointwise", "allocation_order_inference"}));
  EXPECT_TRUE(config.disabled_passes.empty());
  ASSERT_EQ(config.pass_options.count("remove_bcast_squeeze"), 1u);
  EXPECT_EQ(
      std::get<bool>(config.pass_options["remove_bcast_squeeze"].settings["swap_unary_ops"].value),
      true);
}

TEST(Config, DefaultOrderFirstThenTheOthersFound) {
  // Default names not found are dropped; found names the default lacks follow.
  EXPECT_EQ(defaultOrderFirst({"c", "a", "gone"}, {"a", "b", "c", "d"}),
            (std::vector<std::string>{"c", "a", "b", "d"}));
  EXPECT_EQ(defaultOrderFirst({}, {"b", "a"}), (std::vector<std::string>{"b", "a"}));
}

TEST(Config, EveryTableIsRead) {
  Config config = parseConfig(R"(
[plugins]
paths = ["my_plugins", "/abs/plugins", "@builtin"]

[passes]
order = ["a", "b"]
disabled = ["b"]

[passes.a]
flag = true
count = 3
ratio = 0.25
label = "x"
names = ["p", "q"]

[dump]
print_after = "all"
time_passes = true

[runtime]
verify_passes = false
)",
                              "/some/dir/fusebox.toml");
  ASSERT_EQ(config.plugin_paths.size(), 3u);
  EXPECT_EQ(config.plugin_paths[0].path, fs::path("/some/dir/my_plugins"));  // relative to the file
  EXPECT_EQ(config.plugin_paths[0].origin.str(), "/some/dir/fusebox.toml:3:10");
  EXPECT_EQ(config.plugin_paths[1].path, fs::path("/abs/plugins"));
  EXPECT_EQ(config.plugin_paths[2].path, builtinPluginDir());
  ASSERT_TRUE(config.pass_order);
  ASSERT_EQ(config.pass_order->size(), 2u);
  EXPECT_EQ((*config.pass_order)[1].name, "b");
  EXPECT_EQ((*config.pass_order)[1].where.str(), "/some/dir/fusebox.toml:6:15");
  ASSERT_EQ(config.disabled_passes.size(), 1u);
  EXPECT_EQ(config.disabled_passes[0].name, "b");
  const auto& a = config.pass_options.at("a");
  EXPECT_EQ(a.where.line, 9);
  EXPECT_EQ(std::get<bool>(a.settings.at("flag").value), true);
  EXPECT_EQ(std::get<int64_t>(a.settings.at("count").value), 3);
  EXPECT_EQ(std::get<double>(a.settings.at("ratio").value), 0.25);
  EXPECT_EQ(std::get<std::string>(a.settings.at("label").value), "x");
  EXPECT_EQ(std::get<std::vector<std::string>>(a.settings.at("names").value),
            (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(a.settings.at("count").where.line, 11);
  EXPECT_EQ(std::get<std::string>(config.dump.at("print_after").value), "all");
  EXPECT_EQ(std::get<bool>(config.runtime.at("verify_passes").value), false);
}

TEST(Config, WithoutAPluginsTableTheBuiltinFolderIsSearched) {
  Config config = parseConfig("[dump]\ntime_passes = true\n", "x.toml");
  ASSERT_EQ(config.plugin_paths.size(), 1u);
  EXPECT_EQ(config.plugin_paths[0].path, builtinPluginDir());
  EXPECT_FALSE(config.pass_order.has_value());
}

TEST(Config, MalformedTomlNamesFileLineAndColumn) {
  std::string message = configError("[passes]\norder = [\"a\", \n\n[dump]\n", "broken.toml");
  // Inside the unclosed array "[dump]" reads as a nested array holding `dump`.
  EXPECT_THAT(message, HasSubstr("broken.toml:4:2: malformed TOML"));
}

TEST(Config, MalformedTomlUnterminatedString) {
  std::string message = configError("[dump]\nprint_after = \"all\n", "s.toml");
  EXPECT_THAT(message, HasSubstr("s.toml:2:"));
  EXPECT_THAT(message, HasSubstr("malformed TOML"));
}

TEST(Config, UnknownTopLevelTable) {
  std::string message = configError("[plugins]\npaths = []\n\n[passs]\norder = []\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:4:2"));
  EXPECT_THAT(message, HasSubstr("unknown table or key 'passs'"));
  EXPECT_THAT(message, HasSubstr("[plugins], [passes], [schedulers], [dump] and [runtime]"));
}

TEST(Config, UnknownKeyInPlugins) {
  std::string message = configError("[plugins]\npath = [\"p\"]\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:1"));
  EXPECT_THAT(message, HasSubstr("unknown key 'path' in [plugins]"));
}

TEST(Config, UnknownKeyInPasses) {
  std::string message = configError("[passes]\norder = []\nenabled = [\"x\"]\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:3:1"));
  EXPECT_THAT(message, HasSubstr("unknown key 'enabled' in [passes]"));
  EXPECT_THAT(message, HasSubstr("'order', 'disabled'"));
}

TEST(Config, UnknownDumpOptionListsTheValidOnes) {
  std::string message = configError("[dump]\nprint_afterr = \"all\"\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:16"));
  EXPECT_THAT(message, HasSubstr("unknown option 'print_afterr' for [dump]"));
  EXPECT_THAT(message, HasSubstr("print_after (array of strings)"));
  EXPECT_THAT(message, HasSubstr("time_passes (bool)"));
}

TEST(Config, WrongTypeOfPluginPaths) {
  std::string message = configError("[plugins]\npaths = 3\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:9"));
  EXPECT_THAT(message, HasSubstr("[plugins] paths must be an array of strings, got an integer"));
}

TEST(Config, WrongTypeOfAnOrderEntry) {
  std::string message = configError("[passes]\norder = [\"remove_empty\", 7]\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:26"));
  EXPECT_THAT(
      message,
      HasSubstr("[passes] order must be an array of strings, but this entry is an integer"));
}

TEST(Config, WrongTypeOfARuntimeOption) {
  std::string message = configError("[runtime]\nverify_passes = \"yes\"\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:17"));
  EXPECT_THAT(
      message,
      HasSubstr("option 'verify_passes' of [runtime] expects a bool, got a string (\"yes\")"));
}

// An option's array holds strings; an array of integers given for an
// integer option is named as what it is, at the entry.
TEST(Config, AnArrayOfIntegersIsNoOptionValue) {
  std::string message = configError("[schedulers.pointwise]\nunroll = [1]\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:11"));
  EXPECT_THAT(message, HasSubstr("option 'unroll' of scheduler 'pointwise': an array holding an "
                                 "integer is not a valid option value (expected a bool, integer, "
                                 "float, string or array of strings)"));
}

TEST(Config, TableWhereAValueBelongs) {
  std::string message = configError("[dump]\n[dump.print_after]\nx = 1\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:2:"));
  EXPECT_THAT(message, HasSubstr("a table is not a valid option value"));
}

TEST(Config, PassesMustBeATable) {
  std::string message = configError("passes = [\"a\"]\n");
  EXPECT_THAT(message, HasSubstr("bad.toml:1:10"));
  EXPECT_THAT(message, HasSubstr("'passes' must be a table"));
}

TEST(Config, MissingFileNamesWhereItsNameCameFrom) {
  try {
    loadConfig(fs::path("/no/such/fusebox.toml"));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("--config: config file '/no/such/fusebox.toml' does not exist"));
  }
}

TEST(Config, AFolderIsNotAConfigFile) {
  testing::TempDir dir;
  try {
    loadConfigFile(dir.path(), "--config");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("--config: config file '" + dir.path().string() + "' is a folder"));
  }
}

TEST(Config, EnvironmentChoosesTheFileUnlessOneIsGiven) {
  testing::TempDir dir;
  auto from_env = dir.write("env.toml", "[passes]\norder = [\"from_env\"]\n");
  auto explicit_file = dir.write("explicit.toml", "[passes]\norder = [\"explicit\"]\n");
  ::setenv("FUSEBOX_CONFIG", from_env.c_str(), 1);
  Config env_config = loadConfig();
  Config explicit_config = loadConfig(explicit_file);
  ::setenv("FUSEBOX_CONFIG", "/no/such/env.toml", 1);
  std::string message;
  try {
    loadConfig();
  } catch (const UserError& e) {
    message = e.what();
  }
  ::unsetenv("FUSEBOX_CONFIG");
  Config default_config = loadConfig();

  ASSERT_TRUE(env_config.pass_order);
  EXPECT_EQ((*env_config.pass_order)[0].name, "from_env");
  EXPECT_EQ(env_config.file, from_env);
  ASSERT_TRUE(explicit_config.pass_order);
  EXPECT_EQ((*explicit_config.pass_order)[0].name, "explicit");
  EXPECT_THAT(message, HasSubstr("FUSEBOX_CONFIG: config file '/no/such/env.toml' does not exist"));
  EXPECT_EQ(default_config.file, defaultConfigFile());
}

TEST(Config, RelativePluginPathsAreRelativeToTheConfigFile) {
  testing::TempDir dir;
  auto file = dir.write("sub/cfg.toml", "[plugins]\npaths = [\"../plugins\", \"here\"]\n");
  Config config = loadConfigFile(file);
  ASSERT_EQ(config.plugin_paths.size(), 2u);
  EXPECT_EQ(config.plugin_paths[0].path, (dir.path() / "plugins").lexically_normal());
  EXPECT_EQ(config.plugin_paths[1].path, (dir.path() / "sub/here").lexically_normal());
}

}  // namespace
}  // namespace fusebox
