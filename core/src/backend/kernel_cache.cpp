#include <fcntl.h>
#include <fusebox/backend/kernel_cache.h>
#include <fusebox/backend/runtime_sources.h>
#include <fusebox/error.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "backend/kernel_cache_disk.h"
#include "backend/sha256.h"
#include "file_access.h"

namespace fusebox {
namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::filesystem::path tempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return (tmp && *tmp) ? std::filesystem::path(tmp) : std::filesystem::path("/tmp");
}

// mkdtemp under `parent`: a new folder only this user can enter.
std::filesystem::path makePrivateFolder(const std::filesystem::path& parent,
                                        const std::string& stem) {
  std::string pattern = (parent / (stem + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw UserError(fmt::format("cannot create a private folder under {}: {}", parent.string(),
                                std::strerror(errno)));
  return pattern;
}

// Why `dir` (the failures folder, created if missing) is not to be written
// into, or "": it must be a folder of this user that no one else can write
// (not a symbolic link to one elsewhere).
std::string checkedFailureFolder(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return std::strerror(errno);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ELOOP && errno != ENOTDIR) return std::strerror(errno);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return std::strerror(errno);
    return fmt::format("it is {}, not a folder", fileKindName(st.st_mode));
  }
  struct stat st {};
  std::string why =
      ::fstat(fd, &st) != 0 ? std::strerror(errno) : cache_detail::folderDistrustReason(st);
  ::close(fd);
  return why;
}

}  // namespace

bool isDiskFullError(int err) {
  return err == ENOSPC || err == EDQUOT;
}

KernelCacheOptions KernelCacheOptions::fromEnvironment() {
  KernelCacheOptions options;
  if (const char* mode = std::getenv("FUSEBOX_KERNEL_CACHE"); mode && *mode) {
    const std::string_view m = mode;
    if (m == "off") {
      options.memory = options.disk = false;
    } else if (m == "memory") {
      options.disk = false;
    } else if (m != "on") {
      throw UserError(fmt::format(
          "FUSEBOX_KERNEL_CACHE={}: expected on (memory and disk), memory (no disk) or off", m));
    }
  }
  if (const char* dir = std::getenv("FUSEBOX_KERNEL_CACHE_DIR"); dir && *dir)
    options.directory = dir;
  return options;
}

std::filesystem::path defaultKernelCacheDirectory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return std::filesystem::path(xdg) / "fusebox";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    return std::filesystem::path(home) / ".cache" / "fusebox";
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/')
    return std::filesystem::path(pw->pw_dir) / ".cache" / "fusebox";
  return tempRoot() / fmt::format("fusebox-cache-{}", ::geteuid());
}

std::string kernelCacheKey(BackendKind backend, const KernelSource& kernel,
                           const std::vector<std::string>& compile_options,
                           std::string_view architecture, std::string_view compiler_version) {
  Sha256 sha;
  sha.field("fusebox kernel cache key 1");
  sha.field(toString(backend));
  sha.field(kernel.name);
  sha.field(kernel.source);
  sha.field(kernel.uses_block_sync ? "block sync" : "no block sync");
  sha.field(std::to_string(compile_options.size()));
  for (const std::string& option : compile_options) sha.field(option);
  sha.field(architecture);
  sha.field(compiler_version);
  sha.field(embeddedRuntimeHash());
  return sha.hexDigest();
}

// What identifies a KernelSource exactly, for findLoaded.
std::string sourceIdentity(const KernelSource& k) {
  std::string id = k.name;
  id += '\0';
  id += k.uses_block_sync ? '1' : '0';
  for (const std::string& option : k.options) {
    id += '\0';
    id += option;
  }
  id += '\1';
  id += k.source;
  return id;
}

struct KernelCache::State {
  explicit State(std::filesystem::path dir, cache_detail::DiskStore::Warn warn)
      : disk(std::move(dir), std::move(warn)) {}
  mutable std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> memory;
  std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> by_source;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<CompiledKernel>>> in_flight;
  KernelCacheStats stats;
  cache_detail::DiskStore disk;
  std::atomic<bool> disk_full{false};  // the disk cache is off after a full disk
  std::once_flag failures_once;
  std::filesystem::path failures;
  std::mutex scratch_mutex;  // guards the three below
  std::filesystem::path scratch;
  bool scratch_in_cache = false;
  std::vector<std::filesystem::path> old_scratch;  // left behind by fallBackFromFullDisk
};

