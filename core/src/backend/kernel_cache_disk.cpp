#include "backend/kernel_cache_disk.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fusebox/backend/kernel_cache.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include "backend/sha256.h"
#include "file_access.h"

namespace fusebox::cache_detail {
namespace {

// Entry layout: a fixed header, then the payload.
constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'B', 'O', 'X', 'K'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kKeySize = 64;  // hex SHA-256
struct EntryHeader {
  char magic[8];
  uint32_t version;
  uint32_t backend;
  char key[kKeySize];
  uint64_t payload_size;
  uint8_t payload_sha256[32];
};
static_assert(sizeof(EntryHeader) == 8 + 4 + 4 + 64 + 8 + 32);
constexpr uint64_t kMaxPayload = uint64_t{1} << 32;  // far above any kernel; refuses absurd sizes

std::string errnoText(int err) {
  return std::strerror(err);
}

}  // namespace

std::string folderDistrustReason(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return fmt::format("it is {}, not a folder", fileKindName(st.st_mode));
  if (st.st_uid != geteuid())
    return fmt::format("it belongs to user id {}, not to this user ({})", st.st_uid, geteuid());
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return fmt::format("it is writable by {} (mode {:04o})",
                       (st.st_mode & S_IWOTH) ? "others" : "its group", st.st_mode & 07777);
  return {};
}

std::string entryDistrustReason(const struct stat& st) {
  if (!S_ISREG(st.st_mode))
    return fmt::format("it is {}, not a regular file", fileKindName(st.st_mode));
  if (st.st_uid != geteuid())
    return fmt::format("it belongs to user id {}, not to this user ({})", st.st_uid, geteuid());
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return fmt::format("it is writable by {} (mode {:04o})",
                       (st.st_mode & S_IWOTH) ? "others" : "its group", st.st_mode & 07777);
  if ((st.st_mode & (S_ISUID | S_ISGID)) != 0)
    return fmt::format("it has the set-user-ID or set-group-ID bit (mode {:04o})",
                       st.st_mode & 07777);
  // fusebox writes entries 0600; root could read anything, which says nothing.
  if ((st.st_mode & S_IRUSR) == 0)
    return fmt::format("it is not readable by its owner (mode {:04o})", st.st_mode & 07777);
  return {};
}

namespace {

bool writeAll(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool readAll(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string uniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}-{}-{:016x}", getpid(), counter++, rng());
}

}  // namespace

DiskStore::DiskStore(std::filesystem::path directory, Warn warn)
    : directory_(std::move(directory)), warn_(std::move(warn)) {}

DiskStore::~DiskStore() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::string DiskStore::entryName(const std::string& key, BackendKind backend) {
  return fmt::format("{}-{}.kernel", toString(backend), key);
}

bool DiskStore::usable() {
  std::call_once(opened_, [this] { usable_ = open(); });
  return usable_;
}

bool DiskStore::open() {
  const std::string dir = directory_.string();
  std::error_code ec;
  if (directory_.has_parent_path())
    std::filesystem::create_directories(directory_.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    warn_(fmt::format("kernel cache folder {} cannot be created ({}): the disk cache is off", dir,
                      errnoText(errno)));
    return false;
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    warn_(fmt::format("kernel cache folder {} cannot be opened ({}): the disk cache is off", dir,
                      errnoText(errno)));
    return false;
  }
  struct stat st {};
  std::string reason = ::fstat(fd, &st) != 0 ? errnoText(errno) : folderDistrustReason(st);
  if (!reason.empty()) {
    ::close(fd);
    warn_(fmt::format(
        "kernel cache folder {} is not used: {}. Cached kernels are code this process would "
        "load; make the folder yours and private (chmod 700), or point FUSEBOX_KERNEL_CACHE_DIR "
        "elsewhere",
        dir, reason));
    return false;
  }
  dir_fd_ = fd;
  return true;
}

std::optional<std::string> DiskStore::load(const std::string& key, BackendKind backend,
                                           bool* rejected) {
  *rejected = false;
  if (!usable()) return std::nullopt;
  const std::string name = entryName(key, backend);
  const std::string shown = (directory_ / name).string();
  // O_NONBLOCK: a FIFO planted as an entry must not block the open.
  const int fd = ::openat(dir_fd_, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    *rejected = true;
    warn_(fmt::format("kernel cache entry {} cannot be opened ({}): not loaded; recompiling", shown,
                      errno == ELOOP ? "it is a symbolic link" : errnoText(errno)));
    return std::nullopt;
  }
  auto refuse = [&](const std::string& why) -> std::optional<std::string> {
    ::close(fd);
    *rejected = true;
    warn_(fmt::format("kernel cache entry {} is not loaded: {}; recompiling", shown, why));
    return std::nullopt;
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) return refuse(errnoText(errno));
  if (std::string reason = entryDistrustReason(st); !reason.empty()) return refuse(reason);
  EntryHeader header{};
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < sizeof(header) || !readAll(fd, &header, sizeof(header)))
    return refuse("it is truncated (no complete header)");
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0)
    return refuse("it is not a fusebox kernel cache entry (bad magic)");
  if (header.version != kFormatVersion)
    return refuse(
        fmt::format("it has format version {}, expected {}", header.version, kFormatVersion));
  if (header.backend != static_cast<uint32_t>(backend) ||
      std::string_view(header.key, kKeySize) != key)
    return refuse("its header names another kernel");
  if (header.payload_size > kMaxPayload || file_size != sizeof(header) + header.payload_size)
    return refuse(fmt::format("its size ({} bytes) does not match its header ({} + {} bytes)",
                              file_size, sizeof(header), header.payload_size));
  std::string payload(header.payload_size, '\0');
  if (!readAll(fd, payload.data(), payload.size())) return refuse("it is truncated");
  ::close(fd);
  const auto digest = Sha256().update(payload).digest();
  if (std::memcmp(digest.data(), header.payload_sha256, digest.size()) != 0) {
    *rejected = true;
    warn_(
        fmt::format("kernel cache entry {} is not loaded: its checksum does not match (corrupt); "
                    "recompiling",
                    shown));
    return std::nullopt;
  }
  return payload;
}

