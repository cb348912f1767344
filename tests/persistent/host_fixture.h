// The host suite's fixture: the persistent cases (persistent_cases.inc)
// and the host-only tests run on the host backend with an H100's SM count.
#pragma once

#include <fusebox/scheduler.h>
#include <gtest/gtest.h>

#include "support/host_suite.h"

class PersistentFixture : public ::testing::Test {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return fusebox::test::h100Shape(); }
  // An H200's shared memory a block (the opt-in maximum) and L2.
  static fusebox::DeviceProperties h200() {
    fusebox::DeviceProperties d = device();
    d.shared_memory_per_block = 227 * 1024;
    d.l2_cache_bytes = 50 << 20;
    return d;
  }
};
