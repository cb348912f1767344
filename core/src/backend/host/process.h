// Runs a program (no shell) with its standard output and error going to a
// file, for invoking the system C++ compiler.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fusebox::host {

struct ProcessResult {
  bool started = false;  // false: the program could not be run (error says why)
  int exit_code = -1;    // the exit status, or 128 + signal number
  std::string error;
};

ProcessResult runProcess(const std::vector<std::string>& argv, const std::filesystem::path& log);

// Reads a whole file ("" when it cannot be read).
std::string readFileText(const std::filesystem::path& path);

}  // namespace fusebox::host
