// Config files a hostile user might hand over: nesting deep enough to
// overflow TOML++'s stack, files too big, files that are not files (a device,
// a FIFO), and control bytes and huge keys echoed in messages.
#include <fusebox/config.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "config/toml_nesting.h"
#include "plugins/config_test_util.h"
#include "support/hang_guard.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string configError(const std::string& text) {
  return config_testing::configError(text, "deep.toml");
}

std::string repeated(const std::string& part, int n, const std::string& separator) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? separator : "") + part;
  return out;
}

TEST(ConfigLimits, FortyThousandLevelTableHeaderIsAnErrorAtItsPlace) {
  // This overflowed the stack inside TOML++ (exit 139).
  const std::string text = "# a comment\n[" + repeated("a", 40000, ".") + ".b]\n";
  const std::string message = configError(text);
  // The 17th part: after "[" and 16 "a." pairs.
  EXPECT_THAT(message, HasSubstr("deep.toml:2:34: the config nests deeper than 16 levels"));
}

TEST(ConfigLimits, DeepDottedKeysArraysAndInlineTablesAreErrors) {
  EXPECT_THAT(configError("[dump]\n" + repeated("k", 40000, ".") + " = 1\n"),
              HasSubstr("deep.toml:2:"));
  EXPECT_THAT(configError("[runtime]\nx = " + std::string(40000, '[') + "\n"),
              HasSubstr("deep.toml:2:"));
  EXPECT_THAT(configError("x = " + repeated("{a = ", 40000, "") + "1\n"),
              HasSubstr("nests deeper than 16 levels"));
  EXPECT_THAT(configError("[[" + repeated("a", 20, ".") + "]]\n"), HasSubstr("deep.toml:1:"));
}

TEST(ConfigLimits, NestingIsCountedOutsideStringsAndComments) {
  // Brackets and dots inside strings, quoted keys and comments are no levels.
  const std::string many = std::string(100, '[') + std::string(100, '.');
  EXPECT_EQ(findTomlNestingOver("a = \"" + many + "\"\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("a = '" + many + "'\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("a = \"\"\"\n" + many + "\n\"\"\"\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("a = '''\n" + many + "\n'''\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("\"" + many + "\" = 1\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("# " + many + "\n[a] # " + many + "\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("a = \"\\\"" + many + "\"\n", 16), std::nullopt);
  EXPECT_EQ(findTomlNestingOver("a = 1.5\nb = 2024-01-01T00:00:00.5\n", 1), std::nullopt);
  // Exactly at the limit passes; one more level fails, where it starts.
  EXPECT_EQ(findTomlNestingOver("[" + repeated("a", 16, ".") + "]\n", 16), std::nullopt);
  const auto over = findTomlNestingOver("\n  [" + repeated("a", 17, ".") + "]\n", 16);
  ASSERT_TRUE(over.has_value());
  EXPECT_EQ(over->line, 2);
  EXPECT_EQ(over->column, 36);
  // A key's parts add to its table's: [a.b] then c.d = [[1]] is 2 + 2 + 2 deep.
  EXPECT_EQ(findTomlNestingOver("[a.b]\nc.d = [[1]]\n", 6), std::nullopt);
  EXPECT_TRUE(findTomlNestingOver("[a.b]\nc.d = [[1]]\n", 5).has_value());
  // Inline tables: their keys are one level below the key holding them.
  EXPECT_EQ(findTomlNestingOver("a = {b = {c = 1}}\n", 3), std::nullopt);
  EXPECT_TRUE(findTomlNestingOver("a = {b = {c = 1}}\n", 2).has_value());
  // A multi-line array keeps its depth across lines.
  EXPECT_TRUE(findTomlNestingOver("a = [\n[\n[\n1]]]\n", 3).has_value());
}

TEST(ConfigLimits, EveryShippedConfigIsWithinTheLimit) {
  EXPECT_EQ(findTomlNestingOver(
                R"([plugins]
paths = ["plugins", "@builtin"]
[passes]
order = ["remove_empty", "consecutive_cast"]
[passes.remove_bcast_squeeze]
swap_unary_ops = true
[dump]
print_after = ["all"]
)",
                3),
            std::nullopt);
  EXPECT_NO_THROW(loadConfigFile(defaultConfigFile()));
}

TEST(ConfigLimits, FileOverTheSizeLimitIsRefused) {
  testing::TempDir dir;
  const fs::path big = dir.path() / "big.toml";
  std::ofstream(big) << "[dump]\n";
  fs::resize_file(big, (uint64_t{1} << 20) + 1);  // sparse: costs no disk
  try {
    loadConfigFile(big, "--config");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--config: " + big.string() +
                                    ": the config file is larger than the limit of 1 MiB"));
  }
}

TEST(ConfigLimits, DevicesAndFifosAreRefusedWithoutBlocking) {
  testing::HangGuard guard;  // /dev/zero was read until memory ran out
  testing::TempDir dir;
  const fs::path link = dir.path() / "zero.toml";
  fs::create_symlink("/dev/zero", link);
  try {
    loadConfigFile(link, "FUSEBOX_CONFIG");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("FUSEBOX_CONFIG: " + link.string() +
                                    ": the config file is a character device, not a regular "
                                    "file"));
  }
  // A FIFO is a pipe, read like `--config <(...)`: with no writer it is empty
  // at once (not a wait for one).
  const fs::path fifo = dir.path() / "fifo.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Config config = loadConfigFile(fifo, "--config");
  EXPECT_TRUE(config.dump.empty());
}

TEST(ConfigLimits, MessagesEscapeAndShortenKeys) {
  const std::string message = configError("\"\\u001b[2J" + std::string(100000, 'k') + "\" = 1\n");
  EXPECT_THAT(message, HasSubstr("unknown table or key '\\x1b[2Jkkk"));
  EXPECT_THAT(message, HasSubstr("kkk...'"));
  EXPECT_THAT(message, Not(HasSubstr("\x1b")));
  EXPECT_LT(message.size(), 400u);
}

}  // namespace
}  // namespace fusebox
