// HostBackend: compile through the kernel cache (payload: the kernel library's
// bytes), load with Boost.DLL, launch through the grid runner.
#include <fusebox/backend/host_backend.h>
#include <fusebox/backend/runtime_sources.h>
#include <fusebox/error.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <boost/dll/shared_library.hpp>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

#include "backend/host/grid_runner.h"
#include "backend/host/host_compiler.h"
#include "backend/kernel_record.h"
#include "file_access.h"

namespace fusebox {
namespace {

using host::GridLaunch;
using host::GridRunner;
using host::RunThreadsFn;

constexpr uint64_t kMaxLibraryBytes = uint64_t{1} << 30;  // far above any kernel

// A full disk where the host backend writes, raised where it is found so
// that compile() can move its scratch folder elsewhere and try again.
class DiskFull : public UserError {
 public:
  DiskFull(std::string reason, const std::string& message)
      : UserError(message), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }  // one line: which disk, what said so

 private:
  std::string reason_;
};

constexpr uint64_t kLowFreeBytes = uint64_t{1} << 20;

// Why a failure in `scratch` looks like a full disk ("" when it does not):
// the compiler or linker says so, or the folder's disk has almost no room.
std::string diskFullReason(const std::filesystem::path& scratch, const std::string& output) {
  for (const char* says : {"No space left on device", "Disk quota exceeded"})
    if (output.find(says) != std::string::npos)
      return fmt::format("the disk holding {} is full (\"{}\")", scratch.string(), says);
  struct statvfs fs {};
  if (::statvfs(scratch.c_str(), &fs) == 0 &&
      static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < kLowFreeBytes)
    return fmt::format("the disk holding {} is full ({} bytes free)", scratch.string(),
                       static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize);
  return {};
}

void writeFile(const std::filesystem::path& path, const std::string& bytes) {
  if (const int err = writeFileReplacing(path, bytes); err != 0) {
    const std::string message =
        fmt::format("host backend: cannot write {}: {}", path.string(), std::strerror(err));
    if (isDiskFullError(err)) throw DiskFull(message, message);
    throw UserError(message);
  }
}

std::string firstLines(const std::string& text, int max_lines) {
  std::istringstream in(text);
  std::string line, out;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n == max_lines) return out + "...\n";
    out += line + "\n";
  }
  return out;
}

// Characters safe in a file name, from a kernel name.
std::string fileStem(const std::string& name) {
  std::string stem = name.substr(0, 64);
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return stem.empty() ? "kernel" : stem;
}

int64_t spanBytes(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return (last + 1) * t.elementSize();
}

class HostKernel final : public CompiledKernel {
 public:
  HostKernel(std::string name, boost::dll::shared_library library, RunThreadsFn run, bool fibers,
             std::shared_ptr<GridRunner> runner)
      : name_(std::move(name)),
        library_(std::move(library)),
        run_(run),
        fibers_(fibers),
        runner_(std::move(runner)) {}
  const std::string& name() const override { return name_; }
  void launch(const LaunchConfig& config, const KernelParams& params) override {
    GridLaunch launch;
    launch.run = run_;
    launch.config = config;
    launch.params = &params;
    launch.fibers = fibers_;
    launch.kernel_name = &name_;
    runner_->run(launch);
  }

 private:
  std::string name_;
  boost::dll::shared_library library_;  // keeps the code mapped
  RunThreadsFn run_;
  bool fibers_;
  std::shared_ptr<GridRunner> runner_;
};

}  // namespace

