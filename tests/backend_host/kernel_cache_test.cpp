// The kernel cache through the host backend: memory and disk hits, a second
// process compiling nothing, corrupt and untrusted entries (another owner, also
// without root in a user namespace; writable by its group or others, mode 000,
// setuid, a FIFO) recompiled (never loaded), untrusted folders unused, the
// cache switched off, parallel compiles of duplicate kernels, compile errors
// naming the file with the source and log.
#include <fmt/format.h>
#include <fusebox/backend/kernel_cache.h>
#include <fusebox/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "backend/sha256.h"
#include "backend_host/host_test_util.h"
#include "support/hang_guard.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"
#include "support/user_namespace.h"

namespace fusebox::testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Backend> makeBackend(const std::filesystem::path& dir, WarningLog* log,
                                     bool memory = true, bool disk = true) {
  HostBackendOptions options;
  options.cache.directory = dir;
  options.cache.memory = memory;
  options.cache.disk = disk;
  if (log) options.cache.warn = log->sink();
  return makeHostBackend(options);
}

KernelCacheStats statsOf(Backend& backend) {
  return hostKernelCache(backend)->stats();
}

std::filesystem::path entryOf(Backend& backend, const KernelSource& kernel) {
  // The only entry for this kernel's name in the folder.
  KernelCache* cache = hostKernelCache(backend);
  for (const auto& e : std::filesystem::directory_iterator(cache->directory()))
    if (e.path().filename().string().rfind("host-", 0) == 0) return e.path();
  ADD_FAILURE() << "no entry for " << kernel.name << " in " << cache->directory();
  return {};
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(sha256Hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in uneven pieces: the same digest.
  Sha256 pieces;
  for (size_t at = 0; at < million.size(); at += 977)
    pieces.update(std::string_view(million).substr(at, 977));
  EXPECT_EQ(pieces.hexDigest(), sha256Hex(million));
}

TEST(KernelCacheKey, EveryComponentChangesTheKey) {
  const KernelSource k = tinyKernel(1);
  const std::string base = kernelCacheKey(BackendKind::Host, k, {"-O2"}, "x86_64", "g++ 12");
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, kernelCacheKey(BackendKind::Host, k, {"-O2"}, "x86_64", "g++ 12"));
  KernelSource other_source = k;
  other_source.source += " ";
  KernelSource other_sync = k;
  other_sync.uses_block_sync = true;
  for (const std::string& key :
       {kernelCacheKey(BackendKind::Cuda, k, {"-O2"}, "x86_64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, other_source, {"-O2"}, "x86_64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, other_sync, {"-O2"}, "x86_64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, k, {"-O3"}, "x86_64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, k, {"-O", "2"}, "x86_64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, k, {"-O2"}, "aarch64", "g++ 12"),
        kernelCacheKey(BackendKind::Host, k, {"-O2"}, "x86_64", "g++ 13")})
    EXPECT_NE(key, base);
}

TEST(KernelCache, MemoryHitReturnsTheSameKernel) {
  TempDir dir;
  WarningLog log;
  auto backend = makeBackend(dir.path() / "cache", &log);
  CompileTimings first, second;
  auto a = backend->compile(tinyKernel(11), &first);
  auto b = backend->compile(tinyKernel(11), &second);
  EXPECT_FALSE(first.memory_cache_hit || first.disk_cache_hit);
  EXPECT_GT(first.compile_ms, 0);
  EXPECT_TRUE(second.memory_cache_hit);
  EXPECT_EQ(second.compile_ms, 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(runTiny(*b), 11);
  EXPECT_EQ(statsOf(*backend).compiles, 1);
  EXPECT_EQ(log.all(), "");
  // The folder was created private, the entry readable by its owner only.
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() / "cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(entryOf(*backend, tinyKernel(11)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(KernelCache, DefineOptionsReachTheCompilerAndSeparateKernels) {
  TempDir dir;
  auto backend = makeBackend(dir.path(), nullptr);
  KernelSource k = kernelSource("store_value",
                                "#include <fusebox_runtime.cuh>\nextern \"C\" __global__ void "
                                "store_value(fusebox::KernelParams p) { "
                                "static_cast<int*>(p.ptr[0])[0] = VALUE; }\n",
                                false);
  k.options = {"-DVALUE=41", "--use_fast_math"};  // NVRTC's own flags are not passed to g++
  auto first = backend->compile(k);
  k.options = {"-DVALUE=42"};
  auto second = backend->compile(k);
  EXPECT_NE(first, second);
  EXPECT_EQ(runTiny(*first), 41);
  EXPECT_EQ(runTiny(*second), 42);
  CompileTimings t;
  EXPECT_EQ(backend->compile(k, &t), second);
  EXPECT_TRUE(t.memory_cache_hit);
  EXPECT_EQ(statsOf(*backend).compiles, 2);
}

TEST(KernelCache, DiskHitAcrossBackendInstances) {
  TempDir dir;
  WarningLog log;
  {
    auto first = makeBackend(dir.path(), &log);
    EXPECT_EQ(runTiny(*first->compile(tinyKernel(12))), 12);
    EXPECT_EQ(statsOf(*first).disk_writes, 1);
  }
  auto second = makeBackend(dir.path(), &log);
  CompileTimings t;
  auto kernel = second->compile(tinyKernel(12), &t);
  EXPECT_TRUE(t.disk_cache_hit);
  EXPECT_FALSE(t.memory_cache_hit);
  EXPECT_EQ(t.compile_ms, 0);
  EXPECT_EQ(statsOf(*second).compiles, 0);
  EXPECT_EQ(runTiny(*kernel), 12);
  EXPECT_EQ(log.all(), "");
}

// Run by SecondProcessCompilesNothing in a child process of this binary.
TEST(KernelCache, DISABLED_ChildProcessCompile) {
  const char* result_file = std::getenv("FUSEBOX_TEST_RESULT_FILE");
  ASSERT_NE(result_file, nullptr);
  auto backend = makeHostBackend();  // options from the environment
  CompileTimings t;
  const int value = runTiny(*backend->compile(tinyKernel(13), &t));
  std::ofstream(result_file) << value << " " << t.disk_cache_hit << " "
                             << statsOf(*backend).compiles << "\n";
}

TEST(KernelCache, SecondProcessCompilesNothing) {
  TempDir dir;
  auto first = makeBackend(dir.path() / "cache", nullptr);
  ASSERT_EQ(runTiny(*first->compile(tinyKernel(13))), 13);
  const std::filesystem::path result = dir.path() / "child.txt";
  const std::string command = "FUSEBOX_KERNEL_CACHE=on FUSEBOX_KERNEL_CACHE_DIR='" +
                              (dir.path() / "cache").string() + "' FUSEBOX_TEST_RESULT_FILE='" +
                              result.string() + "' /proc/" + std::to_string(::getpid()) +
                              "/exe --gtest_also_run_disabled_tests "
                              "--gtest_filter=KernelCache.DISABLED_ChildProcessCompile > '" +
                              (dir.path() / "child.log").string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(dir.path() / "child.log").rdbuf();
  int value = 0, disk_hit = 0, compiles = -1;
  std::ifstream(result) >> value >> disk_hit >> compiles;
  EXPECT_EQ(value, 13);
  EXPECT_EQ(disk_hit, 1);
  EXPECT_EQ(compiles, 0);
}

void corruptAndExpectRecompile(const std::function<void(const std::filesystem::path&)>& damage,
                               const std::string& expected_warning, int value) {
  TempDir dir;
  WarningLog log;
  const KernelSource kernel = tinyKernel(value);
  auto writer = makeBackend(dir.path(), &log);
  writer->compile(kernel);
  const std::filesystem::path entry = entryOf(*writer, kernel);
  damage(entry);

  auto reader = makeBackend(dir.path(), &log);
  CompileTimings t;
  auto compiled = reader->compile(kernel, &t);
  EXPECT_FALSE(t.disk_cache_hit);
  EXPECT_EQ(statsOf(*reader).compiles, 1);
  EXPECT_EQ(statsOf(*reader).disk_rejects, 1);
  EXPECT_EQ(runTiny(*compiled), value);
  EXPECT_THAT(log.all(), HasSubstr(entry.string()));
  EXPECT_THAT(log.all(), HasSubstr(expected_warning));
  // The bad entry was replaced: a third instance loads it from disk.
  auto third = makeBackend(dir.path(), &log);
  CompileTimings t3;
  third->compile(kernel, &t3);
  EXPECT_TRUE(t3.disk_cache_hit);
}

TEST(KernelCache, TruncatedEntryIsRecompiledNotLoaded) {
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) {
        std::filesystem::resize_file(entry, std::filesystem::file_size(entry) / 2);
      },
      "does not match its header", 14);
}

