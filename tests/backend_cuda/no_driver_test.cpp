// The cuda backend on machines without a GPU or driver (CI): creating it is a
// clear UserError, and nothing else in the core's libraries opens libcuda, NVRTC
// or cuBLAS. These tests run everywhere.
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>

#include <fstream>
#include <string>

#include "backend_cuda/cuda_test_util.h"

namespace fusebox {
namespace {

using test::userErrorOf;
using ::testing::HasSubstr;

bool builtWithoutToolkit() {
  return cudaAvailable().reason.find("without the CUDA toolkit") != std::string::npos;
}

// The lines of /proc/self/maps that mention `library`.
std::string mappedLines(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line))
    if (line.find(library) != std::string::npos) found += line + "\n";
  return found;
}

TEST(CudaNoDriver, AvailabilityAlwaysAnswers) {
  CudaAvailability a = cudaAvailable();
  if (a.available)
    EXPECT_GT(a.device_count, 0);
  else
    EXPECT_FALSE(a.reason.empty());
}

// On a machine without the driver (CI) this is the real thing; elsewhere it is
// skipped and the next test covers the same path with a library that is absent.
TEST(CudaNoDriver, CreatingTheBackendWithoutTheDriverIsAUserError) {
  CudaAvailability a = cudaAvailable();
  if (a.available || a.reason.find("libcuda.so.1") == std::string::npos)
    GTEST_SKIP() << "a CUDA driver is present (or the toolkit is absent): " << a.reason;
  std::string message = userErrorOf([] { createCudaBackend(); });
  EXPECT_THAT(message, HasSubstr("no CUDA driver found (libcuda.so.1): "));
}

// The driver library is opened once per process, so each case runs in a fresh
// child process ("threadsafe" death tests re-run this binary).
TEST(CudaNoDriverDeathTest, AMissingDriverLibraryIsAUserError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Nothing before the child's setenv may touch the driver (the child re-runs
  // this body), so the expectation covers a build without the toolkit too.
  const std::string expected =
      "caught: (no CUDA driver found \\(/nonexistent/libcuda.so.1\\): .*No such file|this "
      "fusebox was built without the CUDA toolkit)";
  EXPECT_EXIT(
      {
        setenv("FUSEBOX_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
        CudaAvailability a = cudaAvailable();
        if (a.available) exit(2);
        try {
          createCudaBackend();
        } catch (const UserError& e) {
          fprintf(stderr, "caught: %s\n", e.what());
          exit(0);
        }
        exit(1);
      },
      ::testing::ExitedWithCode(0), expected);
}

TEST(CudaNoDriverDeathTest, HostPathsNeverOpenTheCudaLibraries) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // Build and evaluate a small fusion, make tensors, ask for the host's
        // device properties: none of it may load a CUDA library.
        Fusion f;
        auto* a = defineTensor(f, {-1, -1}, DataType::Float);
        auto* b = defineTensor(f, {-1, -1}, DataType::Float);
        f.addOutput(matmul(a, b));
        Tensor x = Tensor::empty(DataType::Float, {2, 2});
        auto out = evaluateFusion(f, {x, x});
        DeviceProperties host;
        std::string mapped =
            mappedLines("libcuda") + mappedLines("libnvrtc") + mappedLines("libcublas");
        if (!mapped.empty() || host.is_gpu || out.size() != 1) {
          fprintf(stderr, "loaded:\n%s\n", mapped.c_str());
          exit(1);
        }
        fprintf(stderr, "no CUDA library mapped\n");
        exit(0);
      },
      ::testing::ExitedWithCode(0), "no CUDA library mapped");
}

TEST(CudaNoDriver, CudaOnlyCallsRefuseOtherBackends) {
  // A Backend that is not the cuda one (a minimal stand-in).
  struct OtherBackend : Backend {
    BackendKind kind() const override { return BackendKind::Host; }
    std::string describe() const override { return "other"; }
    std::shared_ptr<CompiledKernel> compile(const KernelSource&, CompileTimings*) override {
      return nullptr;
    }
    Tensor allocate(DataType, const std::vector<int64_t>&, const std::vector<int64_t>&) override {
      return {};
    }
    Tensor toBackend(const Tensor& t) override { return t; }
    Tensor toHost(const Tensor& t) override { return t; }
    void memsetZero(const Tensor&) override {}
    void copy(const Tensor&, const Tensor&) override {}
    void synchronize() override {}
  } other;
  EXPECT_FALSE(queryDeviceProperties(other).is_gpu);
  EXPECT_THAT(userErrorOf([&] { deviceAllocatorStats(other); }),
              HasSubstr(builtWithoutToolkit() ? "without the CUDA toolkit"
                                              : "needs a cuda backend, not other"));
}

}  // namespace
}  // namespace fusebox
