// The base of the suites that run shared cases on the cuda backend: every
// test skips without a usable GPU (the reason says why), and the suite's
// tests share one backend (and so its kernel cache).
#pragma once

#include <fusebox/backend/cuda_backend.h>
#include <gtest/gtest.h>

#include <memory>

namespace fusebox::test {

class CudaSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaAvailability a = cudaAvailable();
    if (!a.available) GTEST_SKIP() << a.reason;
  }
  static Backend& backend() {
    static std::unique_ptr<Backend> b = createCudaBackend();
    return *b;
  }
};

}  // namespace fusebox::test
