// Damaged scripts never crash the frontend: every prefix of an example and
// every single-character deletion either parses or raises a UserError with a
// location inside the file.
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fusebox {
namespace {

std::string readExample(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses `src`; returns "" when it parses or fails properly, else a description.
std::string problemWith(const std::string& src) {
  int lines = 1;
  for (char c : src) lines += c == '\n';
  try {
    PythonDefinition d = parsePythonDefinition(src, "damaged.py");
    if (!d.fusion) return "no fusion and no error";
  } catch (const UserError& e) {
    if (e.where().file != "damaged.py") return std::string("error without the file: ") + e.what();
    if (e.where().line < 1 || e.where().line > lines + 1)
      return std::string("line out of range: ") + e.what();
    if (e.where().column < 1) return std::string("no column: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("not a UserError: ") + e.what();
  }
  return "";
}

TEST(Robustness, EveryPrefixOfTheIssue785ScriptFailsCleanly) {
  std::string src = readExample("segmented_issue785.py");
  ASSERT_FALSE(src.empty());
  for (size_t n = 0; n <= src.size(); ++n) {
    std::string problem = problemWith(src.substr(0, n));
    ASSERT_EQ(problem, "") << "prefix of " << n << " characters:\n" << src.substr(0, n);
  }
}

TEST(Robustness, EverySingleCharacterDeletionFailsCleanly) {
  std::string src = readExample("rope.py");
  ASSERT_FALSE(src.empty());
  for (size_t i = 0; i < src.size(); ++i) {
    std::string damaged = src.substr(0, i) + src.substr(i + 1);
    std::string problem = problemWith(damaged);
    ASSERT_EQ(problem, "") << "deleting character " << i << " ('" << src[i] << "'):\n" << damaged;
  }
}

TEST(Robustness, SwappedTokensFailCleanly) {
  std::string src = readExample("layer_norm.py");
  ASSERT_FALSE(src.empty());
  // Replace each comma, bracket, '=' and ':' in turn with a character that breaks it.
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (c != ',' && c != '[' && c != ']' && c != '(' && c != ')' && c != '=' && c != ':' &&
        c != '.')
      continue;
    for (char r : {';', '(', ']', ' '}) {
      std::string damaged = src;
      damaged[i] = r;
      std::string problem = problemWith(damaged);
      ASSERT_EQ(problem, "") << "replacing character " << i << " with '" << r << "':\n" << damaged;
    }
  }
}

TEST(Robustness, DeepNestingIsAnErrorNotAStackOverflow) {
  const size_t n = 100000;
  std::string lists = std::string(n, '[') + std::string(n, ']');
  std::string parens = std::string(n, '(') + "1" + std::string(n, ')');
  std::string minus = std::string(n, '-') + "1";
  for (const std::string& expr : {lists, parens, minus}) {
    std::string src = "def f(fd):\n    S0 = fd.define_scalar(" + expr + ")\n";
    try {
      parsePythonDefinition(src, "deep.py");
      FAIL();
    } catch (const UserError& e) {
      EXPECT_EQ(e.where().line, 2);
      EXPECT_NE(std::string(e.what()).find("nested more than 200 levels deep"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace fusebox
