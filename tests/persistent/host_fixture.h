// The host suite's fixture: the persistent cases (persistent_cases.inc)
// and the host-only tests run on the host backend with an H100's SM count.
#pragma once

#include <fusebox/backend/host_backend.h>
#include <fusebox/scheduler.h>
#include <gtest/gtest.h>

#include <memory>

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