TEST(KernelCache, FlippedByteIsRecompiledNotLoaded) {
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) {
        std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(-100, std::ios::end);
        char c = 0;
        f.read(&c, 1);
        f.seekp(-100, std::ios::end);
        c = static_cast<char>(c ^ 0x5A);
        f.write(&c, 1);
      },
      "checksum does not match", 15);
}

TEST(KernelCache, EntryWritableByOthersIsRefused) {
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) { ::chmod(entry.c_str(), 0666); },
      "writable by others (mode 0666)", 16);
}

TEST(KernelCache, EntryWritableByItsGroupIsRefused) {
  // Another member of the group could rewrite it as well as anyone.
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) { ASSERT_EQ(::chmod(entry.c_str(), 0660), 0); },
      "writable by its group (mode 0660)", 40);
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) { ASSERT_EQ(::chmod(entry.c_str(), 0620), 0); },
      "writable by its group (mode 0620)", 41);
}

TEST(KernelCache, EntryReadableByOthersIsLoaded) {
  // Reading is no threat: 0644 and 0640 entries are used.
  for (mode_t mode : {0644, 0640}) {
    TempDir dir;
    WarningLog log;
    const KernelSource kernel = tinyKernel(42);
    auto writer = makeBackend(dir.path(), &log);
    writer->compile(kernel);
    ASSERT_EQ(::chmod(entryOf(*writer, kernel).c_str(), mode), 0);
    auto reader = makeBackend(dir.path(), &log);
    CompileTimings t;
    EXPECT_EQ(runTiny(*reader->compile(kernel, &t)), 42);
    EXPECT_TRUE(t.disk_cache_hit) << std::oct << mode;
    EXPECT_EQ(log.all(), "");
  }
}

