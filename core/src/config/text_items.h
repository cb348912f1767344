// Comma-separated option texts ("a=1, b" in FUSEBOX_DUMP, [runtime] device):
// shared by the option and device-text readers.
#pragma once

#include <cctype>
#include <string_view>
#include <vector>

namespace fusebox::config_text {

// `s` without white space at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The items of "a, b,,c", trimmed, empty ones kept ("a", "b", "", "c").
inline std::vector<std::string_view> commaItems(std::string_view text) {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    items.push_back(
        trim(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos)));
    pos = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
  }
  return items;
}

}  // namespace fusebox::config_text
