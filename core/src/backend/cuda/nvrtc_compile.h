// Kernel source to a cubin for one device architecture with NVRTC. The device
// runtime's headers (<fusebox_runtime.cuh> and its parts) are handed to NVRTC
// from memory, so nothing is read from the install tree.
#pragma once

#include <fusebox/backend/kernel.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fusebox::cuda {

class NvrtcCompiler {
 public:
  // `device_arch`: 90 for sm_90. Picks the architecture to compile for (the
  // device's own, or the newest NVRTC knows of the same major version, whose
  // cubins the device runs) and throws UserError when there is none.
  NvrtcCompiler(int device_arch, std::vector<std::string> extra_options);

  int arch() const { return arch_; }
  // "NVRTC 13.0 (libnvrtc.so.13)".
  std::string describe() const;
  // "NVRTC 13.0": part of the kernel cache key.
  std::string version() const;
  // Every option passed to NVRTC for `kernel`.
  std::vector<std::string> options(const KernelSource& kernel) const;

  // Compiles to a cubin. A compile failure writes the source and NVRTC's log
  // to `failure_dir`/<name>-<hash>.cu and .log and throws UserError naming both.
  std::string compile(const KernelSource& kernel, const std::filesystem::path& failure_dir) const;
  // ptxas's resource report on `kernel` (its -v lines: registers, spills,
  // shared memory), compiling without writing any file; a failure throws
  // UserError with NVRTC's log.
  std::string ptxasReport(const KernelSource& kernel) const;

 private:
  // `opts` for NVRTC; an empty `failure_dir` writes no files on a failure.
  // With `log`, NVRTC's log of a successful compile.
  std::string compileProgram(const KernelSource& kernel, const std::vector<std::string>& opts,
                             const std::filesystem::path& failure_dir, std::string* log) const;
  int arch_ = 0;
  std::vector<std::string> extra_options_;
};

}  // namespace fusebox::cuda
