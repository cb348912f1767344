#include "file_access.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fusebox/error.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace fusebox {

std::string fileKindName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

ReadableFile::ReadableFile(const std::filesystem::path& path, std::string_view what,
                           bool allow_pipe)
    : path_(path), what_(what) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) fail(fmt::format("cannot open {}: {}", what_, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail(fmt::format("cannot read {}: {}", what_, std::strerror(errno)));
  pipe_ = S_ISFIFO(st.st_mode);
  if (!S_ISREG(st.st_mode) && !(pipe_ && allow_pipe))
    fail(fmt::format("{} is {}, not a regular file", what_, fileKindName(st.st_mode)));
  size_ = pipe_ ? 0 : static_cast<uint64_t>(st.st_size);
  // Reads of a pipe may wait for its writer (who ends it by closing it).
  if (pipe_) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReadableFile::fail(const std::string& message) const {
  throw UserError(SourceLocation{path_.string(), 0, 0}, message);
}

size_t ReadableFile::read(void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_, p + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(fmt::format("error while reading {}: {}", what_, std::strerror(errno)));
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

std::string ReadableFile::readRest(uint64_t max_bytes) {
  auto tooBig = [&] {
    fail(fmt::format("{} is larger than the limit of {}", what_, formatByteLimit(max_bytes)));
  };
  if (size_ > max_bytes) tooBig();
  std::string text;
  // The reported size may be stale or 0 (pipes, /proc): read until the end,
  // one byte past the limit at most.
  size_t chunk = static_cast<size_t>(std::min<uint64_t>(size_ + 1, max_bytes + 1));
  chunk = std::max<size_t>(chunk, 4096);
  while (true) {
    const size_t at = text.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, max_bytes + 1 - at));
    text.resize(at + want);
    const size_t got = read(text.data() + at, want);
    text.resize(at + got);
    if (text.size() > max_bytes) tooBig();
    if (got < want) return text;
  }
}

WritableFile::WritableFile(const std::filesystem::path& path, std::string_view what)
    : path_(path), what_(what) {
  fd_ =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd_ < 0 && errno == ENXIO)
    fail(fmt::format("cannot write {}: it is a named pipe (FIFO) that no one reads", what_));
  if (fd_ < 0) fail(fmt::format("cannot write {}: {}", what_, std::strerror(errno)));
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

void WritableFile::fail(const std::string& message) const {
  throw UserError(SourceLocation{path_.string(), 0, 0}, message);
}

void WritableFile::write(const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t done = ::write(fd_, p, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0)
      fail(fmt::format("error while writing {}: {}", what_,
                       done < 0 ? std::strerror(errno) : "nothing was written"));
    p += done;
    n -= static_cast<size_t>(done);
  }
}

void WritableFile::close() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    fail(fmt::format("error while writing {}: {}", what_, std::strerror(errno)));
}

std::string readBoundedFile(const std::filesystem::path& path, uint64_t max_bytes,
                            std::string_view what, bool allow_pipe) {
  return ReadableFile(path, what, allow_pipe).readRest(max_bytes);
}

std::string formatByteLimit(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  if (bytes >= kGiB && bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} bytes", bytes);
}

int writeFileReplacing(const std::filesystem::path& path, std::string_view bytes) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path temp = path;
  temp += fmt::format(".tmp-{}-{}", ::getpid(), counter++);
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) return errno;
  int err = 0;
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS and others report ENOSPC at close
  if (err == 0 && ::rename(temp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(temp.c_str());
  return err;
}

}  // namespace fusebox
