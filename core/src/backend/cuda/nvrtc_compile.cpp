#include "backend/cuda/nvrtc_compile.h"

#include <fmt/ranges.h>
#include <fusebox/backend/runtime_sources.h>
#include <fusebox/error.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "backend/cuda/nvrtc_api.h"
#include "file_access.h"

namespace fusebox::cuda {
namespace {

// FNV-1a, for short stable names of failure files (not for the cache key).
uint64_t fnv1a(std::string_view text, uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string nvrtcError(nvrtcResult result) {
  const char* text = nvrtc().getErrorString(result);
  return text ? text : fmt::format("NVRTC error {}", static_cast<int>(result));
}

void checkNvrtc(nvrtcResult result, std::string_view what) {
  if (result != NVRTC_SUCCESS) throw UserError(fmt::format("{}: {}", what, nvrtcError(result)));
}

std::string programLog(nvrtcProgram program) {
  const NvrtcApi& api = nvrtc();
  size_t size = 0;
  if (api.getProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (api.getProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

// Replaces whatever is at `path` (a planted FIFO or link is never opened).
void writeFile(const std::filesystem::path& path, const std::string& text) {
  if (const int err = writeFileReplacing(path, text); err != 0)
    throw UserError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
}

// The first `max_lines` lines of `text`, with a note when more follow.
std::string firstLines(const std::string& text, int max_lines) {
  std::istringstream in(text);
  std::string line, out;
  int n = 0;
  while (std::getline(in, line)) {
    if (n++ == max_lines) return out + "...\n";
    out += line + "\n";
  }
  return out;
}

}  // namespace

NvrtcCompiler::NvrtcCompiler(int device_arch, std::vector<std::string> extra_options)
    : extra_options_(std::move(extra_options)) {
  const NvrtcApi& api = nvrtc();
  // A cubin for sm_XY runs on sm_XZ for Z >= Y: fall back within the major version.
  int best = 0;
  for (int a : api.archs)
    if (a / 10 == device_arch / 10 && a <= device_arch) best = std::max(best, a);
  if (api.archs.empty()) best = device_arch;  // NVRTC did not say: try the device's own
  if (best == 0)
    throw UserError(fmt::format("NVRTC {}.{} ({}) cannot compile for sm_{} (it supports sm_{})",
                                api.major, api.minor, api.library, device_arch,
                                fmt::join(api.archs, ", sm_")));
  arch_ = best;
}

std::string NvrtcCompiler::describe() const {
  const NvrtcApi& api = nvrtc();
  return fmt::format("NVRTC {}.{} ({})", api.major, api.minor, api.library);
}

std::string NvrtcCompiler::version() const {
  const NvrtcApi& api = nvrtc();
  return fmt::format("NVRTC {}.{}", api.major, api.minor);
}

std::vector<std::string> NvrtcCompiler::options(const KernelSource& kernel) const {
  std::vector<std::string> options = {
      fmt::format("--gpu-architecture=sm_{}", arch_),
      "-std=c++17",
      // Every function is a device function unless marked: the runtime's
      // helpers need no __device__ of their own.
      "-default-device",
  };
  options.insert(options.end(), extra_options_.begin(), extra_options_.end());
  options.insert(options.end(), kernel.options.begin(), kernel.options.end());
  return options;
}

std::string NvrtcCompiler::compile(const KernelSource& kernel,
                                   const std::filesystem::path& failure_dir) const {
  return compileProgram(kernel, options(kernel), failure_dir, nullptr);
}

std::string NvrtcCompiler::ptxasReport(const KernelSource& kernel) const {
  std::vector<std::string> opts = options(kernel);
  opts.push_back("--ptxas-options=-v");
  std::string log;
  compileProgram(kernel, opts, {}, &log);
  // ptxas's lines, without NVRTC's own warnings or ptxas's compile time
  // (which changes from run to run).
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("ptxas") != std::string::npos && line.find("Compile time") == std::string::npos)
      out += line + "\n";
  return out;
}

std::string NvrtcCompiler::compileProgram(const KernelSource& kernel,
                                          const std::vector<std::string>& opts,
                                          const std::filesystem::path& failure_dir,
                                          std::string* log_out) const {
  const NvrtcApi& api = nvrtc();
  const auto& headers = embeddedRuntimeHeaders();
  std::vector<const char*> header_texts, header_names;
  for (const auto& header : headers) {
    header_names.push_back(header.name.c_str());
    header_texts.push_back(header.text.c_str());
  }
  const std::string program_name = kernel.name + ".cu";
  nvrtcProgram program = nullptr;
  checkNvrtc(
      api.createProgram(&program, kernel.source.c_str(), program_name.c_str(),
                        static_cast<int>(headers.size()), header_texts.data(), header_names.data()),
      fmt::format("nvrtcCreateProgram for kernel {}", kernel.name));
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtc().destroyProgram(p); }
  } destroy{&program};

  std::vector<const char*> opt_ptrs;
  for (const auto& o : opts) opt_ptrs.push_back(o.c_str());
  nvrtcResult result =
      api.compileProgram(program, static_cast<int>(opt_ptrs.size()), opt_ptrs.data());
  if (result != NVRTC_SUCCESS && failure_dir.empty())
    throw UserError(fmt::format("NVRTC failed to compile kernel {} for sm_{}: {}\n{}", kernel.name,
                                arch_, nvrtcError(result), firstLines(programLog(program), 20)));
  if (result != NVRTC_SUCCESS) {
    const std::string log = programLog(program);
    std::filesystem::create_directories(failure_dir);
    const std::string stem = fmt::format("{}-{:016x}", kernel.name,
                                         fnv1a(kernel.source, fnv1a(fmt::format("{}", opts))));
    const auto source_path = failure_dir / (stem + ".cu");
    const auto log_path = failure_dir / (stem + ".log");
    writeFile(source_path, kernel.source);
    writeFile(log_path, fmt::format("{} failed to compile kernel {} ({}).\nsource: {}\noptions: "
                                    "{}\n\n{}",
                                    describe(), kernel.name, nvrtcError(result),
                                    source_path.string(), fmt::join(opts, " "), log));
    throw UserError(fmt::format(
        "NVRTC failed to compile kernel {} for sm_{}: {}\nthe source is in {}\nthe log is in "
        "{}\n{}",
        kernel.name, arch_, nvrtcError(result), source_path.string(), log_path.string(),
        firstLines(log, 20)));
  }
  if (log_out != nullptr) *log_out = programLog(program);
  size_t size = 0;
  checkNvrtc(api.getCubinSize(program, &size), "nvrtcGetCUBINSize");
  std::string cubin(size, '\0');
  checkNvrtc(api.getCubin(program, cubin.data()), "nvrtcGetCUBIN");
  return cubin;
}

}  // namespace fusebox::cuda
