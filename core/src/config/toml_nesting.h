// How deeply a TOML text nests, found by a scan before TOML++ parses it:
// TOML++ builds (and destroys) nested tables recursively, so `[a.a.a....b]`
// with 40,000 parts overflows the stack. A fusebox config nests 3 levels.
#pragma once

#include <optional>
#include <string_view>

namespace fusebox {

inline constexpr int kMaxTomlNesting = 16;

struct TomlPosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in characters
};

// Where `text` first nests deeper than `limit` levels, or nullopt. Each part
// of a table header or dotted key is a level, and so is each array; an inline
// table is the value of its key (its keys are the next level). Malformed text
// is scanned on a best-effort basis and left to the parser to report.
std::optional<TomlPosition> findTomlNestingOver(std::string_view text, int limit);

}  // namespace fusebox
