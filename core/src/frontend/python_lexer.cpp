#include "frontend/python_lexer.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace fusebox::frontend {

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "an indented block";
    case TokenKind::Dedent:
      return "the end of an indented block";
    case TokenKind::End:
      return "end of file";
    case TokenKind::String:
      return fmt::format("string '{}'", displayText(text));
    default:
      return fmt::format("'{}'", displayText(text));
  }
}

namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file) : src_(src), file_(file) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    at_line_start_ = true;
    while (true) {
      if (at_line_start_ && brackets_.empty()) {
        if (!handleIndentation()) break;  // end of input
      }
      if (pos_ >= src_.size()) break;
      char c = src_[pos_];
      if (c == '\n' || c == '\r') {
        consumeNewline();
        if (brackets_.empty()) {
          if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline &&
              tokens_.back().kind != TokenKind::Indent && tokens_.back().kind != TokenKind::Dedent)
            push(TokenKind::Newline, "", line_ - 1, newline_col_);
          at_line_start_ = true;
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f') {
        advance();
        continue;
      }
      if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') advance();
        continue;
      }
      if (c == '\\') {
        int l = line_, col = col_;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '\n' || src_[pos_] == '\r')) {
          consumeNewline();
          continue;
        }
        fail(l, col, "unexpected '\\' (a line continuation must end the line)");
      }
      if (isIdentStart(c)) {
        lexNameOrString();
        continue;
      }
      if (isDigit(c) || (c == '.' && pos_ + 1 < src_.size() && isDigit(src_[pos_ + 1]))) {
        lexNumber();
        continue;
      }
      if (c == '\'' || c == '"') {
        lexString(line_, col_);
        continue;
      }
      lexOperator();
    }
    if (!brackets_.empty()) {
      const Token& open = brackets_.back();
      fail(open.line, open.column, fmt::format("'{}' is never closed", open.text));
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline &&
        tokens_.back().kind != TokenKind::Dedent)
      push(TokenKind::Newline, "", line_, col_);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::Dedent, "", line_, col_);
    }
    push(TokenKind::End, "", line_, col_);
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void fail(int line, int col, const std::string& msg) {
    throw UserError(SourceLocation{file_, line, col}, msg);
  }

  void advance() {
    ++pos_;
    ++col_;
  }

  void consumeNewline() {
    newline_col_ = col_;
    if (src_[pos_] == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
    col_ = 1;
  }

  void push(TokenKind kind, std::string text, int line, int col) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = line;
    t.column = col;
    tokens_.push_back(std::move(t));
  }

  // Measures the indentation of the next non-blank line and emits INDENT /
  // DEDENT tokens. Returns false at end of input.
  bool handleIndentation() {
    while (true) {
      int width = 0;
      while (pos_ < src_.size() &&
             (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\f')) {
        width = src_[pos_] == '\t' ? (width / 8 + 1) * 8 : width + 1;
        advance();
      }
      if (pos_ >= src_.size()) return false;
      char c = src_[pos_];
      if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') advance();
        if (pos_ >= src_.size()) return false;
        consumeNewline();
        continue;
      }
      if (c == '\n' || c == '\r') {
        consumeNewline();
        continue;
      }
      at_line_start_ = false;
      if (width > indents_.back()) {
        if (tokens_.empty() || tokens_.back().kind != TokenKind::Newline)
          fail(line_, col_, "unexpected indentation");
        // Each level is a block the parser reads by recursion; CPython's own limit.
        constexpr size_t kMaxIndentLevels = 100;
        if (indents_.size() > kMaxIndentLevels)
          fail(line_, col_,
               fmt::format("too many levels of indentation (more than {})", kMaxIndentLevels));
        indents_.push_back(width);
        push(TokenKind::Indent, "", line_, col_);
      } else {
        while (width < indents_.back()) {
          indents_.pop_back();
          push(TokenKind::Dedent, "", line_, col_);
        }
        if (width != indents_.back())
          fail(line_, col_, "indentation does not match any enclosing block");
      }
      return true;
    }
  }

  void lexNameOrString() {
    int l = line_, col = col_;
    size_t start = pos_;
    while (pos_ < src_.size() && isIdentChar(src_[pos_])) advance();
    std::string word(src_.substr(start, pos_ - start));
    // String prefixes: r"..", b'..', f"..", u"..", rb"..".
    if (pos_ < src_.size() && (src_[pos_] == '\'' || src_[pos_] == '"') && word.size() <= 2) {
      bool prefix = true;
      for (char ch : word) {
        char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (lower != 'r' && lower != 'b' && lower != 'f' && lower != 'u') prefix = false;
      }
      if (prefix) {
        lexString(l, col);
        return;
      }
    }
    push(TokenKind::Name, std::move(word), l, col);
  }

  void lexNumber() {
    int l = line_, col = col_;
    size_t start = pos_;
    bool is_float = false;
    int base = 10;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size()) {
      char p = static_cast<char>(std::tolower(static_cast<unsigned char>(src_[pos_ + 1])));
      base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    }
    if (base != 10) {
      advance();
      advance();
      while (pos_ < src_.size() &&
             (std::isxdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
        advance();
    } else {
      while (pos_ < src_.size() && (isDigit(src_[pos_]) || src_[pos_] == '_')) advance();
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        advance();
        while (pos_ < src_.size() && (isDigit(src_[pos_]) || src_[pos_] == '_')) advance();
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        size_t save_pos = pos_;
        int save_col = col_;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) advance();
        if (pos_ < src_.size() && isDigit(src_[pos_])) {
          is_float = true;
          while (pos_ < src_.size() && isDigit(src_[pos_])) advance();
        } else {
          pos_ = save_pos;
          col_ = save_col;
        }
      }
    }
    // `1j`, `0.5j`: Python's imaginary literals (decimal only, as in Python).
    bool imaginary = base == 10 && pos_ < src_.size() && (src_[pos_] == 'j' || src_[pos_] == 'J');
    if (imaginary) advance();
    if (pos_ < src_.size() && isIdentChar(src_[pos_]))
      fail(line_, col_,
           fmt::format("unexpected character '{}' in a number", displayText(src_.substr(pos_, 1))));
    std::string raw(src_.substr(start, pos_ - start));
    std::string digits;
    for (char ch : raw)
      if (ch != '_' && ch != 'j' && ch != 'J') digits += ch;
    Token t;
    t.text = raw;
    t.line = l;
    t.column = col;
    if (imaginary) {
      t.kind = TokenKind::Imaginary;
      t.float_value = std::strtod(digits.c_str(), nullptr);
    } else if (is_float) {
      t.kind = TokenKind::Float;
      t.float_value = std::strtod(digits.c_str(), nullptr);  // inf beyond 1.8e308, as Python
    } else {
      t.kind = TokenKind::Int;
      setIntValue(t, base == 10 ? digits : digits.substr(2), base);
    }
    tokens_.push_back(std::move(t));
  }

  // Reads an integer literal's digits exactly (no detour through strtoll's
  // octal or double). Magnitudes up to 2**63 are kept; 2**63 itself is only
  // valid negated, which the expression reader checks.
  void setIntValue(Token& t, const std::string& digits, int base) {
    if (digits.empty()) fail(t.line, t.column, fmt::format("invalid integer literal {}", t.text));
    if (base == 10 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
      fail(t.line, t.column,
           fmt::format("leading zeros in the integer literal {} are not permitted (use 0o for "
                       "octal, as Python does)",
                       t.text));
    constexpr uint64_t kLimit = uint64_t{1} << 63;
    uint64_t magnitude = 0;
    for (char ch : digits) {
      int d = isDigit(ch) ? ch - '0' : std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10;
      if (d >= base)
        fail(t.line, t.column,
             fmt::format("invalid digit '{}' in the integer literal {}", ch, displayText(t.text)));
      if (__builtin_mul_overflow(magnitude, static_cast<uint64_t>(base), &magnitude) ||
          __builtin_add_overflow(magnitude, static_cast<uint64_t>(d), &magnitude) ||
          magnitude > kLimit)
        fail(t.line, t.column,
             fmt::format("integer {} does not fit in int64 (-9223372036854775808 to "
                         "9223372036854775807)",
                         displayText(t.text)));
    }
    t.int_is_two_pow_63 = magnitude == kLimit;
    t.int_value = static_cast<int64_t>(magnitude);  // 2**63 becomes INT64_MIN
  }

  void lexString(int l, int col) {
    char quote = src_[pos_];
    bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote;
    int n_quotes = triple ? 3 : 1;
    for (int i = 0; i < n_quotes; ++i) advance();
    std::string value;
    while (true) {
      if (pos_ >= src_.size()) fail(l, col, "unterminated string");
      char c = src_[pos_];
      if (!triple && (c == '\n' || c == '\r')) fail(l, col, "unterminated string");
      if (c == quote) {
        if (!triple) {
          advance();
          break;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote) {
          advance();
          advance();
          advance();
          break;
        }
      }
      if (c == '\\' && pos_ + 1 < src_.size()) {
        advance();
        char e = src_[pos_];
        if (e == '\n' || e == '\r') {
          consumeNewline();
          continue;
        }
        value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        advance();
        continue;
      }
      if (c == '\n' || c == '\r') {
        value += '\n';
        consumeNewline();
        continue;
      }
      value += c;
      advance();
    }
    push(TokenKind::String, std::move(value), l, col);
  }

  void lexOperator() {
    static constexpr std::string_view kTwoChar[] = {"->", "**", "==", "!=", "<=", ">=", "//",
                                                    "<<", ">>", "+=", "-=", "*=", "/="};
    int l = line_, col = col_;
    std::string_view rest = src_.substr(pos_);
    for (std::string_view op : kTwoChar) {
      if (rest.substr(0, 2) == op) {
        advance();
        advance();
        push(TokenKind::Op, std::string(op), l, col);
        return;
      }
    }
    char c = src_[pos_];
    static constexpr std::string_view kSingle = "()[]{},:.=+-*/%<>@;~&|^";
    if (kSingle.find(c) == std::string_view::npos) {
      if (static_cast<unsigned char>(c) >= 0x80)
        fail(l, col, "unexpected non-ASCII character outside a string or comment");
      fail(l, col, fmt::format("unexpected character '{}'", displayText(std::string_view(&c, 1))));
    }
    advance();
    push(TokenKind::Op, std::string(1, c), l, col);
    if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back(tokens_.back());
    } else if (c == ')' || c == ']' || c == '}') {
      char open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets_.empty()) fail(l, col, fmt::format("unmatched '{}'", c));
      if (brackets_.back().text[0] != open)
        fail(l, col,
             fmt::format("'{}' does not match '{}' at {}:{}", c, brackets_.back().text,
                         brackets_.back().line, brackets_.back().column));
      brackets_.pop_back();
    }
  }

  std::string_view src_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  int newline_col_ = 1;
  bool at_line_start_ = true;
  std::vector<int> indents_;
  std::vector<Token> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& filename) {
  return Lexer(source, filename).run();
}

}  // namespace fusebox::frontend
