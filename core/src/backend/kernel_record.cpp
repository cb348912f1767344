// The kernel corpus (kernel_record.h).
#include "backend/kernel_record.h"

#include <fmt/format.h>
#include <fusebox/error.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "backend/sha256.h"

namespace fusebox {

namespace {

std::string recordText(const KernelSource& k) {
  std::string text = fmt::format("// kernel: {}\n// uses_block_sync: {}\n", k.name,
                                 k.uses_block_sync ? "true" : "false");
  for (const std::string& option : k.options) text += fmt::format("// option: {}\n", option);
  return text + k.source;
}

// The kernel's name as a file name: a plugin's kernel may be named anything.
std::string fileStem(const std::string& name) {
  std::string stem = name.substr(0, 100);
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return stem;
}

// Writes `text` to a new file in `dir` and returns its path; the name is
// made unique by mkstemp, so processes in other PID namespaces sharing the
// folder cannot collide.
std::filesystem::path writeAside(const std::filesystem::path& dir, const std::string& text,
                                 const std::string& folder) {
  std::string name = (dir / ".recording-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  FUSEBOX_USER_CHECK(fd >= 0, "FUSEBOX_RECORD_KERNELS={}: cannot create a file there ({})", folder,
                     std::strerror(errno));
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(name.c_str());
      throw UserError(fmt::format("FUSEBOX_RECORD_KERNELS={}: cannot write {} ({})", folder, name,
                                  std::strerror(err)));
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  return name;
}

}  // namespace

void recordKernelSource(const KernelSource& kernel) {
  // Read once: the setting is the process's, as the kernel cache's are.
  static const std::string folder = [] {
    const char* v = std::getenv("FUSEBOX_RECORD_KERNELS");
    return v != nullptr ? std::string(v) : std::string();
  }();
  if (folder.empty()) return;
  namespace fs = std::filesystem;
  const fs::path dir(folder);
  std::error_code ec;
  fs::create_directories(dir, ec);
  FUSEBOX_USER_CHECK(!ec && fs::is_directory(dir),
                     "FUSEBOX_RECORD_KERNELS={}: the folder cannot be created ({})", folder,
                     ec ? ec.message() : "not a folder");
  const std::string text = recordText(kernel);
  const fs::path target =
      dir / fmt::format("{}-{}.cu", fileStem(kernel.name), sha256Hex(text).substr(0, 16));
  if (fs::exists(target, ec)) return;
  // Written aside, then renamed: tests in parallel processes record into one
  // folder, and a reader never sees half a file.
  const fs::path aside = writeAside(dir, text, folder);
  fs::rename(aside, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(aside, ec);
    throw UserError(fmt::format("FUSEBOX_RECORD_KERNELS={}: cannot rename {} to {} ({})", folder,
                                aside.string(), target.string(), why));
  }
}

}  // namespace fusebox