KernelCache::KernelCache(KernelCacheOptions options)
    : options_(std::move(options)),
      directory_(options_.directory.empty() ? defaultKernelCacheDirectory() : options_.directory) {
  state_ = std::make_unique<State>(directory_, [this](const std::string& m) { warn(m); });
}

KernelCache::~KernelCache() {
  std::error_code ec;
  if (!state_->scratch.empty()) std::filesystem::remove_all(state_->scratch, ec);
  for (const auto& old : state_->old_scratch) std::filesystem::remove_all(old, ec);
}

void KernelCache::warn(const std::string& message) const {
  if (options_.warn)
    options_.warn(message);
  else
    std::cerr << "fusebox: warning: " << message << "\n";
}

bool KernelCache::diskEnabled() {
  return options_.disk && !state_->disk_full && state_->disk.usable();
}

std::filesystem::path KernelCache::entryPath(const std::string& key, BackendKind backend) const {
  return directory_ / cache_detail::DiskStore::entryName(key, backend);
}

std::filesystem::path KernelCache::failureDirectory() {
  std::call_once(state_->failures_once, [this] {
    if (diskEnabled()) {
      const std::filesystem::path dir = directory_ / "failures";
      std::string why = checkedFailureFolder(dir);
      if (why.empty()) {
        state_->failures = dir;
        return;
      }
      state_->failures = makePrivateFolder(tempRoot(), "fusebox-failures-");
      warn(
          fmt::format("kernel cache folder {} is not used: {}; failed compiles are explained in "
                      "{} instead",
                      dir.string(), why, state_->failures.string()));
      return;
    }
    state_->failures = makePrivateFolder(tempRoot(), "fusebox-failures-");
  });
  return state_->failures;
}

std::filesystem::path KernelCache::scratchDirectory() {
  std::lock_guard lock(state_->scratch_mutex);
  if (!state_->scratch.empty()) return state_->scratch;
  if (diskEnabled()) {
    try {
      state_->scratch = makePrivateFolder(directory_, "scratch-");
      state_->scratch_in_cache = true;
      return state_->scratch;
    } catch (const UserError& e) {
      warn(fmt::format("{}; using the temporary folder instead", e.what()));
    }
  }
  state_->scratch = makePrivateFolder(tempRoot(), "fusebox-scratch-");
  return state_->scratch;
}

bool KernelCache::fallBackFromFullDisk(const std::string& reason) {
  std::lock_guard lock(state_->scratch_mutex);
  const bool was_on = options_.disk && !state_->disk_full.exchange(true);
  if (!state_->scratch_in_cache) {
    if (was_on)
      warn(fmt::format("{}: the disk cache ({}) is off for the rest of this process", reason,
                       directory_.string()));
    return false;
  }
  state_->old_scratch.push_back(state_->scratch);
  state_->scratch = makePrivateFolder(tempRoot(), "fusebox-scratch-");
  state_->scratch_in_cache = false;
  warn(
      fmt::format("{}: the disk cache ({}) is off for the rest of this process, and kernels are "
                  "compiled in {}",
                  reason, directory_.string(), state_->scratch.string()));
  return true;
}

std::optional<std::string> KernelCache::loadPayload(const std::string& key, BackendKind backend) {
  if (!diskEnabled()) return std::nullopt;
  bool rejected = false;
  std::optional<std::string> payload = state_->disk.load(key, backend, &rejected);
  if (rejected) {
    std::lock_guard lock(state_->mutex);
    ++state_->stats.disk_rejects;
  }
  return payload;
}

void KernelCache::storePayload(const std::string& key, BackendKind backend,
                               const std::string& payload) {
  if (!diskEnabled()) return;
  const int err = state_->disk.store(key, backend, payload);
  if (err == 0) {
    std::lock_guard lock(state_->mutex);
    ++state_->stats.disk_writes;
  } else if (isDiskFullError(err)) {
    fallBackFromFullDisk(fmt::format("cannot write kernel cache entry {}: {} (the disk is full)",
                                     entryPath(key, backend).string(), std::strerror(err)));
  }
}

