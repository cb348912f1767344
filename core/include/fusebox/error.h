// Errors. A user-facing error names where it happened (file:line:col where
// there is one) and what was expected; the CLI maps UserError to exit code 1
// and anything else to 2.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace fusebox {

struct SourceLocation {
  std::string file;  // empty when unknown
  int line = 0;      // 1-based, 0 when unknown
  int column = 0;    // 1-based, 0 when unknown
  bool known() const { return line > 0; }
  std::string str() const;  // "file:line:col" (or "file" / "" when less is known)
};

// User text (a token, a name, a value) as a message echoes it: control
// characters and bytes that are not UTF-8 escaped (\n, \t, \x1b, \xff), and
// cut after `max_chars` characters with "..." so that a megabyte token does
// not become a megabyte message.
std::string displayText(std::string_view text, size_t max_chars = 80);
// A whole message as a terminal should get it: escaped as displayText does,
// except that line breaks and tabs are kept, and never cut.
std::string displayMessage(std::string_view message);

// Something the user can fix: a malformed definition, a bad input, a bad config.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message)
      : std::runtime_error(message), detail_(message) {}
  UserError(const SourceLocation& where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  // The message without the location prefix.
  const std::string& detail() const { return detail_; }

 private:
  SourceLocation where_;
  std::string detail_;
};

// A broken invariant inside fusebox: a bug, not the user's fault.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

}  // namespace fusebox

// FUSEBOX_CHECK(cond, fmt, args...): internal invariant.
#define FUSEBOX_CHECK(cond, ...)                                                          \
  do {                                                                                    \
    if (!(cond))                                                                          \
      throw ::fusebox::InternalError(fmt::format("{}:{}: check failed: {}: {}", __FILE__, \
                                                 __LINE__, #cond, fmt::format(__VA_ARGS__))); \
  } while (0)

// FUSEBOX_USER_CHECK(cond, fmt, args...): a condition on user input.
#define FUSEBOX_USER_CHECK(cond, ...)                                        \
  do {                                                                       \
    if (!(cond)) throw ::fusebox::UserError(fmt::format(__VA_ARGS__));       \
  } while (0)
