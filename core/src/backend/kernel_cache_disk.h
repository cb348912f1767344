// The disk level of the kernel cache: one file per entry in a private folder,
// written atomically, checked on read (ownership, permissions, header,
// checksum). All file access goes through a descriptor of the folder opened
// once and checked, so swapping the folder (or a symlink to it) afterwards
// changes nothing.
#pragma once

#include <fusebox/backend/backend.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

struct stat;

namespace fusebox::cache_detail {

// Why a folder, or an entry (a file of cached code), with this status is not
// trusted, or "" when it is. A folder must be one, belong to this user and be
// writable by no one else; an entry must be a regular file that belongs to
// this user, is writable by no one else, has no set-user/group-ID bit and is
// readable by its owner.
std::string folderDistrustReason(const struct stat& st);
std::string entryDistrustReason(const struct stat& st);

class DiskStore {
 public:
  using Warn = std::function<void(const std::string&)>;
  DiskStore(std::filesystem::path directory, Warn warn);
  ~DiskStore();
  DiskStore(const DiskStore&) = delete;
  DiskStore& operator=(const DiskStore&) = delete;

  // Creates the folder (0700) if needed and checks it, once; false (after a
  // warning) when it cannot be used.
  bool usable();
  // The payload of a valid entry; nullopt on a miss. `rejected` is set when an
  // entry existed but was refused or corrupt (a warning says which).
  std::optional<std::string> load(const std::string& key, BackendKind backend, bool* rejected);
  // Writes an entry atomically; 0, or the errno of the step that failed (after
  // a warning, except for ENOSPC and EDQUOT, which the caller reports).
  int store(const std::string& key, BackendKind backend, const std::string& payload);

  static std::string entryName(const std::string& key, BackendKind backend);

 private:
  bool open();
  std::filesystem::path directory_;
  Warn warn_;
  std::once_flag opened_;
  bool usable_ = false;
  int dir_fd_ = -1;
};

}  // namespace fusebox::cache_detail
