// The supervisor: a crash or a hang of one case is reported and the run goes on.
#include "supervisor.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include <unistd.h>

namespace fusebox::fuzz {
namespace {

TEST(FuzzSupervisor, ReportsCrashesAndHangsAndGoesOn) {
  WorkerCode code;
  code.run_index = [](int64_t i, WorkerContext& ctx) -> std::optional<FailureReport> {
    ctx.setCurrentInput("case " + std::to_string(i));
    ctx.count("ran");
    if (i == 3) raise(SIGSEGV);
    if (i == 5) std::this_thread::sleep_for(std::chrono::seconds(60));
    if (i == 7) return FailureReport{-1, "mismatch", "mismatch: x", "wrong", "case 7"};
    return std::nullopt;
  };
  SupervisorOptions o;
  o.case_timeout_seconds = 1;
  Supervisor sup(code, o);
  std::vector<FailureReport> failures;
  int64_t next =
      sup.runRange(0, 10, std::nullopt, [&](const FailureReport& r) { failures.push_back(r); });
  EXPECT_EQ(next, 10);
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_EQ(failures[0].index, 3);
  EXPECT_EQ(failures[0].category, "crash");
  EXPECT_EQ(failures[0].input, "case 3");
  EXPECT_EQ(failures[1].index, 5);
  EXPECT_EQ(failures[1].category, "hang");
  EXPECT_EQ(failures[2].index, 7);
  EXPECT_EQ(failures[2].category, "mismatch");
  EXPECT_EQ(sup.counters().at("ran"), 10);
  EXPECT_EQ(sup.workerRestarts(), 2);
}

TEST(FuzzSupervisor, ChecksOneInput) {
  WorkerCode code;
  code.check_input = [](const std::string& s, WorkerContext&) -> std::optional<FailureReport> {
    if (s == "crash") raise(SIGABRT);
    if (s == "bad") return FailureReport{-1, "x", "x: bad", "bad input", s};
    return std::nullopt;
  };
  Supervisor sup(code, {});
  EXPECT_FALSE(sup.check("fine").has_value());
  auto bad = sup.check("bad");
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->signature, "x: bad");
  auto crash = sup.check("crash");
  ASSERT_TRUE(crash.has_value());
  EXPECT_EQ(crash->category, "crash");
  EXPECT_FALSE(sup.check("fine").has_value());  // a new worker took over
}

}  // namespace
}  // namespace fusebox::fuzz
