#include "backend/host/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "file_access.h"

extern char** environ;

namespace fusebox::host {
namespace {

// Waits for `pid` until `deadline` (none when `limited` is false). True when
// it ended (its status in `status`); false when the time ran out.
bool waitUntil(pid_t pid, bool limited, std::chrono::steady_clock::time_point deadline, int* status,
               std::string* error) {
  using std::chrono::milliseconds;
  // A pidfd wakes the poll the moment the child ends; without one (kernels
  // before 5.3), poll the status every few milliseconds.
  const int pidfd = limited ? static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)) : -1;
  milliseconds nap{1};
  bool ended = false;
  while (true) {
    const pid_t r = ::waitpid(pid, status, limited ? WNOHANG : 0);
    if (r == pid) {
      ended = true;
      break;
    }
    if (r < 0 && errno != EINTR) {
      *error = std::strerror(errno);
      ended = true;
      break;
    }
    if (!limited || r < 0) continue;
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 60'000)));
    } else {
      std::this_thread::sleep_for(std::min(nap, left));
      nap = std::min(nap * 2, milliseconds(50));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  return ended;
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::filesystem::path& log,
                         double timeout_seconds) {
  ProcessResult result;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // A group of its own, so that a timeout kills the compiler's children too.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.error = std::strerror(rc);
    return result;
  }
  result.started = true;
  const bool limited = timeout_seconds > 0;
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(limited ? timeout_seconds : 0));
  int status = 0;
  if (!waitUntil(pid, limited, deadline, &status, &result.error)) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);  // in case it left its group
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.timed_out = true;
  }
  if (!result.error.empty()) return result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  // posix_spawnp reports a missing program as exit status 127 from the child.
  if (result.exit_code == 127 && readOutputFile(log, 1).empty()) {
    result.started = false;
    result.error = "program not found";
  }
  return result;
}

std::string readOutputFile(const std::filesystem::path& path, uint64_t max_bytes) {
  try {
    ReadableFile file(path, "the file");
    std::string text(static_cast<size_t>(std::min(file.size(), max_bytes)), '\0');
    text.resize(file.read(text.data(), text.size()));
    return text;
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace fusebox::host
