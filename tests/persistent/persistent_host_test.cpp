// The persistent schedulers on the host backend, against the reference
// evaluator (the cases are shared with the GPU suite: persistent_cases.inc),
// plus their rejections, each with its reason.
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include "persistent/persistent_test_util.h"

class PersistentFixture : public ::testing::Test {
 protected:
  static fusebox::Backend& backend() {
    static std::unique_ptr<fusebox::Backend> b = fusebox::makeHostBackend();
    return *b;
  }
  // An H100's shape, so the heuristics pick what a GPU gets.
  static fusebox::DeviceProperties device() {
    fusebox::DeviceProperties d;
    d.multiprocessor_count = 132;
    return d;
  }
};

#include "persistent/persistent_cases.inc"
