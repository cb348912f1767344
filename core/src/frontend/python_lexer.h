// Tokens of the Python subset the definition frontend reads. The lexer follows
// Python's rules where the subset needs them: INDENT/DEDENT from leading
// whitespace, newlines and indentation ignored inside brackets, comments,
// backslash continuations. Every token carries its 1-based line:col.
#pragma once

#include <fusebox/error.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::frontend {

// Imaginary: a literal such as `1j` or `0.5j` (float_value holds its imaginary part).
enum class TokenKind { Name, Int, Float, Imaginary, String, Op, Newline, Indent, Dedent, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // identifier, operator, raw number text, or decoded string contents
  int64_t int_value = 0;
  // The literal 9223372036854775808 (2**63): it fits in int64 only negated, so
  // the expression reader decides (int_value is then INT64_MIN).
  bool int_is_two_pow_63 = false;
  double float_value = 0;
  int line = 0;
  int column = 0;

  bool isOp(std::string_view op) const { return kind == TokenKind::Op && text == op; }
  bool isName(std::string_view name) const { return kind == TokenKind::Name && text == name; }
  // How an error message names this token: "'foo'", "end of line", "end of file".
  std::string describe() const;
};

// Splits `source` into tokens; the last token is End. Throws UserError naming
// file:line:col for characters outside the subset, unterminated strings,
// unbalanced brackets, inconsistent dedents, and integer literals above 2**63
// (Python's are unbounded; here every int must fit in int64).
std::vector<Token> tokenize(std::string_view source, const std::string& filename);

}  // namespace fusebox::frontend
