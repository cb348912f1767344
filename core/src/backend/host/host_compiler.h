// The system C++ compiler as the host backend uses it: which one (configured,
// $FUSEBOX_HOST_CXX, or the one fusebox was built with), its version and
// target (part of every cache key), and one kernel compile to a shared library.
#pragma once

#include <fusebox/backend/kernel.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace fusebox::host {

class HostCompiler {
 public:
  explicit HostCompiler(const std::string& configured);

  // Runs `<compiler> --version` and `-dumpmachine` once (log files go to
  // `scratch`); throws UserError when the compiler cannot be run.
  void probe(const std::filesystem::path& scratch);
  const std::string& version() const { return version_; }  // first line of --version
  const std::string& machine() const { return machine_; }  // e.g. x86_64-linux-gnu
  const std::vector<std::string>& command() const { return command_; }

  // Every flag a kernel compile gets, the kernel's own -D/-U options included
  // (the rest of KernelSource::options are NVRTC's and are not passed).
  std::vector<std::string> flags(const KernelSource& kernel) const;

  // Compiles `source_file` into `library`; on failure returns false and the
  // compiler's output in `log`.
  bool compile(const std::vector<std::string>& flags, const std::filesystem::path& include_dir,
               const std::filesystem::path& source_file, const std::filesystem::path& library,
               std::string* log) const;

 private:
  std::vector<std::string> command_;
  std::once_flag probed_;
  std::string version_, machine_;
};

}  // namespace fusebox::host
