#include <fusebox/error.h>

namespace fusebox {
namespace {

// Length of the well-formed UTF-8 sequence at `s` (1 to 4), or 0. C1 control
// characters (U+0080 to U+009F) count as not well-formed: terminals act on them.
size_t utf8Length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char lead = b(0);
  size_t n = 0;
  uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    if (!continuation(i)) return 0;
    code = (code << 6) | (b(i) & 0x3F);
  }
  const uint32_t lowest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < lowest[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  if (code <= 0x9F) return 0;
  return n;
}

// Escapes what a terminal would act on; keeps line breaks and tabs when
// `keep_layout`; stops after `max_chars` characters.
std::string escapeText(std::string_view text, size_t max_chars, bool keep_layout) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    if (chars == max_chars) return out + "...";
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7F) || (keep_layout && (c == '\n' || c == '\t'))) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n' || c == '\t' || c == '\r') {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
      ++i;
    } else if (size_t n = c >= 0x80 ? utf8Length(text.substr(i)) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string displayText(std::string_view text, size_t max_chars) {
  return escapeText(text, max_chars, /*keep_layout=*/false);
}

std::string displayMessage(std::string_view message) {
  return escapeText(message, std::string_view::npos, /*keep_layout=*/true);
}

std::string SourceLocation::str() const {
  if (!known()) return file;
  // fmt rather than string concatenation: GCC 12 warns (-Wrestrict, a false
  // positive) on `":" + std::to_string(n)` in optimized builds.
  const std::string_view name = file.empty() ? std::string_view("<input>") : file;
  return column > 0 ? fmt::format("{}:{}:{}", name, line, column)
                    : fmt::format("{}:{}", name, line);
}

UserError::UserError(const SourceLocation& where, const std::string& message)
    : std::runtime_error(where.known() || !where.file.empty() ? where.str() + ": " + message
                                                              : message),
      where_(where),
      detail_(message) {}

}  // namespace fusebox
