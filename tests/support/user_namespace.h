// Runs a piece of a test in a child process that is root of its own user and
// mount namespaces, reached without privileges: there it may bind-mount files,
// and a file of a user it cannot map shows as the overflow user id (65534).
// So a test can put another user's file where it wants one without root. When
// the tests do run as root, the child first becomes user 65534 (and takes
// `folder` along), so the unprivileged path is the one tested everywhere.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>

namespace fusebox::testing {

struct NamespaceRun {
  bool ran = false;  // false: no such namespace here, and `text` says why
  std::string text;  // what the piece returned (or the message of what it threw)
};

namespace user_namespace_detail {

inline bool writeFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Becomes root of new user and mount namespaces; "" or why not.
inline std::string enter(const std::filesystem::path& folder) {
  constexpr uid_t kNobody = 65534;
  if (::geteuid() == 0) {
    if (::chown(folder.c_str(), kNobody, kNobody) != 0)
      return std::string("chown of the test folder failed: ") + std::strerror(errno);
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
      return std::string("dropping root failed: ") + std::strerror(errno);
    // Changing user made the process undumpable, which leaves /proc/self
    // owned by root: the id maps below could not be written.
    if (::prctl(PR_SET_DUMPABLE, 1) != 0)
      return std::string("prctl(PR_SET_DUMPABLE) failed: ") + std::strerror(errno);
  }
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return std::string("unprivileged user namespaces are not available (unshare: ") +
           std::strerror(errno) + ")";
  if (!writeFile("/proc/self/setgroups", "deny") ||
      !writeFile("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
      !writeFile("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
    return std::string("writing the namespace's id maps failed: ") + std::strerror(errno);
  // Mounts made here stay here.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return std::string("making mounts private failed: ") + std::strerror(errno);
  return "";
}

}  // namespace user_namespace_detail

inline NamespaceRun runInUserNamespace(const std::filesystem::path& folder,
                                       const std::function<std::string()>& piece) {
  int fds[2];
  if (::pipe(fds) != 0) return {false, "pipe failed"};
  const pid_t pid = ::fork();
  if (pid < 0) return {false, "fork failed"};
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (std::string why = user_namespace_detail::enter(folder); !why.empty()) {
      out = "S" + why;
    } else {
      try {
        out = "R" + piece();
      } catch (const std::exception& e) {
        out = std::string("Rexception: ") + e.what();
      }
    }
    for (size_t at = 0; at < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // A child that died without an answer is the piece's failure, not a skip.
  if (text.empty()) return {true, "the child process ended without an answer"};
  return {text[0] == 'R', text.substr(1)};
}

}  // namespace fusebox::testing
