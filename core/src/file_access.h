// Files fusebox reads or writes on the user's behalf (scripts, configs, .npy
// inputs, plugins, compiler output, kernel-cache side files), done so that no
// file can hang or exhaust the process: a FIFO never blocks an open, a device
// such as /dev/zero is refused rather than read forever, reads are bounded,
// and a write replaces whatever (FIFO, symbolic link) sits at the name.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace fusebox {

// What a file of this mode is, for messages: "a folder", "a named pipe
// (FIFO)", "a character device", ...; "a regular file" for one.
std::string fileKindName(mode_t mode);

// A file opened for reading with O_NONBLOCK (a FIFO without a writer does not
// block the open) and checked through its descriptor, so a swap after the
// check changes nothing. Only regular files are accepted, and pipes where
// `allow_pipe` (for `--config <(...)`); a pipe's reads then block as usual.
// Errors are UserErrors located at the file: "<path>: cannot open <what>:
// Permission denied", "<path>: <what> is a character device, not a regular
// file".
class ReadableFile {
 public:
  ReadableFile(const std::filesystem::path& path, std::string_view what, bool allow_pipe = false);
  ~ReadableFile();
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;

  // The size the file system reports (0 for a pipe, and for some /proc files).
  uint64_t size() const { return size_; }
  bool isPipe() const { return pipe_; }
  // Reads up to `n` bytes; fewer only at the end of the file.
  size_t read(void* data, size_t n);
  // The rest of the file; a UserError when it holds more than `max_bytes`.
  std::string readRest(uint64_t max_bytes);
  // "<path>: <message>" as a UserError located at the file.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::filesystem::path path_;
  std::string what_;
  int fd_ = -1;
  uint64_t size_ = 0;
  bool pipe_ = false;
};

// The whole of a regular file (or pipe, see ReadableFile) of at most
// `max_bytes` bytes; larger is a UserError naming the file and the limit.
std::string readBoundedFile(const std::filesystem::path& path, uint64_t max_bytes,
                            std::string_view what, bool allow_pipe = false);

// "16 MiB", "1 KiB", "300 bytes": a limit as messages and docs give it.
std::string formatByteLimit(uint64_t bytes);

// A file the user named for fusebox to write (an output .npy, a graph),
// opened with O_NONBLOCK so that a FIFO no one reads is an error at once
// rather than a wait; a FIFO with a reader, a device such as /dev/null or a
// regular file (created 0666 less the umask, emptied) is written as usual.
// Errors are UserErrors located at the file, naming `what`.
class WritableFile {
 public:
  WritableFile(const std::filesystem::path& path, std::string_view what);
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  void write(const void* data, size_t n);
  // Closes it, reporting an error a deferred write reports only now.
  void close();

 private:
  [[noreturn]] void fail(const std::string& message) const;
  std::filesystem::path path_;
  std::string what_;
  int fd_ = -1;
};

// Writes `bytes` to `path` through a new temporary file in the same folder
// that is then renamed over `path`, so whatever was there (a FIFO, a symbolic
// link, a file of another user) is replaced, never opened or followed.
// Returns 0, or the errno of the failed step (ENOSPC when the disk is full).
int writeFileReplacing(const std::filesystem::path& path, std::string_view bytes);

}  // namespace fusebox