class HostBackend final : public Backend {
 public:
  explicit HostBackend(HostBackendOptions options)
      : cache_(std::move(options.cache)),
        compiler_(options.compiler, options.compile_timeout_seconds),
        runner_(std::make_shared<GridRunner>(
            options.threads > 0
                ? options.threads
                : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u)))) {}

  BackendKind kind() const override { return BackendKind::Host; }

  std::string describe() const override {
    const std::string compiler = compiler_.version().empty()
                                     ? fmt::format("{}", fmt::join(compiler_.command(), " "))
                                     : compiler_.version();
    return fmt::format("host ({}, {} threads)", compiler, runner_->threads());
  }

  std::shared_ptr<CompiledKernel> compile(const KernelSource& kernel,
                                          CompileTimings* timings) override {
    FUSEBOX_USER_CHECK(!kernel.name.empty(), "host backend: the kernel has no name");
    recordKernelSource(kernel);  // FUSEBOX_RECORD_KERNELS (docs/testing.md)
    // Compiler and target are fixed for this backend: the source alone finds a loaded kernel.
    if (auto loaded = cache_.findLoaded(kernel, timings)) return loaded;
    inScratch([&](const std::filesystem::path& scratch) {
      try {
        compiler_.probe(scratch);
      } catch (const UserError& e) {
        if (std::string full = diskFullReason(scratch, e.what()); !full.empty())
          throw DiskFull(full, fmt::format("host backend: {}\n{}", full, e.what()));
        throw;
      }
      return 0;
    });
    const std::vector<std::string> flags = compiler_.flags(kernel);
    const std::string key =
        kernelCacheKey(BackendKind::Host, kernel, flags, compiler_.machine(), compiler_.version());
    return cache_.getOrCompile(
        key, BackendKind::Host,
        [&] {
          return inScratch([&](const std::filesystem::path& scratch) {
            return compileLibrary(scratch, kernel, key, flags);
          });
        },
        [&](const std::string& payload) { return loadLibrary(kernel, key, payload); }, timings,
        &kernel);
  }

  Tensor allocate(DataType dtype, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides) override {
    return Tensor::emptyStrided(dtype, sizes, strides);
  }
  Tensor toBackend(const Tensor& host) override { return copy(host); }
  Tensor toHost(const Tensor& t) override { return copy(t); }
  void memsetZero(const Tensor& t) override {
    if (const int64_t bytes = spanBytes(t)) std::memset(t.data(), 0, static_cast<size_t>(bytes));
  }
  void copy(const Tensor& src, const Tensor& dst) override {
    FUSEBOX_USER_CHECK(src.dtype() == dst.dtype() && src.sizes() == dst.sizes(),
                       "copy: {} does not fit into {}", src.describe(), dst.describe());
    if (src.data() == dst.data() && src.strides() == dst.strides()) return;
    Tensor target = dst;
    // Overlapping memory is read in full before it is written.
    copyInto(src.storage() == dst.storage() ? src.contiguous(/*force_copy=*/true) : src, target);
  }
  void synchronize() override {}  // launches return when the grid has run

  KernelCache& cache() { return cache_; }

 private:
  Tensor copy(const Tensor& t) {
    Tensor out = allocate(t.dtype(), t.sizes(), t.strides());
    if (const int64_t bytes = spanBytes(t))
      std::memcpy(out.data(), t.data(), static_cast<size_t>(bytes));
    return out;
  }

  // Runs `work` with the scratch folder; when it finds the disk full, moves
  // the scratch folder off the cache's disk (turning the disk cache off) and
  // runs it once more. A disk that is still full is a UserError saying so.
  template <class Work>
  auto inScratch(const Work& work) -> decltype(work(std::filesystem::path())) {
    for (bool retried = false;; retried = true) {
      try {
        return work(cache_.scratchDirectory());
      } catch (const DiskFull& full) {
        if (!retried && cache_.fallBackFromFullDisk(full.reason())) continue;
        throw UserError(fmt::format(
            "{}\nfree some space, or point TMPDIR (and FUSEBOX_KERNEL_CACHE_DIR) at another disk",
            full.what()));
      }
    }
  }

  // The runtime headers, written once per scratch folder.
  std::filesystem::path runtimeDir(const std::filesystem::path& scratch) {
    std::lock_guard lock(runtime_mutex_);
    const std::filesystem::path dir = scratch / "runtime";
    if (runtime_dir_ != dir) {
      for (const RuntimeHeader& header : embeddedRuntimeHeaders()) {
        const std::filesystem::path path = dir / header.name;
        std::filesystem::create_directories(path.parent_path());
        writeFile(path, header.text);
      }
      runtime_dir_ = dir;
    }
    return dir;
  }

  std::string compileLibrary(const std::filesystem::path& scratch, const KernelSource& kernel,
                             const std::string& key, const std::vector<std::string>& flags) {
    const std::filesystem::path include_dir = runtimeDir(scratch);
    const std::string stem = fmt::format("{}-{}", fileStem(kernel.name), key.substr(0, 16));
    const std::filesystem::path source = scratch / (stem + ".cpp");
    const std::filesystem::path library = scratch / (stem + ".so");
    // The kernel's lines keep their numbers; the exported entry follows them.
    writeFile(source, fmt::format("{}\n#include \"fusebox_runtime/host/entry.h\"\n"
                                  "FUSEBOX_HOST_ENTRY({})\n",
                                  kernel.source, kernel.name));
    std::string log;
    const bool ok = compiler_.compile(kernel.name, flags, include_dir, source, library, &log);
    std::error_code ec;
    std::filesystem::remove(source, ec);
    if (!ok) {
      std::filesystem::remove(library, ec);
      if (std::string full = diskFullReason(scratch, log); !full.empty())
        throw DiskFull(full, fmt::format("host backend: cannot compile kernel {}: {}; the "
                                         "compiler's log:\n{}",
                                         kernel.name, full, firstLines(log, 10)));
      throw compileFailure(kernel, key, flags, source, log);
    }
    std::string bytes = readLibrary(kernel, library);
    std::filesystem::remove(library, ec);
    return bytes;
  }

  // The library the compiler wrote: a regular file of sane size.
  std::string readLibrary(const KernelSource& kernel, const std::filesystem::path& library) {
    try {
      ReadableFile file(library, "the kernel library");
      if (file.size() == 0)
        file.fail(fmt::format("the compiler `{}` wrote an empty library for kernel {}",
                              fmt::join(compiler_.command(), " "), kernel.name));
      return file.readRest(kMaxLibraryBytes);
    } catch (const UserError& e) {
      throw UserError(
          fmt::format("host backend: no library for kernel {} from the compiler `{}` "
                      "(it exited with status 0): {}",
                      kernel.name, fmt::join(compiler_.command(), " "), e.what()));
    }
  }

  // Keeps the source and the log in one file: the source verbatim (so the
  // log's line numbers hold), the log after it in a disabled block.
  UserError compileFailure(const KernelSource& kernel, const std::string& key,
                           const std::vector<std::string>& flags,
                           const std::filesystem::path& scratch_source, std::string log) {
    const std::filesystem::path file =
        cache_.failureDirectory() /
        fmt::format("{}-{}.cpp", fileStem(kernel.name), key.substr(0, 16));
    for (size_t at = 0; (at = log.find(scratch_source.string(), at)) != std::string::npos;) {
      log.replace(at, scratch_source.string().size(), file.string());
      at += file.string().size();
    }
    std::string text = kernel.source;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += fmt::format(
        "\n#if 0  // fusebox host backend: compiling the kernel above failed\n"
        "command: {} {} -I <runtime headers> {}\n\n{}\n#endif\n",
        fmt::join(compiler_.command(), " "), fmt::join(flags, " "), file.string(), log);
    std::string where = file.string();
    try {
      writeFile(file, text);
    } catch (const UserError& e) {
      where = fmt::format("(not saved: {})", e.what());
    }
    return UserError(fmt::format(
        "host backend: kernel {} does not compile; its source and the compiler's log are in {}\n{}",
        kernel.name, where, firstLines(log, 25)));
  }

  // Loads into this process: a library whose loading or code crashes takes
  // the process down, like any code it runs (docs/backends.md).
  std::shared_ptr<CompiledKernel> loadLibrary(const KernelSource& kernel, const std::string& key,
                                              const std::string& payload) {
    // A private copy of bytes that passed the cache's checks; unlinked once
    // mapped, so nothing can change it between the check and the load.
    const std::filesystem::path path = inScratch([&](const std::filesystem::path& scratch) {
      const std::filesystem::path copy =
          scratch / fmt::format("{}-{}.so", key.substr(0, 16), load_counter_++);
      writeFile(copy, payload);
      return copy;
    });
    boost::dll::shared_library library;
    try {
      library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      std::error_code ec;
      std::filesystem::remove(path, ec);
      // The compiler is the user's choice ($FUSEBOX_HOST_CXX): its output not
      // loading is not fusebox's bug.
      throw UserError(
          fmt::format("host backend: cannot load the library of kernel {} built by "
                      "`{}`: {}",
                      kernel.name, fmt::join(compiler_.command(), " "), e.what()));
    }
    std::error_code ec;
    std::filesystem::remove(path, ec);
    FUSEBOX_CHECK(
        library.has("fusebox_host_abi_version") && library.has("fusebox_host_run_threads"),
        "host backend: the library of kernel {} lacks the fusebox entry points", kernel.name);
    const int abi = library.get<int()>("fusebox_host_abi_version")();
    FUSEBOX_CHECK(abi == host::kHostAbiVersion,
                  "host backend: kernel {} was built for host ABI {}, expected {}", kernel.name,
                  abi, host::kHostAbiVersion);
    RunThreadsFn run = &library.get<void(host::ThreadContext*, unsigned, const KernelParams*)>(
        "fusebox_host_run_threads");
    return std::make_shared<HostKernel>(kernel.name, std::move(library), run,
                                        kernel.uses_block_sync, runner_);
  }

  KernelCache cache_;
  host::HostCompiler compiler_;
  std::shared_ptr<GridRunner> runner_;
  std::mutex runtime_mutex_;
  std::filesystem::path runtime_dir_;  // where the runtime headers were written
  std::atomic<uint64_t> load_counter_{0};
};

std::unique_ptr<Backend> makeHostBackend(HostBackendOptions options) {
  return std::make_unique<HostBackend>(std::move(options));
}

KernelCache* hostKernelCache(Backend& backend) {
  auto* host = dynamic_cast<HostBackend*>(&backend);
  return host ? &host->cache() : nullptr;
}

}  // namespace fusebox
