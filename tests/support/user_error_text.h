// The message of the UserError a callable throws, or "no error": for tests
// that check what a refusal says.
#pragma once

#include <fusebox/error.h>

#include <string>

namespace fusebox::testing {

template <typename F>
std::string userErrorText(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace fusebox::testing
