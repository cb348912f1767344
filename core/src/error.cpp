#include <fusebox/error.h>

namespace fusebox {

std::string SourceLocation::str() const {
  if (!known()) return file;
  std::string s = file.empty() ? "<input>" : file;
  s += ":" + std::to_string(line);
  if (column > 0) s += ":" + std::to_string(column);
  return s;
}

UserError::UserError(const SourceLocation& where, const std::string& message)
    : std::runtime_error(where.known() || !where.file.empty() ? where.str() + ": " + message
                                                              : message),
      where_(where),
      detail_(message) {}

}  // namespace fusebox