std::shared_ptr<CompiledKernel> KernelCache::getOrCompile(const std::string& key,
                                                          BackendKind backend,
                                                          const Compile& compile, const Load& load,
                                                          CompileTimings* timings,
                                                          const KernelSource* source) {
  CompileTimings local;
  CompileTimings& t = timings ? *timings : local;
  t = CompileTimings{};
  std::promise<std::shared_ptr<CompiledKernel>> promise;
  {
    std::unique_lock lock(state_->mutex);
    if (options_.memory) {
      if (auto it = state_->memory.find(key); it != state_->memory.end()) {
        ++state_->stats.memory_hits;
        t.memory_cache_hit = true;
        return it->second;
      }
    }
    if (auto it = state_->in_flight.find(key); it != state_->in_flight.end()) {
      // Another thread compiles this key right now: share its result.
      auto pending = it->second;
      lock.unlock();
      std::shared_ptr<CompiledKernel> kernel = pending.get();
      lock.lock();
      ++state_->stats.memory_hits;
      t.memory_cache_hit = true;
      return kernel;
    }
    state_->in_flight.emplace(key, promise.get_future().share());
  }
  try {
    std::shared_ptr<CompiledKernel> kernel;
    if (std::optional<std::string> payload = loadPayload(key, backend)) {
      const auto start = std::chrono::steady_clock::now();
      try {
        kernel = load(*payload);
        t.load_ms = msSince(start);
        t.disk_cache_hit = true;
        std::lock_guard lock(state_->mutex);
        ++state_->stats.disk_hits;
      } catch (const std::exception& e) {
        warn(fmt::format("kernel cache entry {} could not be loaded ({}); recompiling",
                         entryPath(key, backend).string(), e.what()));
      }
    }
    if (!kernel) {
      auto start = std::chrono::steady_clock::now();
      const std::string payload = compile();
      t.compile_ms = msSince(start);
      {
        std::lock_guard lock(state_->mutex);
        ++state_->stats.compiles;
      }
      start = std::chrono::steady_clock::now();
      kernel = load(payload);
      t.load_ms = msSince(start);
      storePayload(key, backend, payload);  // only what loaded: a bad library is not kept
    }
    {
      std::lock_guard lock(state_->mutex);
      if (options_.memory) {
        state_->memory[key] = kernel;
        if (source) state_->by_source[sourceIdentity(*source)] = kernel;
      }
      state_->in_flight.erase(key);
    }
    promise.set_value(kernel);
    return kernel;
  } catch (...) {
    {
      std::lock_guard lock(state_->mutex);
      state_->in_flight.erase(key);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

std::shared_ptr<CompiledKernel> KernelCache::findLoaded(const KernelSource& source,
                                                        CompileTimings* timings) {
  if (!options_.memory) return nullptr;
  const std::string id = sourceIdentity(source);
  std::lock_guard lock(state_->mutex);
  auto it = state_->by_source.find(id);
  if (it == state_->by_source.end()) return nullptr;
  ++state_->stats.memory_hits;
  if (timings) {
    *timings = CompileTimings{};
    timings->memory_cache_hit = true;
  }
  return it->second;
}

void KernelCache::clearMemory() {
  std::lock_guard lock(state_->mutex);
  state_->memory.clear();
  state_->by_source.clear();
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

std::vector<std::shared_ptr<CompiledKernel>> compileAll(Backend& backend,
                                                        const std::vector<KernelSource>& kernels,
                                                        std::vector<CompileTimings>* timings,
                                                        int max_parallel) {
  const size_t n = kernels.size();
  std::vector<std::shared_ptr<CompiledKernel>> results(n);
  std::vector<CompileTimings> local_timings(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        results[i] = backend.compile(kernels[i], &local_timings[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  size_t workers = max_parallel > 0 ? static_cast<size_t>(max_parallel)
                                    : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, n);
  std::vector<std::future<void>> helpers;
  for (size_t w = 1; w < workers; ++w) helpers.push_back(std::async(std::launch::async, work));
  work();
  for (auto& helper : helpers) helper.get();
  if (timings) *timings = std::move(local_timings);
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace fusebox
