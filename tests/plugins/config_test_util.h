// The UserError a config text raises, for the config tests.
#pragma once

#include <fusebox/config.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace fusebox::config_testing {

// The message ("where: message") of the UserError parsing `text` raises; a
// test failure when it raises none.
inline std::string configError(const std::string& text,
                               const std::filesystem::path& file = "bad.toml") {
  try {
    parseConfig(text, file);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError for:\n" << text.substr(0, 200);
  return "";
}

}  // namespace fusebox::config_testing