TEST(KernelCache, EntryOfMode000IsRefused) {
  // Even where root could read it: fusebox writes entries 0600.
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) { ASSERT_EQ(::chmod(entry.c_str(), 0), 0); },
      "not readable by its owner (mode 0000)", 26);
}

TEST(KernelCache, SetuidEntryIsRefused) {
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) { ASSERT_EQ(::chmod(entry.c_str(), 04600), 0); },
      "set-user-ID or set-group-ID bit (mode 4600)", 27);
}

TEST(KernelCache, FifoPlantedAsAnEntryIsRefusedWithoutBlocking) {
  HangGuard guard;  // opening a FIFO for reading blocks until a writer comes
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) {
        std::filesystem::remove(entry);
        ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
      },
      "it is a named pipe (FIFO), not a regular file", 28);
}

TEST(KernelCache, FolderWritableByOthersIsRefused) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache";
  makeBackend(cache, &log)->compile(tinyKernel(17));
  ASSERT_EQ(::chmod(cache.c_str(), 0777), 0);
  auto backend = makeBackend(cache, &log);
  CompileTimings t;
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(17), &t)), 17);
  EXPECT_FALSE(t.disk_cache_hit);  // the entry is there, but the folder is not trusted
  EXPECT_FALSE(hostKernelCache(*backend)->diskEnabled());
  EXPECT_THAT(log.all(), HasSubstr("kernel cache folder " + cache.string() + " is not used"));
  EXPECT_THAT(log.all(), HasSubstr("writable by others (mode 0777)"));
  ::chmod(cache.c_str(), 0700);
}

TEST(KernelCache, FolderWritableByItsGroupIsRefused) {
  for (mode_t mode : {0770, 0660, 0620}) {
    TempDir dir;
    WarningLog log;
    const std::filesystem::path cache = dir.path() / "cache";
    makeBackend(cache, &log)->compile(tinyKernel(43));
    ASSERT_EQ(::chmod(cache.c_str(), mode), 0);
    auto backend = makeBackend(cache, &log);
    CompileTimings t;
    EXPECT_EQ(runTiny(*backend->compile(tinyKernel(43), &t)), 43);
    EXPECT_FALSE(t.disk_cache_hit) << std::oct << mode;
    EXPECT_FALSE(hostKernelCache(*backend)->diskEnabled());
    EXPECT_THAT(log.all(), HasSubstr(fmt::format("kernel cache folder {} is not used: it is "
                                                 "writable by its group (mode {:04o})",
                                                 cache.string(), mode)));
    ::chmod(cache.c_str(), 0700);
  }
}

