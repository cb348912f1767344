// A watchdog for tests of steps that must never block (opening a FIFO,
// reading a device): if the guarded scope takes longer than `seconds`, the
// test process ends with SIGALRM, so a regression fails the run rather than
// hanging it. Not a timing assertion: the limit is far above the step's cost.
#pragma once

#include <unistd.h>

namespace fusebox::testing {

class HangGuard {
 public:
  explicit HangGuard(unsigned seconds = 120) { ::alarm(seconds); }
  ~HangGuard() { ::alarm(0); }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;
};

}  // namespace fusebox::testing
