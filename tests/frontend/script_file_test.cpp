// Reading a script from a file: only a regular file of at most 16 MiB is
// read; a device (/dev/urandom), a FIFO or a bigger file is an error naming
// the file, never an endless read or a wait.
#include <fusebox/error.h>
#include <fusebox/frontend/python_definition.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/hang_guard.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string readError(const std::string& path) {
  try {
    parsePythonFile(path);
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, path);
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError for " << path;
  return "";
}

TEST(ScriptFile, DeviceIsRefusedNotReadForever) {
  testing::HangGuard guard;
  EXPECT_EQ(readError("/dev/urandom"),
            "/dev/urandom: the script is a character device, not a regular file");
  testing::TempDir dir;
  const fs::path link = dir.path() / "zero.py";
  fs::create_symlink("/dev/zero", link);
  EXPECT_THAT(readError(link.string()), HasSubstr("is a character device"));
}

TEST(ScriptFile, FifoIsRefusedWithoutWaitingForAWriter) {
  testing::TempDir dir;
  const fs::path fifo = dir.path() / "fifo.py";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  testing::HangGuard guard;
  EXPECT_THAT(readError(fifo.string()),
              HasSubstr("the script is a named pipe (FIFO), not a regular file"));
}

TEST(ScriptFile, ScriptOverTheLimitIsRefused) {
  testing::TempDir dir;
  const fs::path big = dir.write("big.py", "import torch\n");
  fs::resize_file(big, kMaxScriptBytes + 1);  // sparse: costs no disk
  EXPECT_THAT(readError(big.string()), HasSubstr("the script is larger than the limit of 16 MiB"));
  // At the limit it is read (and then parsed: a script of comments has no fusion).
  std::string comments(kMaxScriptBytes, '#');
  for (size_t at = 79; at < comments.size(); at += 80) comments[at] = '\n';
  std::ofstream(big, std::ios::trunc) << comments;
  EXPECT_THAT(readError(big.string()), HasSubstr("no fusion definition found"));
}

TEST(ScriptFile, MissingAndFolderAreErrorsNamingTheFile) {
  EXPECT_THAT(readError("/no/such/script.py"),
              HasSubstr("/no/such/script.py: cannot open the script: No such file or directory"));
  testing::TempDir dir;
  EXPECT_THAT(readError(dir.path().string()), HasSubstr("the script is a folder"));
}

}  // namespace
}  // namespace fusebox
