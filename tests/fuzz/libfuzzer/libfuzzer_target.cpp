// libFuzzer entry points for the two parsers (built only with clang; see
// tests/fuzz/CMakeLists.txt). FUSEBOX_FUZZ_TOML picks the TOML reader, else
// the Python one. An input the parser accepts or refuses with a UserError is
// fine; anything else aborts, which libFuzzer records as a crash.
#include "parser_fuzz.h"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#ifdef FUSEBOX_FUZZ_TOML
  constexpr auto target = fusebox::fuzz::ParserTarget::Toml;
#else
  constexpr auto target = fusebox::fuzz::ParserTarget::Python;
#endif
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto problem = fusebox::fuzz::checkParserInput(target, text)) {
    std::fprintf(stderr, "fusebox parser fuzz: %s\n", problem->c_str());
    std::abort();
  }
  return 0;
}
