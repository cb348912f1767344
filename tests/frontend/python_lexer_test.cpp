// The tokenizer: kinds, values and line:col of tokens, Python's indentation
// and bracket rules.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "../../core/src/frontend/python_lexer.h"

namespace fusebox::frontend {
namespace {

// "Name:T0@1:1" per token, for compact comparisons.
std::vector<std::string> describeAll(const std::string& src) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(src, "lex.py")) {
    const char* kind = "";
    switch (t.kind) {
      case TokenKind::Name:
        kind = "Name";
        break;
      case TokenKind::Int:
        kind = "Int";
        break;
      case TokenKind::Float:
        kind = "Float";
        break;
      case TokenKind::Imaginary:
        kind = "Imaginary";
        break;
      case TokenKind::String:
        kind = "String";
        break;
      case TokenKind::Op:
        kind = "Op";
        break;
      case TokenKind::Newline:
        kind = "NL";
        break;
      case TokenKind::Indent:
        kind = "INDENT";
        break;
      case TokenKind::Dedent:
        kind = "DEDENT";
        break;
      case TokenKind::End:
        kind = "END";
        break;
    }
    out.push_back(std::string(kind) + ":" + t.text + "@" + std::to_string(t.line) + ":" +
                  std::to_string(t.column));
  }
  return out;
}

TEST(PythonLexer, AssignmentWithCallHasOneBasedPositions) {
  std::vector<std::string> expected = {"Name:T1@1:1",  "Op:=@1:4",  "Name:fd@1:6",   "Op:.@1:8",
                                       "Name:ops@1:9", "Op:.@1:12", "Name:add@1:13", "Op:(@1:16",
                                       "Name:T0@1:17", "Op:,@1:19", "Int:2@1:21",    "Op:)@1:22",
                                       "NL:@1:23",     "END:@2:1"};
  EXPECT_EQ(describeAll("T1 = fd.ops.add(T0, 2)\n"), expected);
}

TEST(PythonLexer, IndentAndDedentFollowLeadingWhitespace) {
  std::vector<std::string> expected = {"Name:def@1:1", "Name:f@1:5", "Op::@1:6",    "NL:@1:7",
                                       "INDENT:@2:5",  "Name:a@2:5", "NL:@2:6",     "INDENT:@3:9",
                                       "Name:b@3:9",   "NL:@3:10",   "DEDENT:@4:1", "DEDENT:@4:1",
                                       "Name:c@4:1",   "NL:@4:2",    "END:@5:1"};
  EXPECT_EQ(describeAll("def f:\n    a\n        b\nc\n"), expected);
}

TEST(PythonLexer, OpenBlocksAreClosedAtEndOfFile) {
  std::vector<std::string> toks = describeAll("with x:\n    y");
  ASSERT_GE(toks.size(), 3u);
  EXPECT_EQ(toks[toks.size() - 3], "NL:@2:6");
  EXPECT_EQ(toks[toks.size() - 2], "DEDENT:@2:6");
  EXPECT_EQ(toks.back(), "END:@2:6");
}

TEST(PythonLexer, NewlinesAndIndentationInsideBracketsAreIgnored) {
  std::vector<std::string> expected = {"Name:inputs@1:1", "Op:=@1:8",  "Op:[@1:10", "Int:1@3:9",
                                       "Op:,@3:10",       "Int:2@4:5", "Op:,@4:6",  "Op:]@5:1",
                                       "NL:@5:2",         "END:@6:1"};
  EXPECT_EQ(describeAll("inputs = [\n\n        1,\n    2,\n]\n"), expected);
}

TEST(PythonLexer, CommentsBlankLinesAndContinuationsProduceNoTokens) {
  std::vector<std::string> expected = {"Name:a@2:1", "Op:=@2:3", "Int:1@2:5", "Op:+@2:7",
                                       "Int:2@3:3",  "NL:@3:16", "END:@6:1"};
  EXPECT_EQ(describeAll("# header\na = 1 + \\\n  2  # trailing\n\n   # indented comment\n"),
            expected);
}

TEST(PythonLexer, NumbersOfEverySpelling) {
  std::vector<Token> toks = tokenize("1e-05 .5 3. 0x1F 1_000 2E3 7\n", "lex.py");
  ASSERT_EQ(toks.size(), 9u);
  EXPECT_EQ(toks[0].kind, TokenKind::Float);
  EXPECT_DOUBLE_EQ(toks[0].float_value, 1e-5);
  EXPECT_DOUBLE_EQ(toks[1].float_value, 0.5);
  EXPECT_EQ(toks[2].kind, TokenKind::Float);
  EXPECT_DOUBLE_EQ(toks[2].float_value, 3.0);
  EXPECT_EQ(toks[3].kind, TokenKind::Int);
  EXPECT_EQ(toks[3].int_value, 31);
  EXPECT_EQ(toks[4].int_value, 1000);
  EXPECT_DOUBLE_EQ(toks[5].float_value, 2000.0);
  EXPECT_EQ(toks[6].kind, TokenKind::Int);
  EXPECT_EQ(toks[6].int_value, 7);
}

