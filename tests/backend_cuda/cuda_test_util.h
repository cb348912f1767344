// Shared by the cuda backend tests: a fixture that skips without a GPU, host
// tensors from values, and the KernelParams prelude for hand-written kernels.
#pragma once

#include <fusebox/backend/cuda_backend.h>
#include <fusebox/error.h>
#include <fusebox/tensor.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/row_major_fill.h"

#include <memory>
#include <string>
#include <vector>

namespace fusebox::test {

// Skips the test (GTEST_SKIP) when no GPU can be used here, saying why.
#define FUSEBOX_REQUIRE_GPU()                                                           \
  do {                                                                                  \
    static const ::fusebox::CudaAvailability availability = ::fusebox::cudaAvailable(); \
    if (!availability.available) GTEST_SKIP() << availability.reason;                   \
  } while (0)

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FUSEBOX_REQUIRE_GPU();
    backend_ = createCudaBackend(options());
  }
  virtual CudaBackendOptions options() {
    CudaBackendOptions o;
    o.cache.disk = false;  // each test compiles what it launches
    return o;
  }
  Backend& backend() { return *backend_; }
  std::unique_ptr<Backend> backend_;
};

// The message of the UserError `fn` throws ("" when it throws none).
template <class F>
std::string userErrorOf(F&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// A row-major host tensor holding `values` (converted to dtype).
inline Tensor hostTensor(DataType dtype, std::vector<int64_t> sizes,
                         const std::vector<double>& values) {
  Tensor t = Tensor::empty(dtype, sizes);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel());
  if (static_cast<int64_t>(values.size()) == t.numel())
    testing::fillRowMajor(t, [&](int64_t i) { return values[static_cast<size_t>(i)]; });
  return t;
}

// The kernels below include the device runtime for KernelParams.
inline const char* kRuntimeInclude = "#include <fusebox_runtime.cuh>\n";

}  // namespace fusebox::test
