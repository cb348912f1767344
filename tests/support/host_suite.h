// What the host-backend suites share: one host backend a test binary (its
// kernel cache, in memory and on disk unless FUSEBOX_KERNEL_CACHE says
// otherwise, spares recompiles) and the device shape the heuristics plan for.
#pragma once

#include <fusebox/backend/host_backend.h>
#include <fusebox/scheduler.h>

#include <memory>

namespace fusebox::test {

inline Backend& hostBackend() {
  static std::unique_ptr<Backend> b = makeHostBackend();
  return *b;
}

// An H100's SM count, so the heuristics pick the blocks and splits a GPU gets.
inline DeviceProperties h100Shape() {
  DeviceProperties d;
  d.multiprocessor_count = 132;
  return d;
}

}  // namespace fusebox::test