TEST(PythonLexer, ImaginaryLiteralsCarryTheirImaginaryPart) {
  std::vector<Token> toks = tokenize("1j 0.5J 2e1j 0j\n", "lex.py");
  ASSERT_EQ(toks.size(), 6u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(toks[i].kind, TokenKind::Imaginary) << i;
  EXPECT_DOUBLE_EQ(toks[0].float_value, 1.0);
  EXPECT_DOUBLE_EQ(toks[1].float_value, 0.5);
  EXPECT_DOUBLE_EQ(toks[2].float_value, 20.0);
  EXPECT_DOUBLE_EQ(toks[3].float_value, 0.0);
  EXPECT_EQ(toks[1].text, "0.5J");
  // Only decimal literals have an imaginary form, as in Python.
  try {
    tokenize("0x1j\n", "lex.py");
    ADD_FAILURE() << "0x1j lexed";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().column, 4);
    EXPECT_NE(std::string(e.what()).find("unexpected character 'j' in a number"), std::string::npos)
        << e.what();
  }
}

TEST(PythonLexer, IntegerLiteralsOfEveryBaseAreExact) {
  auto toks = tokenize("9223372036854775807 0x7fffffffffffffff 0o17 0b101 9007199254740993 0 00\n",
                       "lex.py");
  ASSERT_GE(toks.size(), 7u);
  EXPECT_EQ(toks[0].int_value, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(toks[1].int_value, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(toks[2].int_value, 15);
  EXPECT_EQ(toks[3].int_value, 5);
  EXPECT_EQ(toks[4].int_value, 9007199254740993);  // not rounded through double
  EXPECT_EQ(toks[5].int_value, 0);
  EXPECT_EQ(toks[6].int_value, 0);
  // 2^63 is kept for a unary minus to come.
  auto top = tokenize("9223372036854775808\n", "lex.py");
  EXPECT_TRUE(top[0].int_is_two_pow_63);
}

TEST(PythonLexer, IntegerLiteralsThatDoNotFitOrAreNotPython) {
  auto lexError = [](const std::string& src) {
    try {
      tokenize(src, "lex.py");
    } catch (const UserError& e) {
      return fmt::format("{}:{}: {}", e.where().line, e.where().column, e.detail());
    }
    return std::string("<no error>");
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(lexError("x = 9223372036854775809\n"),
              HasSubstr("1:5: integer 9223372036854775809 does not fit in int64"));
  EXPECT_THAT(lexError("x = 0x8000000000000001\n"), HasSubstr("1:5: integer 0x8000000000000001"));
  EXPECT_THAT(lexError("x = 99999999999999999999999\n"), HasSubstr("does not fit in int64"));
  // strtoll read 010 as octal 8; Python refuses it.
  EXPECT_THAT(lexError("x = 010\n"), HasSubstr("1:5: leading zeros in the integer literal 010"));
  EXPECT_THAT(lexError("x = 0b102\n"), HasSubstr("invalid digit '2'"));
}

TEST(PythonLexer, StringsWithQuotesPrefixesAndEscapes) {
  std::vector<Token> toks =
      tokenize("'cuda:0' \"cuda\" r'a\\b' f\"x\" 'it\\'s' \"\"\"doc\nstring\"\"\"\n", "lex.py");
  ASSERT_GE(toks.size(), 6u);
  EXPECT_EQ(toks[0].text, "cuda:0");
  EXPECT_EQ(toks[1].text, "cuda");
  EXPECT_EQ(toks[2].kind, TokenKind::String);
  EXPECT_EQ(toks[3].kind, TokenKind::String);
  EXPECT_EQ(toks[3].text, "x");
  EXPECT_EQ(toks[4].text, "it's");
  EXPECT_EQ(toks[5].text, "doc\nstring");
  EXPECT_EQ(toks[5].column, 37);
}

TEST(PythonLexer, TwoCharacterOperators) {
  std::vector<Token> toks = tokenize("-> ** == != <= >= //\n", "lex.py");
  std::vector<std::string> ops;
  for (const Token& t : toks)
    if (t.kind == TokenKind::Op) ops.push_back(t.text);
  EXPECT_EQ(ops, (std::vector<std::string>{"->", "**", "==", "!=", "<=", ">=", "//"}));
}

TEST(PythonLexer, WindowsLineEndingsAndTabs) {
  std::vector<std::string> expected = {"Name:if@1:1", "Op::@1:3", "NL:@1:4",     "INDENT:@2:2",
                                       "Name:x@2:2",  "NL:@2:3",  "DEDENT:@3:1", "END:@3:1"};
  EXPECT_EQ(describeAll("if:\r\n\tx\r\n"), expected);
}

TEST(PythonLexer, ErrorsNameTheirPosition) {
  struct Case {
    const char* src;
    int line, col;
    const char* phrase;
  };
  for (const Case& c : std::vector<Case>{{"a = 'x\n", 1, 5, "unterminated string"},
                                         {"a = (1,\n 2\n", 1, 5, "'(' is never closed"},
                                         {"a = 1)\n", 1, 6, "unmatched ')'"},
                                         {"a = [1)\n", 1, 7, "')' does not match '['"},
                                         {"a = 1 ? 2\n", 1, 7, "unexpected character '?'"},
                                         {"a = 1 \\ 2\n", 1, 7, "line continuation"},
                                         {"if:\n    a\n  b\n", 3, 3, "indentation does not match"},
                                         {"  a\n", 1, 3, "unexpected indentation"}}) {
    try {
      tokenize(c.src, "lex.py");
      ADD_FAILURE() << "no error for " << c.src;
    } catch (const UserError& e) {
      EXPECT_EQ(e.where().line, c.line) << c.src << " -> " << e.what();
      EXPECT_EQ(e.where().column, c.col) << c.src << " -> " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.phrase), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fusebox::frontend
