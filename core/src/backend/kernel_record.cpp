// The kernel corpus (kernel_record.h).
#include "backend/kernel_record.h"

#include <fmt/format.h>
#include <fusebox/error.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backend/sha256.h"

namespace fusebox {

namespace {

std::string recordText(const KernelSource& k) {
  std::string text = fmt::format("// kernel: {}\n// uses_block_sync: {}\n", k.name,
                                 k.uses_block_sync ? "true" : "false");
  for (const std::string& option : k.options) text += fmt::format("// option: {}\n", option);
  return text + k.source;
}

}  // namespace

void recordKernelSource(const KernelSource& kernel) {
  static const char* const folder = std::getenv("FUSEBOX_RECORD_KERNELS");
  if (folder == nullptr || *folder == '\0') return;
  namespace fs = std::filesystem;
  const fs::path dir(folder);
  std::error_code ec;
  fs::create_directories(dir, ec);
  FUSEBOX_USER_CHECK(!ec && fs::is_directory(dir),
                     "FUSEBOX_RECORD_KERNELS={}: the folder cannot be created ({})", folder,
                     ec ? ec.message() : "not a folder");
  const std::string text = recordText(kernel);
  const fs::path target = dir / fmt::format("{}-{}.cu", kernel.name, sha256Hex(text).substr(0, 16));
  if (fs::exists(target, ec)) return;
  // Written aside, then renamed: tests in parallel processes record into one
  // folder, and a reader never sees half a file.
  static std::atomic<int> counter{0};
  const fs::path aside =
      dir / fmt::format(".{}.{}.{}", target.filename().string(), ::getpid(), counter++);
  {
    std::ofstream out(aside, std::ios::binary);
    out << text;
    out.close();
    FUSEBOX_USER_CHECK(out.good(), "FUSEBOX_RECORD_KERNELS={}: cannot write {}", folder,
                       aside.string());
  }
  fs::rename(aside, target, ec);
  FUSEBOX_USER_CHECK(!ec, "FUSEBOX_RECORD_KERNELS={}: cannot rename {} to {} ({})", folder,
                     aside.string(), target.string(), ec.message());
}

}  // namespace fusebox
