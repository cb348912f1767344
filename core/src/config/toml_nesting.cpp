#include "config/toml_nesting.h"

#include <vector>

namespace fusebox {
namespace {

class NestingScanner {
 public:
  NestingScanner(std::string_view text, int limit) : s_(text), limit_(limit) {}

  std::optional<TomlPosition> run() {
    while (!over_ && i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else if (c == '\n') {
        advance();
        if (open_.empty()) expect_key_ = line_start_ = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        advance();
      } else if (expect_key_ && open_.empty() && line_start_ && c == '[') {
        header();
      } else if (expect_key_ && isKeyStart(c)) {
        keyValue();
      } else {
        valueChar(c);
      }
    }
    if (over_) return where_;
    return std::nullopt;
  }

 private:
  struct Open {
    char bracket;
    int depth;  // '[': its elements' depth; '{': the depth its keys start from
  };

  static bool isKeyStart(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '"' || c == '\'';
  }
  static bool isBareKeyChar(char c) { return c != '"' && c != '\'' && isKeyStart(c); }

  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void advance() {
    const char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;  // UTF-8 continuation bytes belong to the character before
    }
  }
  void skipBlanks() {
    while (peek() == ' ' || peek() == '\t') advance();
  }
  // Records the first place deeper than the limit.
  void check(int depth, TomlPosition at) {
    if (depth > limit_ && !over_) {
      over_ = true;
      where_ = at;
    }
  }
  TomlPosition here() const { return {line_, column_}; }

  // A string starting at the quote; multi-line forms end at their triple quote.
  void skipString() {
    const char quote = peek();
    const bool multi = peek(1) == quote && peek(2) == quote;
    for (int n = multi ? 3 : 1; n > 0; --n) advance();
    while (i_ < s_.size()) {
      const char c = peek();
      if (c == '\\' && quote == '"') {
        advance();
        if (i_ < s_.size()) advance();
      } else if (c == quote && (!multi || (peek(1) == quote && peek(2) == quote))) {
        for (int n = multi ? 3 : 1; n > 0; --n) advance();
        return;
      } else if (c == '\n' && !multi) {
        return;  // unterminated: the parser says so
      } else {
        advance();
      }
    }
  }

  // A (dotted) key; returns its number of parts, checking each part's depth.
  int keyParts(int base) {
    int parts = 0;
    while (!over_) {
      skipBlanks();
      const TomlPosition at = here();
      if (peek() == '"' || peek() == '\'') {
        skipString();
      } else if (isBareKeyChar(peek())) {
        while (isBareKeyChar(peek())) advance();
      } else {
        break;
      }
      check(base + ++parts, at);
      skipBlanks();
      if (peek() != '.') break;
      advance();
    }
    return parts;
  }

  void header() {
    advance();
    const bool array = peek() == '[';
    if (array) advance();
    const TomlPosition at = here();
    table_depth_ = keyParts(0) + (array ? 1 : 0);
    check(table_depth_, at);
    expect_key_ = line_start_ = false;
  }

  void keyValue() {
    const int base = open_.empty() ? table_depth_ : open_.back().depth;
    value_depth_ = base + keyParts(base);
    skipBlanks();
    if (peek() == '=') advance();
    expect_key_ = line_start_ = false;
  }

  void valueChar(char c) {
    expect_key_ = line_start_ = false;
    if (c == '"' || c == '\'') {
      skipString();
      return;
    }
    const TomlPosition at = here();
    advance();
    if (c == '[') {
      open_.push_back({'[', value_depth_ + 1});
      value_depth_ += 1;
      check(value_depth_, at);
    } else if (c == '{') {
      open_.push_back({'{', value_depth_});
      expect_key_ = true;
    } else if ((c == ']' || c == '}') && !open_.empty()) {
      open_.pop_back();
      if (!open_.empty() && open_.back().bracket == '[') value_depth_ = open_.back().depth;
    } else if (c == ',' && !open_.empty()) {
      if (open_.back().bracket == '{')
        expect_key_ = true;
      else
        value_depth_ = open_.back().depth;
    }
  }

  std::string_view s_;
  int limit_;
  size_t i_ = 0;
  int line_ = 1, column_ = 1;
  std::vector<Open> open_;
  int table_depth_ = 0;  // of the last [header]
  int value_depth_ = 0;  // of the value being read
  bool expect_key_ = true, line_start_ = true;
  bool over_ = false;
  TomlPosition where_;
};

}  // namespace

std::optional<TomlPosition> findTomlNestingOver(std::string_view text, int limit) {
  return NestingScanner(text, limit).run();
}

}  // namespace fusebox
