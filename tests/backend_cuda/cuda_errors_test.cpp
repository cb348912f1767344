// What the cuda backend says when things go wrong: a kernel NVRTC rejects, a
// module without the named function, a launch the driver refuses, an error
// that surfaces at synchronize, and bad tensors handed to it.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "backend_cuda/cuda_test_util.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::hostTensor;
using test::userErrorOf;
using ::testing::HasSubstr;

class CudaErrorsTest : public CudaTest {};

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The path after `label` on its own line of `message`.
std::filesystem::path pathAfter(const std::string& message, const std::string& label) {
  std::smatch match;
  if (!std::regex_search(message, match, std::regex(label + " (\\S+)"))) return {};
  return match[1].str();
}

TEST_F(CudaErrorsTest, CompileErrorNamesTheSourceAndLogFiles) {
  const std::string source = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void broken(fusebox::KernelParams p) {
  float x = undeclared_name + 1.0f;
}
)";
  std::string message = userErrorOf([&] { backend().compile({"broken", source, {}, false}); });
  ASSERT_THAT(message, HasSubstr("NVRTC failed to compile kernel broken"));
  // The first lines of the log are in the message itself.
  EXPECT_THAT(message, HasSubstr("undeclared_name"));
  const auto log_path = pathAfter(message, "the log is in");
  const auto source_path = pathAfter(message, "the source is in");
  ASSERT_FALSE(log_path.empty()) << message;
  ASSERT_FALSE(source_path.empty()) << message;
  ASSERT_TRUE(std::filesystem::exists(log_path)) << log_path;
  ASSERT_TRUE(std::filesystem::exists(source_path)) << source_path;
  EXPECT_EQ(readFile(source_path), source);
  const std::string log = readFile(log_path);
  EXPECT_THAT(log, HasSubstr("undeclared_name"));
  EXPECT_THAT(log, HasSubstr("error"));
  EXPECT_THAT(log, HasSubstr("--gpu-architecture=sm_"));
  EXPECT_THAT(log, HasSubstr(source_path.string()));
}

// $FUSEBOX_NVRTC_OPTIONS reaches NVRTC (split at spaces): a kernel that
// needs the macro it defines compiles with it and fails without it.
TEST(CudaNvrtcOptionsTest, EnvironmentOptionsReachNvrtc) {
  FUSEBOX_REQUIRE_GPU();
  const std::string source = R"(#include <fusebox_runtime.cuh>
#ifndef FUSEBOX_ENV_FLAG
#error FUSEBOX_ENV_FLAG is not defined
#endif
extern "C" __global__ void needs_flag(fusebox::KernelParams p) {}
)";
  auto compileWith = [&](const char* env) {
    if (env != nullptr)
      ::setenv("FUSEBOX_NVRTC_OPTIONS", env, 1);
    else
      ::unsetenv("FUSEBOX_NVRTC_OPTIONS");
    CudaBackendOptions options;
    options.cache.disk = false;
    options.cache.memory = false;
    auto backend = createCudaBackend(options);
    ::unsetenv("FUSEBOX_NVRTC_OPTIONS");
    return userErrorOf([&] { backend->compile({"needs_flag", source, {}, false}); });
  };
  EXPECT_EQ(compileWith(" -lineinfo   -DFUSEBOX_ENV_FLAG=1 "), "");
  EXPECT_THAT(compileWith(nullptr), HasSubstr("FUSEBOX_ENV_FLAG is not defined"));
}

TEST_F(CudaErrorsTest, ModuleWithoutTheNamedFunction) {
  const std::string source = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void actual_name(fusebox::KernelParams p) {}
)";
  std::string message = userErrorOf([&] { backend().compile({"wanted_name", source, {}, false}); });
  EXPECT_THAT(message, HasSubstr("kernel wanted_name"));
  EXPECT_THAT(message, HasSubstr("no function of that name"));
}

constexpr const char* kNoop = R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void noop_kernel(fusebox::KernelParams p) {}
)";

TEST_F(CudaErrorsTest, LaunchTheDriverRefusesNamesTheKernel) {
  auto kernel = backend().compile({"noop_kernel", kNoop, {}, false});
  LaunchConfig config;
  config.block = {2048, 1, 1};  // above every device's 1024 threads per block
  std::string message = userErrorOf([&] { kernel->launch(config, KernelParams{}); });
  EXPECT_THAT(message, HasSubstr("launch of kernel noop_kernel failed"));
  EXPECT_THAT(message, HasSubstr("CUDA_ERROR_INVALID_VALUE"));
  EXPECT_THAT(message, HasSubstr("block [2048, 1, 1]"));
  EXPECT_THAT(message, HasSubstr("at most 1024"));
  // The backend still works afterwards.
  config.block = {32, 1, 1};
  kernel->launch(config, KernelParams{});
  backend().synchronize();
}

// A kernel fault poisons the CUDA context for the rest of the process, so it
// runs in a child process (a "threadsafe" death test re-runs this binary).
TEST(CudaErrorsDeathTest, FaultSurfacingAtSynchronizeNamesTheKernel) {
  FUSEBOX_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CudaBackendOptions options;
        options.cache.disk = false;
        auto backend = createCudaBackend(options);
        auto kernel = backend->compile({"trapping_kernel",
                                        R"(#include <fusebox_runtime.cuh>
extern "C" __global__ void trapping_kernel(fusebox::KernelParams p) { __trap(); }
)",
                                        {},
                                        false});
        kernel->launch(LaunchConfig{}, KernelParams{});
        try {
          backend->synchronize();
        } catch (const UserError& e) {
          fprintf(stderr, "caught: %s\n", e.what());
          exit(0);
        }
        exit(1);
      },
      ::testing::ExitedWithCode(0),
      "caught: CUDA error in synchronize after kernel trapping_kernel: CUDA_ERROR_");
}

TEST_F(CudaErrorsTest, BadTensorsAreUserErrors) {
  Tensor host = hostTensor(DataType::Float, {2}, {1, 2});
  EXPECT_THAT(userErrorOf([&] { backend().toHost(host); }), HasSubstr("is not a GPU tensor"));
  Tensor device = backend().toBackend(host);
  EXPECT_THAT(userErrorOf([&] { backend().toBackend(device); }), HasSubstr("already on the GPU"));
  EXPECT_THAT(userErrorOf([&] { backend().memsetZero(host); }), HasSubstr("not a GPU tensor"));
  // Every other element of a [4] buffer: zeroing its span would clobber the gaps.
  Tensor base = backend().allocate(DataType::Float, {4}, {1});
  Tensor gapped = base.asStrided({2}, {2}, 0);
  EXPECT_THAT(userErrorOf([&] { backend().memsetZero(gapped); }), HasSubstr("has gaps"));
  EXPECT_THAT(userErrorOf([&] {
                backend().allocate(DataType::Float, {2, 2}, {1});
              }),
              HasSubstr("2 sizes but 1 strides"));
}

}  // namespace
}  // namespace fusebox
