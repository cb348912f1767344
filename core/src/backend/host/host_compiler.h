// The system C++ compiler as the host backend uses it: which one (configured,
// $FUSEBOX_HOST_CXX, or the one fusebox was built with), its version and
// target (part of every cache key), and one kernel compile to a shared library,
// each run within a time limit.
#pragma once

#include <fusebox/backend/kernel.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace fusebox::host {

inline constexpr double kDefaultCompileTimeoutSeconds = 300;

class HostCompiler {
 public:
  // `timeout_seconds` > 0, else $FUSEBOX_HOST_CXX_TIMEOUT, else the default
  // (an environment value that is not a positive number is a UserError).
  HostCompiler(const std::string& configured, double timeout_seconds);

  // Runs `<compiler> --version` and `-dumpmachine` once (log files go to
  // `scratch`); throws UserError when the compiler cannot be run.
  void probe(const std::filesystem::path& scratch);
  const std::string& version() const { return version_; }  // first line of --version
  const std::string& machine() const { return machine_; }  // e.g. x86_64-linux-gnu
  const std::vector<std::string>& command() const { return command_; }

  // Every flag a kernel compile gets, the kernel's own -D/-U options included
  // (the rest of KernelSource::options are NVRTC's and are not passed).
  std::vector<std::string> flags(const KernelSource& kernel) const;

  double timeoutSeconds() const { return timeout_seconds_; }

  // Compiles `source_file` into `library`; on failure returns false and the
  // compiler's output in `log`. A compile that runs past the time limit is
  // killed (with everything it started) and is a UserError naming the
  // compiler, the kernel and the limit.
  bool compile(const std::string& kernel_name, const std::vector<std::string>& flags,
               const std::filesystem::path& include_dir, const std::filesystem::path& source_file,
               const std::filesystem::path& library, std::string* log) const;

 private:
  // The UserError message of a run stopped at the time limit.
  std::string timeoutExceeded(const std::string& what) const;

  std::vector<std::string> command_;
  double timeout_seconds_;
  std::once_flag probed_;
  std::string version_, machine_;
};

}  // namespace fusebox::host
