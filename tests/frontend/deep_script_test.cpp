// Long and deeply nested scripts: a definition of 100,000 statements is read
// and written back like a short one; nesting that the reader would follow by
// recursion (expressions, indented blocks) is refused past a limit with the
// place it happens, instead of exhausting the stack.
#include <fusebox/frontend/python_definition.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/deep_chains.h"

namespace fusebox {
namespace {

using deep_chains::kDeepChainLength;
using ::testing::HasSubstr;

class DeepScriptRoundTrip : public ::testing::TestWithParam<size_t> {};

TEST_P(DeepScriptRoundTrip, ThroughThePythonPrinter) {
  const auto& chain = deep_chains::allDeepChains()[GetParam()];
  auto f = chain.make(kDeepChainLength);
  const std::string text = printPythonDefinition(*f);
  PythonDefinition back = parsePythonDefinition(text, "deep.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*f, *back.fusion, &why)) << why;
}

INSTANTIATE_TEST_SUITE_P(Chains, DeepScriptRoundTrip,
                         ::testing::Range<size_t>(0, deep_chains::allDeepChains().size()),
                         [](const auto& info) { return deep_chains::chainTestName(info.param); });

TEST(DeepScript, AScriptOfAHundredThousandStatements) {
  std::string src = "def f(fd):\n    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n";
  for (int64_t k = 1; k <= kDeepChainLength; ++k)
    src += fmt::format("    T{} = fd.ops.neg(T{})\n", k, k - 1);
  src += fmt::format("    fd.add_output(T{})\n", kDeepChainLength);
  PythonDefinition def = parsePythonDefinition(src, "long.py");
  EXPECT_EQ(static_cast<int64_t>(def.fusion->exprs().size()), kDeepChainLength);
}

// `source` fails at `line` of nested.py, saying `message`.
void expectNestingError(const std::string& source, int line, const std::string& message) {
  try {
    parsePythonDefinition(source, "nested.py");
    ADD_FAILURE() << "parsed";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, "nested.py");
    EXPECT_EQ(e.where().line, line);
    EXPECT_GE(e.where().column, 1);
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST(DeepScript, DeeplyNestedCallsAndOperatorsAreErrors) {
  const size_t n = 100000;
  std::string calls;
  for (size_t k = 0; k < n; ++k) calls += "fd.ops.neg(";
  calls += "T0" + std::string(n, ')');
  std::string powers;
  for (size_t k = 0; k < n; ++k) powers += "2 ** ";
  powers += "1";
  for (const std::string& expr : {calls, powers})
    expectNestingError(
        "def f(fd):\n    T0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
        "    T1 = " +
            expr + "\n",
        3, "nested more than 200 levels deep");
}

TEST(DeepScript, DeeplyNestedInputsListIsAnError) {
  const size_t n = 100000;
  expectNestingError(
      "def f(fd):\n    pass\ninputs = " + std::string(n, '[') + std::string(n, ']') + "\n", 3,
      "nested more than 200 levels deep");
}

TEST(DeepScript, TooManyLevelsOfIndentationIsAnError) {
  std::string src = "def f(fd):\n    pass\n";
  const int levels = 150;
  for (int k = 0; k < levels; ++k) src += std::string(k, ' ') + "for _ in range(1):\n";
  src += std::string(levels, ' ') + "pass\n";
  try {
    parsePythonDefinition(src, "nested.py");
    FAIL() << "parsed";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, "nested.py");
    EXPECT_EQ(e.where().line, 3 + 101);  // the 101st nested block
    EXPECT_GE(e.where().column, 1);
    EXPECT_THAT(e.what(), HasSubstr("too many levels of indentation (more than 100)"));
  }
}

}  // namespace
}  // namespace fusebox
