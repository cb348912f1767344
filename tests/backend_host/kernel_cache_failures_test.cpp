// The failures/ folder of the kernel cache (where a failed compile's source
// and log go) gets the trust checks the cache folder gets: a link to another
// folder, or a folder others can write, is not used; a file planted at a
// failure file's name (a FIFO) is replaced, never opened.
#include <fusebox/backend/kernel_cache.h>
#include <fusebox/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "backend_host/host_test_util.h"
#include "support/hang_guard.h"
#include "support/temp_dir.h"

namespace fusebox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KernelSource brokenKernel() {
  return kernelSource("broken_on_purpose",
                      "#include <fusebox_runtime.cuh>\nextern \"C\" __global__ void "
                      "broken_on_purpose(fusebox::KernelParams p) {\n  undeclared_name = 1;\n}\n",
                      false);
}

// The file a failed compile's message names.
std::string failureFileOf(const std::string& message) {
  const size_t end = message.find(".cpp");
  const size_t start = message.rfind(' ', end);
  if (end == std::string::npos || start == std::string::npos) return "";
  return message.substr(start + 1, end + 4 - start - 1);
}

// Compiles the broken kernel in a fresh backend on `cache`; its error message.
std::string compileBroken(const std::filesystem::path& cache, WarningLog* log) {
  HostBackendOptions options;
  options.cache.directory = cache;
  options.cache.warn = log->sink();
  try {
    makeHostBackend(options)->compile(brokenKernel());
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the broken kernel compiled";
  return "";
}

std::string contents(const std::string& file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

TEST(KernelCacheFailures, LinkedFailuresFolderIsNotUsed) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache", elsewhere = dir.path() / "elsewhere";
  std::filesystem::create_directories(cache);
  std::filesystem::create_directories(elsewhere);
  ::chmod(cache.c_str(), 0700);
  std::filesystem::create_directory_symlink(elsewhere, cache / "failures");

  const std::string message = compileBroken(cache, &log);
  EXPECT_THAT(message, HasSubstr("does not compile"));
  const std::string file = failureFileOf(message);
  ASSERT_FALSE(file.empty()) << message;
  EXPECT_THAT(file, Not(HasSubstr(cache.string())));
  EXPECT_THAT(contents(file), HasSubstr("undeclared_name = 1;"));
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));  // nothing written through the link
  EXPECT_THAT(log.all(), HasSubstr((cache / "failures").string() + " is not used"));
  EXPECT_THAT(log.all(), HasSubstr("it is a symbolic link, not a folder"));
}

TEST(KernelCacheFailures, FailuresFolderWritableByOthersIsNotUsed) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache";
  std::filesystem::create_directories(cache / "failures");
  ::chmod(cache.c_str(), 0700);
  ASSERT_EQ(::chmod((cache / "failures").c_str(), 0777), 0);

  const std::string file = failureFileOf(compileBroken(cache, &log));
  ASSERT_FALSE(file.empty());
  EXPECT_THAT(file, Not(HasSubstr(cache.string())));
  EXPECT_THAT(log.all(), HasSubstr("writable by others (mode 0777)"));
}

TEST(KernelCacheFailures, FifoAtTheFailureFileIsReplacedWithoutBlocking) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache";
  const std::string file = failureFileOf(compileBroken(cache, &log));
  ASSERT_THAT(file, HasSubstr((cache / "failures").string()));
  std::filesystem::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);

  HangGuard guard;  // opening a FIFO for writing blocks until a reader comes
  EXPECT_EQ(failureFileOf(compileBroken(cache, &log)), file);
  EXPECT_TRUE(std::filesystem::is_regular_file(file));
  EXPECT_THAT(contents(file), HasSubstr("undeclared_name = 1;"));
  EXPECT_EQ(log.all(), "");
}

}  // namespace
}  // namespace fusebox::testing
