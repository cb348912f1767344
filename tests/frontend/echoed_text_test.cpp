// What error messages echo of the user's text: control bytes escaped (a
// message must not drive the terminal) and long tokens cut (a 1 MB identifier
// must not become a 1 MB message), through displayText.
#include <fusebox/error.h>
#include <fusebox/frontend/python_definition.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(DisplayText, EscapesControlBytesAndKeepsUtf8) {
  EXPECT_EQ(displayText("plain text"), "plain text");
  EXPECT_EQ(displayText("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(displayText("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(displayText(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(displayText("del\x7f"), "del\\x7f");
  EXPECT_EQ(displayText("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");  // café €
  EXPECT_EQ(displayText("bad \xff\xc3"), "bad \\xff\\xc3");                        // not UTF-8
  EXPECT_EQ(displayText("csi \xc2\x9b"), "csi \\xc2\\x9b");           // C1 control U+009B
  EXPECT_EQ(displayText("long \xc0\xaf"), "long \\xc0\\xaf");         // overlong '/'
  EXPECT_EQ(displayText("sur \xed\xa0\x80"), "sur \\xed\\xa0\\x80");  // a surrogate
}

TEST(DisplayText, CutsAfterMaxCharacters) {
  EXPECT_EQ(displayText(std::string(80, 'x')), std::string(80, 'x'));
  EXPECT_EQ(displayText(std::string(81, 'x')), std::string(80, 'x') + "...");
  EXPECT_EQ(displayText(std::string(1 << 20, 'x'), 5), "xxxxx...");
  // Characters, not bytes: a multi-byte character is never split.
  EXPECT_EQ(displayText("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9...");
}

TEST(DisplayText, MessagesKeepTheirLines) {
  EXPECT_EQ(displayMessage("line 1\n\tline 2\x1b[0m\n"), "line 1\n\tline 2\\x1b[0m\n");
  EXPECT_EQ(displayMessage(std::string(1000, 'y')), std::string(1000, 'y'));
}

std::string parseError(const std::string& body_line) {
  const std::string src =
      "def f(fd):\n    T0 = fd.define_tensor(shape=[-1], contiguity=[True])\n    " + body_line +
      "\n";
  try {
    parsePythonDefinition(src, "echo.py");
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().line, 3) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError for " << body_line;
  return "";
}

TEST(EchoedText, ControlBytesInAStringAreEscaped) {
  const std::string message = parseError("T1 = fd.ops.add(T0, \"\x1b[2J\x07\")");
  EXPECT_THAT(message, HasSubstr("'\\x1b[2J\\x07'"));
  EXPECT_THAT(message, Not(HasSubstr("\x1b")));
  EXPECT_THAT(message, Not(HasSubstr("\x07")));
}

TEST(EchoedText, MegabyteTokensAreCut) {
  const std::string huge(1 << 20, 'z');
  for (const std::string& line :
       {"T1 = " + huge + "(T0)", "T1 = fd.ops." + huge + "(T0)", "T1 = fd.ops.neg(" + huge + ")",
        "T1 = fd.ops.sum(T0, " + huge + "=[0])", "T1 = fd.ops.add(T0, \"" + huge + "\")",
        "T1 = T0." + huge + "()", "fd." + huge + "(T0)"}) {
    const std::string message = parseError(line);
    EXPECT_THAT(message, HasSubstr("zzz..."));
    EXPECT_LT(message.size(), 2000u) << message.substr(0, 200);
  }
  // A megabyte integer literal, too large for int64 and with a bad digit.
  const std::string digits(1 << 20, '7');
  for (const std::string& literal : {digits, "0b" + digits}) {
    const std::string message = parseError("T1 = fd.ops.mul(T0, " + literal + ")");
    EXPECT_THAT(message, HasSubstr("777..."));
    EXPECT_LT(message.size(), 2000u) << message.substr(0, 200);
  }
}

TEST(EchoedText, UnexpectedControlCharacterIsEscaped) {
  const std::string message = parseError("T1 = fd.ops.neg(T0)\x1b");
  EXPECT_THAT(message, HasSubstr("unexpected character '\\x1b'"));
}

}  // namespace
}  // namespace fusebox