TEST(KernelCache, FolderReadableByItsGroupIsUsed) {
  TempDir dir;
  WarningLog log;
  const std::filesystem::path cache = dir.path() / "cache";
  makeBackend(cache, &log)->compile(tinyKernel(44));
  ASSERT_EQ(::chmod(cache.c_str(), 0750), 0);
  auto backend = makeBackend(cache, &log);
  CompileTimings t;
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(44), &t)), 44);
  EXPECT_TRUE(t.disk_cache_hit);
  EXPECT_EQ(log.all(), "");
}

TEST(KernelCache, EntryOfAnotherUserIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give a file to another user (without root: "
                    "EntryOfAnotherUserIsRefusedInAUserNamespace)";
  corruptAndExpectRecompile(
      [](const std::filesystem::path& entry) {
        ASSERT_EQ(::chown(entry.c_str(), 65534, 65534), 0);
      },
      "belongs to user id 65534", 18);
}

TEST(KernelCache, EntryOfAnotherUserIsRefusedInAUserNamespace) {
  // Without root no file can be given to another user; inside its own user
  // and mount namespaces a process may bind-mount another user's file over
  // the entry, which then shows that user's id (unmapped: the overflow id).
  TempDir dir;
  const std::filesystem::path cache = dir.path() / "cache";
  NamespaceRun run = runInUserNamespace(dir.path(), [&]() -> std::string {
    WarningLog log;
    auto writer = makeBackend(cache, &log);
    writer->compile(tinyKernel(45));
    std::filesystem::path entry;
    for (const auto& e : std::filesystem::directory_iterator(cache))
      if (e.path().filename().string().rfind("host-", 0) == 0) entry = e.path();
    if (entry.empty()) return "no entry was written";
    std::string other;
    struct stat st {};
    for (const char* candidate : {"/etc/passwd", "/etc/group", "/etc/hosts"})
      if (::stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid != ::geteuid()) {
        other = candidate;
        break;
      }
    if (other.empty()) return "skip: no file of another user to mount over the entry";
    if (::mount(other.c_str(), entry.c_str(), nullptr, MS_BIND, nullptr) != 0)
      return std::string("skip: bind mount failed: ") + std::strerror(errno);
    if (::stat(entry.c_str(), &st) != 0) return "the mounted entry cannot be seen";
    auto reader = makeBackend(cache, &log);
    CompileTimings t;
    const int value = runTiny(*reader->compile(tinyKernel(45), &t));
    // value, disk hit, owner shown, this user, then the warnings.
    return fmt::format("{} {} {} {}\n{}", value, t.disk_cache_hit ? 1 : 0, st.st_uid, ::geteuid(),
                       log.all());
  });
  if (!run.ran) GTEST_SKIP() << run.text;
  if (run.text.rfind("skip: ", 0) == 0) GTEST_SKIP() << run.text.substr(6);
  std::istringstream answer(run.text);
  int value = 0, hit = -1;
  uid_t owner = 0, self = 0;
  ASSERT_TRUE(answer >> value >> hit >> owner >> self) << run.text;
  EXPECT_EQ(value, 45);
  EXPECT_EQ(hit, 0) << run.text;
  ASSERT_NE(owner, self) << run.text;
  EXPECT_THAT(run.text,
              HasSubstr(fmt::format(
                  "is not loaded: it belongs to user id {}, not to this user ({})", owner, self)));
}

TEST(KernelCache, DisabledCacheCompilesEveryTime) {
  TempDir dir;
  auto backend = makeBackend(dir.path() / "cache", nullptr, /*memory=*/false, /*disk=*/false);
  CompileTimings a, b;
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(19), &a)), 19);
  EXPECT_EQ(runTiny(*backend->compile(tinyKernel(19), &b)), 19);
  EXPECT_FALSE(a.memory_cache_hit || a.disk_cache_hit || b.memory_cache_hit || b.disk_cache_hit);
  EXPECT_EQ(statsOf(*backend).compiles, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "cache"));  // nothing written
}