int DiskStore::store(const std::string& key, BackendKind backend, const std::string& payload) {
  if (!usable()) return EBADF;
  if (key.size() != kKeySize) return EINVAL;
  EntryHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.version = kFormatVersion;
  header.backend = static_cast<uint32_t>(backend);
  std::memcpy(header.key, key.data(), kKeySize);
  header.payload_size = payload.size();
  const auto digest = Sha256().update(payload).digest();
  std::memcpy(header.payload_sha256, digest.data(), digest.size());

  const std::string name = entryName(key, backend);
  const std::string temp = ".tmp-" + name + "-" + uniqueSuffix();
  const int fd =
      ::openat(dir_fd_, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    const int err = errno;
    if (!isDiskFullError(err))  // the caller reports a full disk
      warn_(fmt::format("cannot write kernel cache entry in {} ({}); continuing without it",
                        directory_.string(), errnoText(err)));
    return err;
  }
  const bool written = writeAll(fd, &header, sizeof(header)) &&
                       writeAll(fd, payload.data(), payload.size()) && ::fsync(fd) == 0;
  const int write_errno = errno;
  ::close(fd);
  if (!written || ::renameat(dir_fd_, temp.c_str(), dir_fd_, name.c_str()) != 0) {
    const int err = written ? errno : write_errno;
    ::unlinkat(dir_fd_, temp.c_str(), 0);
    if (!isDiskFullError(err))  // the caller reports a full disk
      warn_(fmt::format("cannot write kernel cache entry {} ({}); continuing without it",
                        (directory_ / name).string(), errnoText(err)));
    return err;
  }
  ::fsync(dir_fd_);  // the rename itself survives a crash
  return 0;
}

}  // namespace fusebox::cache_detail
