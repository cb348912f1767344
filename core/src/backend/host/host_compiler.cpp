#include "backend/host/host_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/error.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "backend/host/process.h"

#ifndef FUSEBOX_HOST_CXX_DEFAULT
#define FUSEBOX_HOST_CXX_DEFAULT "c++"
#endif

namespace fusebox::host {
namespace {

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string firstLine(const std::string& text) {
  const size_t end = text.find('\n');
  return text.substr(0, end);
}

constexpr uint64_t kMaxLogBytes = uint64_t{1} << 20;  // more is never read

double timeoutFromEnvironment() {
  const char* env = std::getenv("FUSEBOX_HOST_CXX_TIMEOUT");
  if (env == nullptr || *env == '\0') return kDefaultCompileTimeoutSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(env, &end);
  if (end == env || *end != '\0' || !(seconds > 0) || !std::isfinite(seconds))
    throw UserError(fmt::format(
        "FUSEBOX_HOST_CXX_TIMEOUT={}: expected the seconds a compile may take, a number above 0",
        displayText(env)));
  return seconds;
}

}  // namespace

HostCompiler::HostCompiler(const std::string& configured, double timeout_seconds)
    : timeout_seconds_(timeout_seconds > 0 ? timeout_seconds : timeoutFromEnvironment()) {
  std::string chosen = configured;
  if (chosen.empty())
    if (const char* env = std::getenv("FUSEBOX_HOST_CXX"); env && *env) chosen = env;
  if (chosen.empty()) chosen = FUSEBOX_HOST_CXX_DEFAULT;
  command_ = splitWords(chosen);
  if (command_.empty()) command_ = {FUSEBOX_HOST_CXX_DEFAULT};
}

std::string HostCompiler::timeoutExceeded(const std::string& what) const {
  return fmt::format(
      "host backend: the C++ compiler `{}` did not finish {} within {} s and was stopped; "
      "raise the limit with FUSEBOX_HOST_CXX_TIMEOUT=<seconds> if it is just slow",
      fmt::join(command_, " "), what, timeout_seconds_);
}

void HostCompiler::probe(const std::filesystem::path& scratch) {
  std::call_once(probed_, [&] {
    auto ask = [&](const std::string& flag) {
      std::vector<std::string> argv = command_;
      argv.push_back(flag);
      const std::filesystem::path log = scratch / "compiler-probe.log";
      const ProcessResult r = runProcess(argv, log, timeout_seconds_);
      const std::string out = readOutputFile(log, kMaxLogBytes);
      if (r.timed_out) throw UserError(timeoutExceeded(fmt::format("running `{}`", flag)));
      if (!r.started || r.exit_code != 0)
        throw UserError(fmt::format(
            "host backend: cannot run the C++ compiler `{}` ({}); install one or set "
            "FUSEBOX_HOST_CXX to a C++20 compiler",
            fmt::join(command_, " "),
            r.started
                ? fmt::format("`{}` exited with status {}: {}", flag, r.exit_code, firstLine(out))
                : r.error));
      return firstLine(out);
    };
    version_ = ask("--version");
    machine_ = ask("-dumpmachine");
  });
}

std::vector<std::string> HostCompiler::flags(const KernelSource& kernel) const {
  std::vector<std::string> flags = {"-O2", "-std=c++20", "-shared", "-fPIC", "-fvisibility=hidden",
                                    // Kernels may carry CUDA's `#pragma unroll`.
                                    "-Wno-unknown-pragmas",
                                    // GCC 12.2's SLP vectorizer turns a double -> float ->
                                    // double round trip over a 2-double vector into a plain
                                    // copy (found by the fuzzer; docs/backends.md).
                                    "-fno-tree-slp-vectorize"};
  for (const std::string& option : kernel.options)
    if (option.rfind("-D", 0) == 0 || option.rfind("-U", 0) == 0) flags.push_back(option);
  return flags;
}

bool HostCompiler::compile(const std::string& kernel_name, const std::vector<std::string>& flags,
                           const std::filesystem::path& include_dir,
                           const std::filesystem::path& source_file,
                           const std::filesystem::path& library, std::string* log) const {
  std::vector<std::string> argv = command_;
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-I", include_dir.string(), "-x", "c++", source_file.string(), "-x",
                           "none", "-o", library.string()});
  std::filesystem::path log_file = library;
  log_file.replace_extension(".log");
  const ProcessResult r = runProcess(argv, log_file, timeout_seconds_);
  *log = readOutputFile(log_file, kMaxLogBytes);
  std::error_code ec;
  std::filesystem::remove(log_file, ec);
  if (r.timed_out)
    throw UserError(timeoutExceeded(fmt::format("compiling kernel {}", kernel_name)));
  if (!r.started) {
    *log = fmt::format("cannot run `{}`: {}\n", fmt::join(command_, " "), r.error);
    return false;
  }
  if (r.exit_code != 0) {
    *log += fmt::format("\n[{} exited with status {}]\n", fmt::join(command_, " "), r.exit_code);
    return false;
  }
  return true;
}

}  // namespace fusebox::host
