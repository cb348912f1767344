// Runs a program (no shell) with its standard output and error going to a
// file, for invoking the system C++ compiler, within a time limit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fusebox::host {

struct ProcessResult {
  bool started = false;    // false: the program could not be run (error says why)
  bool timed_out = false;  // it ran past the limit and was killed, with its process group
  int exit_code = -1;      // the exit status, or 128 + signal number
  std::string error;
};

// Runs `argv` in a process group of its own; after `timeout_seconds` (when
// > 0) the whole group (the compiler and whatever it started) is killed.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::filesystem::path& log,
                         double timeout_seconds);

// The first `max_bytes` of a file the program wrote (its log); "" when it
// cannot be read or is not a regular file.
std::string readOutputFile(const std::filesystem::path& path, uint64_t max_bytes);

}  // namespace fusebox::host
