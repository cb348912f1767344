// Runs a piece of a test in a child process that file permissions apply to
// even when the tests run as root: the child drops CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH, so a mode-000 file cannot be opened there. What the
// piece returns (or the message of what it threw) comes back as text.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <exception>
#include <functional>
#include <string>

namespace fusebox::testing {

inline std::string runWithoutPermissionBypass(const std::function<std::string()>& piece) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct caps[2] = {};
    std::string out;
    if (::syscall(SYS_capget, &header, caps) != 0) {
      out = "capget failed";
    } else {
      for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
        caps[cap / 32].effective &= ~(1u << (cap % 32));
      if (::syscall(SYS_capset, &header, caps) != 0) {
        out = "capset failed";
      } else {
        try {
          out = piece();
        } catch (const std::exception& e) {
          out = std::string("exception: ") + e.what();
        }
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
  return text;
}

}  // namespace fusebox::testing
