// Shared pieces of the host backend tests: one backend per test binary (kernels
// compile once), launch helpers, and a capture for cache warnings.
#pragma once

#include <fusebox/backend/host_backend.h>
#include <fusebox/backend/kernel.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fusebox::testing {

// A host backend shared by the tests of this binary. ctest runs each test in
// its own process, so its disk cache lives in the build tree: kernels compile
// once per build, not once per test.
inline Backend& sharedHostBackend() {
  static std::unique_ptr<Backend> backend = [] {
    HostBackendOptions options;
    options.cache.directory = std::filesystem::path(FUSEBOX_BINARY_DIR) / "tests" / "kernel_cache";
    return makeHostBackend(options);
  }();
  return *backend;
}

inline LaunchConfig launchConfig(std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                                 uint32_t dynamic_shared = 0) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.dynamic_shared_memory = dynamic_shared;
  return c;
}

inline KernelSource kernelSource(std::string name, std::string source, bool uses_block_sync) {
  KernelSource k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.uses_block_sync = uses_block_sync;
  return k;
}

// A tiny kernel writing `value`; distinct values are distinct cache keys.
inline KernelSource tinyKernel(int value) {
  return kernelSource("store_" + std::to_string(value),
                      "#include <fusebox_runtime.cuh>\nextern \"C\" __global__ void store_" +
                          std::to_string(value) +
                          "(fusebox::KernelParams p) { static_cast<int*>(p.ptr[0])[0] = " +
                          std::to_string(value) + "; }\n",
                      false);
}

inline int runTiny(CompiledKernel& kernel) {
  int out = 0;
  KernelParams p{};
  p.ptr[0] = &out;
  kernel.launch(launchConfig({1, 1, 1}, {1, 1, 1}), p);
  return out;
}

// Collects the warnings a KernelCache reports.
struct WarningLog {
  std::mutex mutex;
  std::vector<std::string> messages;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& m) {
      std::lock_guard lock(mutex);
      messages.push_back(m);
    };
  }
  std::string all() {
    std::lock_guard lock(mutex);
    std::string out;
    for (const auto& m : messages) out += m + "\n";
    return out;
  }
};

}  // namespace fusebox::testing