TEST(KernelCache, ParallelCompileAllCompilesEachKeyOnce) {
  TempDir dir;
  auto backend = makeBackend(dir.path(), nullptr);
  // Four distinct kernels and two duplicates, interleaved.
  const std::vector<KernelSource> kernels = {tinyKernel(21), tinyKernel(22), tinyKernel(21),
                                             tinyKernel(23), tinyKernel(24), tinyKernel(22)};
  std::vector<CompileTimings> timings;
  auto compiled = compileAll(*backend, kernels, &timings, 4);
  ASSERT_EQ(compiled.size(), 6u);
  EXPECT_EQ(statsOf(*backend).compiles, 4);
  EXPECT_EQ(compiled[0], compiled[2]);
  EXPECT_EQ(compiled[1], compiled[5]);
  int compiled_here = 0;
  for (const CompileTimings& t : timings) compiled_here += !t.memory_cache_hit && !t.disk_cache_hit;
  EXPECT_EQ(compiled_here, 4);
  const int expected[] = {21, 22, 21, 23, 24, 22};
  for (size_t i = 0; i < compiled.size(); ++i) EXPECT_EQ(runTiny(*compiled[i]), expected[i]);
}

TEST(KernelCache, CompileErrorNamesAFileWithTheSourceAndTheLog) {
  TempDir dir;
  auto backend = makeBackend(dir.path() / "cache", nullptr);
  KernelSource broken = kernelSource("broken_kernel",
                                     "#include <fusebox_runtime.cuh>\nextern \"C\" __global__ void "
                                     "broken_kernel(fusebox::KernelParams p) {\n"
                                     "  undeclared_name = 1;\n}\n",
                                     false);
  try {
    backend->compile(broken);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("kernel broken_kernel does not compile"));
    const std::string failures = (dir.path() / "cache" / "failures").string();
    const size_t at = message.find(failures);
    ASSERT_NE(at, std::string::npos) << message;
    const std::string file = message.substr(at, message.find(".cpp", at) + 4 - at);
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    EXPECT_THAT(text.str(), HasSubstr("undeclared_name = 1;"));  // the source
    EXPECT_THAT(text.str(), HasSubstr("undeclared_name"));
    EXPECT_THAT(text.str(), HasSubstr(file + ":3:"));  // the log, pointing into this file
    EXPECT_THAT(message, HasSubstr("was not declared"));
  }
  // Nothing was cached: a second try fails the same way.
  EXPECT_THROW(backend->compile(broken), UserError);
  EXPECT_EQ(statsOf(*backend).compiles, 0);
}

TEST(KernelCache, MissingCompilerIsAClearError) {
  HostBackendOptions options;
  options.cache.disk = false;
  options.compiler = "/nonexistent/bin/c++";
  auto backend = makeHostBackend(options);
  try {
    backend->compile(tinyKernel(25));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot run the C++ compiler `/nonexistent/bin/c++`"));
    EXPECT_THAT(e.what(), HasSubstr("FUSEBOX_HOST_CXX"));
  }
}

TEST(KernelCacheOptions, EnvironmentAndDefaultFolder) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/some/cache");
    EXPECT_EQ(defaultKernelCacheDirectory(), std::filesystem::path("/some/cache/fusebox"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/ignored");
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(defaultKernelCacheDirectory(), std::filesystem::path("/home/someone/.cache/fusebox"));
  }
  {
    ScopedEnv mode("FUSEBOX_KERNEL_CACHE", "memory");
    ScopedEnv folder("FUSEBOX_KERNEL_CACHE_DIR", "/tmp/x");
    const KernelCacheOptions o = KernelCacheOptions::fromEnvironment();
    EXPECT_TRUE(o.memory);
    EXPECT_FALSE(o.disk);
    EXPECT_EQ(o.directory, std::filesystem::path("/tmp/x"));
  }
  {
    ScopedEnv mode("FUSEBOX_KERNEL_CACHE", "off");
    const KernelCacheOptions o = KernelCacheOptions::fromEnvironment();
    EXPECT_FALSE(o.memory || o.disk);
  }
  {
    ScopedEnv mode("FUSEBOX_KERNEL_CACHE", "sometimes");
    try {
      KernelCacheOptions::fromEnvironment();
      FAIL() << "expected a UserError";
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr("FUSEBOX_KERNEL_CACHE=sometimes: expected on"));
    }
  }
}

}  // namespace
}  // namespace fusebox::testing
