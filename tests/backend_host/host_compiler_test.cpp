// The host compiler as something that can go wrong: fake compilers (shell
// scripts standing in for FUSEBOX_HOST_CXX) that never finish, that write
// something other than a library, or that find the disk full.
#include <fusebox/backend/kernel_cache.h>
#include <fusebox/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "backend_host/host_test_util.h"
#include "support/hang_guard.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

namespace fusebox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A script that answers the probe (--version, -dumpmachine) with the real
// compiler and runs `compile` (sh, with $out the -o file) for a kernel.
std::string fakeCompiler(const TempDir& dir, const std::string& compile) {
  const std::filesystem::path script = dir.write(
      "fake-cxx.sh", std::string("#!/bin/sh\ncase \"$1\" in --version|-dumpmachine) exec '") +
                         FUSEBOX_TEST_CXX +
                         "' \"$1\";; esac\n"
                         "out=\nfor a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n" +
                         compile + "\n");
  return "sh " + script.string();
}

std::unique_ptr<Backend> backendWith(const std::string& compiler,
                                     const std::filesystem::path& cache, WarningLog* log,
                                     double timeout_seconds = 0) {
  HostBackendOptions options;
  options.compiler = compiler;
  options.compile_timeout_seconds = timeout_seconds;
  options.cache.directory = cache;
  options.cache.memory = true;
  options.cache.disk = true;
  options.cache.warn = log->sink();
  return makeHostBackend(options);
}

std::string compileError(Backend& backend, const KernelSource& kernel) {
  try {
    backend.compile(kernel);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, name, state;
  if (!(stat >> pid_text >> name >> state)) return false;
  return state != "Z";  // a zombie has ended; its parent has not reaped it yet
}

// Whether `pid` ends soon: a SIGKILL sent is not yet a process gone, so this
// waits (up to a minute, far above what the kernel needs) for it to go.
bool endsSoon(pid_t pid) {
  for (int i = 0; i < 6000 && running(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !running(pid);
}

TEST(HostCompiler, CompilerThatNeverFinishesIsStoppedWithItsChildren) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path pid_file = dir.path() / "sleep.pid";
  const std::string compiler =
      fakeCompiler(dir, "sleep 1000 &\necho $! > '" + pid_file.string() + "'\nwait");
  auto backend = backendWith(compiler, dir.path() / "cache", &log, /*timeout_seconds=*/2);
  HangGuard guard;
  const std::string message = compileError(*backend, tinyKernel(31));
  EXPECT_THAT(message, HasSubstr("the C++ compiler `" + compiler + "`"));
  EXPECT_THAT(message, HasSubstr("did not finish compiling kernel store_31 within 2 s"));
  EXPECT_THAT(message, HasSubstr("FUSEBOX_HOST_CXX_TIMEOUT"));
  pid_t sleeper = 0;
  std::ifstream(pid_file) >> sleeper;
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(endsSoon(sleeper)) << "the compiler's child was left running";
  if (running(sleeper)) ::kill(sleeper, SIGKILL);
}

TEST(HostCompiler, TimeoutComesFromTheEnvironment) {
  TempDir dir;
  WarningLog log;
  {
    ScopedEnv timeout("FUSEBOX_HOST_CXX_TIMEOUT", "1.5");
    auto backend = backendWith(fakeCompiler(dir, "exec sleep 1000"), dir.path() / "cache", &log);
    HangGuard guard;
    EXPECT_THAT(compileError(*backend, tinyKernel(32)), HasSubstr("within 1.5 s"));
  }
  for (const char* bad : {"soon", "0", "-3", "inf", "5s"}) {
    ScopedEnv timeout("FUSEBOX_HOST_CXX_TIMEOUT", bad);
    try {
      backendWith("", dir.path() / "cache", &log);
      ADD_FAILURE() << "accepted FUSEBOX_HOST_CXX_TIMEOUT=" << bad;
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("FUSEBOX_HOST_CXX_TIMEOUT=") + bad +
                                      ": expected the seconds a compile may take"));
    }
  }
}

TEST(HostCompiler, OutputThatIsNotALibraryIsAClearError) {
  TempDir dir;
  WarningLog log;
  auto backend =
      backendWith(fakeCompiler(dir, "echo 'not a library' > \"$out\""), dir.path() / "cache", &log);
  const std::string message = compileError(*backend, tinyKernel(33));
  EXPECT_THAT(message, HasSubstr("cannot load the library of kernel store_33 built by `sh "));
}

TEST(HostCompiler, OutputThatIsAFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  WarningLog log;
  auto backend = backendWith(fakeCompiler(dir, "mkfifo \"$out\""), dir.path() / "cache", &log);
  HangGuard guard;
  const std::string message = compileError(*backend, tinyKernel(34));
  EXPECT_THAT(message, HasSubstr("no library for kernel store_34"));
  EXPECT_THAT(message, HasSubstr("is a named pipe (FIFO), not a regular file"));
}

TEST(HostCompiler, FullDiskUnderTheCacheFallsBackToTheTemporaryFolder) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache";
  // Full where the cache is (the scratch folder starts there), fine elsewhere.
  const std::string compiler = fakeCompiler(
      dir, "case \"$out\" in '" + cache.string() +
               "'/*) echo 'ld: final link failed: No space left on device' >&2; exit 1;; esac\n"
               "exec '" +
               FUSEBOX_TEST_CXX + "' \"$@\"");
  auto backend = backendWith(compiler, cache, &log);
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(35))), 35);
  KernelCache* kernel_cache = hostKernelCache(*backend);
  EXPECT_FALSE(kernel_cache->diskEnabled());
  EXPECT_EQ(kernel_cache->stats().disk_writes, 0);
  EXPECT_THAT(kernel_cache->scratchDirectory().string(), Not(HasSubstr(cache.string())));
  EXPECT_THAT(log.all(), HasSubstr("the disk holding " + cache.string()));
  EXPECT_THAT(log.all(), HasSubstr("is full (\"No space left on device\")"));
  EXPECT_THAT(log.all(), HasSubstr("the disk cache (" + cache.string() +
                                   ") is off for the rest of this process"));
  // A second kernel goes straight to the temporary folder.
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(36))), 36);
}

TEST(HostCompiler, FullDiskEverywhereSaysSoInsteadOfDoesNotCompile) {
  TempDir dir;
  WarningLog log;
  auto backend = backendWith(
      fakeCompiler(dir, "echo 'ld: final link failed: No space left on device' >&2; exit 1"),
      dir.path() / "cache", &log);
  const std::string message = compileError(*backend, tinyKernel(37));
  EXPECT_THAT(message, HasSubstr("cannot compile kernel store_37: the disk holding"));
  EXPECT_THAT(message, HasSubstr("is full"));
  EXPECT_THAT(message, HasSubstr("free some space"));
  EXPECT_THAT(message, Not(HasSubstr("does not compile")));
}

}  // namespace
}  // namespace fusebox::testing
