#include "backend/host/host_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/error.h>

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

}  // namespace

HostCompiler::HostCompiler(const std::string& configured) {
  std::string chosen = configured;
  if (chosen.empty())
    if (const char* env = std::getenv("FUSEBOX_HOST_CXX"); env && *env) chosen = env;
  if (chosen.empty()) chosen = FUSEBOX_HOST_CXX_DEFAULT;
  command_ = splitWords(chosen);
  if (command_.empty()) command_ = {FUSEBOX_HOST_CXX_DEFAULT};
}

void HostCompiler::probe(const std::filesystem::path& scratch) {
  std::call_once(probed_, [&] {
    auto ask = [&](const std::string& flag) {
      std::vector<std::string> argv = command_;
      argv.push_back(flag);
      const std::filesystem::path log = scratch / "compiler-probe.log";
      const ProcessResult r = runProcess(argv, log);
      const std::string out = readFileText(log);
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
                                    "-Wno-unknown-pragmas"};
  for (const std::string& option : kernel.options)
    if (option.rfind("-D", 0) == 0 || option.rfind("-U", 0) == 0) flags.push_back(option);
  return flags;
}

bool HostCompiler::compile(const std::vector<std::string>& flags,
                           const std::filesystem::path& include_dir,
                           const std::filesystem::path& source_file,
                           const std::filesystem::path& library, std::string* log) const {
  std::vector<std::string> argv = command_;
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-I", include_dir.string(), "-x", "c++", source_file.string(), "-x",
                           "none", "-o", library.string()});
  std::filesystem::path log_file = library;
  log_file.replace_extension(".log");
  const ProcessResult r = runProcess(argv, log_file);
  *log = readFileText(log_file);
  std::error_code ec;
  std::filesystem::remove(log_file, ec);
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
