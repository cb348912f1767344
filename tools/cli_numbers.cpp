// Range checks of numeric options (cli_common.h). They read the option's text
// before CLI11 converts it: CLI11 saturates an integer that overflows (so
// `--repeat 99999999999999999999999` became INT64_MAX), reads `-1` into an
// unsigned as 2^64 - 1, and its Range lets NaN through.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

#include "cli_common.h"

namespace fusebox::cli {
namespace {

// The whole of `text` as a T, or false (not a number, or out of T's range).
template <class T>
bool parseWhole(const std::string& text, T& value) {
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+') ++first;  // from_chars takes no '+'
  auto [end, error] = std::from_chars(first, last, value);
  return first != last && error == std::errc() && end == last;
}

}  // namespace

CLI::Validator integerIn(int64_t lo, int64_t hi) {
  const std::string range = fmt::format("an integer in [{}, {}]", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        int64_t v = 0;
        if (!parseWhole(text, v) || v < lo || v > hi)
          return fmt::format("'{}' is out of range: expected {}", text, range);
        return "";
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator unsignedInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        if (!parseWhole(text, v))  // from_chars takes no sign for unsigned
          return fmt::format("'{}' is out of range: expected an integer in [0, {}]", text,
                             UINT64_MAX);
        return "";
      },
      "UINT64");
}

CLI::Validator realIn(double lo, double hi) {
  const std::string range = fmt::format("a number in [{}, {}]", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        double v = 0;
        if (!parseWhole(text, v) || std::isnan(v) || v < lo || v > hi)
          return fmt::format("'{}' is out of range: expected {}", text, range);
        return "";
      },
      fmt::format("NUMBER in [{}, {}]", lo, hi));
}

}  // namespace fusebox::cli
