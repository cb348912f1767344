#include <fusebox/pass.h>

#include <fmt/format.h>

namespace fusebox {

// Out of line: Pass's vtable and type information live in libfusebox_core.
Pass::~Pass() = default;

std::string Pass::describeSelf() const {
  return fmt::format("pass '{}'", name());
}

}  // namespace fusebox
