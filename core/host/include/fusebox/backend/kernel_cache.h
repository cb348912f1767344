// The kernel cache both backends use: compiled kernels in memory (per cache
// instance, so per backend) and on disk (shared by every process of the user).
//
// Key: a SHA-256 over the backend kind, the kernel's name, source and
// uses_block_sync, the compile options, the target architecture, the
// compiler's version and the embedded runtime headers (kernelCacheKey).
//
// Disk: default folder $XDG_CACHE_HOME/fusebox, else ~/.cache/fusebox (see
// KernelCacheOptions). Entries are written atomically (temp file in the same
// folder, fsync, rename) with a header (magic, format version, backend, key,
// payload size, payload SHA-256) checked on every read: a corrupt or truncated
// entry is recompiled and replaced, never loaded. Cached kernels are code the
// process loads, so the folder is created 0700, and a folder or entry that
// belongs to another user or is writable by group or others (or an entry that
// is not a regular file, is setuid/setgid or not readable by its owner) is
// refused with a warning and never loaded. A full disk turns the disk level
// off for the rest of the cache's life (fallBackFromFullDisk).
//
// Thread safety: every member may be called from several threads; one key is
// compiled at most once at a time in a process (other callers wait for it).
#pragma once

#include <fusebox/backend/backend.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

struct KernelCacheOptions {
  bool memory = true;  // keep loaded kernels for the cache's lifetime
  bool disk = true;    // keep payloads (cubins, host .so files) in `directory`
  // Empty: defaultKernelCacheDirectory().
  std::filesystem::path directory;
  // Where warnings go (refused folder or entry, corrupt entry, failed write);
  // empty: standard error, prefixed "fusebox: warning: ".
  std::function<void(const std::string&)> warn;

  // Defaults adjusted by the environment:
  //   FUSEBOX_KERNEL_CACHE=on|memory|off   (memory: no disk cache; off: neither)
  //   FUSEBOX_KERNEL_CACHE_DIR=<folder>
  // An unknown FUSEBOX_KERNEL_CACHE value is a UserError listing the valid ones.
  static KernelCacheOptions fromEnvironment();
};

// $XDG_CACHE_HOME/fusebox when XDG_CACHE_HOME is an absolute path, else
// $HOME/.cache/fusebox (else the user's home from the password database).
std::filesystem::path defaultKernelCacheDirectory();

// Hex SHA-256 identifying one compiled kernel (see the file comment).
// `compile_options` are the options the compiler actually gets.
std::string kernelCacheKey(BackendKind backend, const KernelSource& kernel,
                           const std::vector<std::string>& compile_options,
                           std::string_view architecture, std::string_view compiler_version);

struct KernelCacheStats {
  int64_t compiles = 0;     // compile callbacks run
  int64_t memory_hits = 0;  // includes waiting for another thread's compile of the key
  int64_t disk_hits = 0;
  int64_t disk_rejects = 0;  // entries refused (permissions) or found corrupt
  int64_t disk_writes = 0;
};

class KernelCache {
 public:
  explicit KernelCache(KernelCacheOptions options = KernelCacheOptions::fromEnvironment());
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // Produces the payload (cubin, .so bytes); throws on a compile failure.
  using Compile = std::function<std::string()>;
  // Makes a launchable kernel from a payload that passed every check.
  using Load = std::function<std::shared_ptr<CompiledKernel>(const std::string& payload)>;

  // Memory, then disk, then compile (and store). Fills `timings` (compile_ms
  // and load_ms measured here; the hit flags). Exceptions from `compile` or
  // `load` propagate to every caller waiting on the key; nothing is cached.
  // With `source`, the result is also found by findLoaded(*source) afterwards.
  std::shared_ptr<CompiledKernel> getOrCompile(const std::string& key, BackendKind backend,
                                               const Compile& compile, const Load& load,
                                               CompileTimings* timings = nullptr,
                                               const KernelSource* source = nullptr);

  // The memory level looked up by the kernel's exact name, source, options and
  // uses_block_sync: a string hash instead of the key's SHA-256 (which costs
  // microseconds per kilobyte of source), for backends whose other key parts
  // (compiler, architecture) are fixed for the cache's lifetime. nullptr when
  // not loaded before (or the memory cache is off); sets memory_cache_hit.
  std::shared_ptr<CompiledKernel> findLoaded(const KernelSource& source,
                                             CompileTimings* timings = nullptr);

  // The disk level alone. loadPayload returns nullopt on a miss or a refused
  // or corrupt entry (with a warning for the latter two).
  std::optional<std::string> loadPayload(const std::string& key, BackendKind backend);
  void storePayload(const std::string& key, BackendKind backend, const std::string& payload);

  // True when the disk cache is on and its folder passed the checks.
  bool diskEnabled();
  // The configured folder (whether or not it is in use).
  const std::filesystem::path& directory() const { return directory_; }
  // The file that holds entry `key` (it may not exist).
  std::filesystem::path entryPath(const std::string& key, BackendKind backend) const;
  // Where files explaining failed compiles go: <directory>/failures, or, with
  // the disk cache off or refused, or a failures folder that is not one of
  // this user's that only it can write (a warning says so), a private folder
  // under $TMPDIR (kept). Files there are written by replacing what is at
  // their name (never by opening it: it could be a FIFO).
  std::filesystem::path failureDirectory();
  // A private (0700) folder for this cache's scratch files (compiler input and
  // output, libraries being loaded); removed with the cache. Under the cache
  // folder when the disk cache is in use (not on a noexec /tmp), else $TMPDIR.
  std::filesystem::path scratchDirectory();
  // After a write failed because the disk is full (`reason` says which):
  // turns the disk cache off for the rest of the cache's life (one warning)
  // and, when the scratch folder was under the cache folder, makes a new one
  // under $TMPDIR. False when the scratch folder was already there, so that
  // retrying would fail the same way.
  bool fallBackFromFullDisk(const std::string& reason);

  void clearMemory();
  KernelCacheStats stats() const;
  void warn(const std::string& message) const;

 private:
  struct State;
  KernelCacheOptions options_;
  std::filesystem::path directory_;
  std::unique_ptr<State> state_;
};

// ENOSPC or EDQUOT: a write failed because the disk (or the user's quota) is full.
bool isDiskFullError(int err);

// Compiles independent kernels in parallel (at most `max_parallel` at a time;
// 0: the hardware's thread count) through backend.compile, which must be
// thread-safe. Results and timings are in the order of `kernels`; the first
// failure is rethrown after every compile has finished.
std::vector<std::shared_ptr<CompiledKernel>> compileAll(
    Backend& backend, const std::vector<KernelSource>& kernels,
    std::vector<CompileTimings>* timings = nullptr, int max_parallel = 0);

}  // namespace fusebox
