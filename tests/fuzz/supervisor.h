// Runs fuzz work in a forked worker process, so that a crash (a signal), a
// hang (a case over its time limit) or runaway memory (an address-space limit)
// is recorded as a finding instead of ending the run. The worker announces the
// case it is on and its input in shared memory; when it dies the supervisor
// reports that case and starts a new worker after it.
//
// The worker is forked from the supervisor, which must not have started
// threads (the host backend's are started in the worker).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::fuzz {

// A failure as the worker or the supervisor saw it.
struct FailureReport {
  int64_t index = -1;  // case index (seed or mutation number); -1 for a checked input
  std::string category;
  std::string signature;
  std::string message;
  std::string input;  // the script or the mutated text
};

// What the worker's code sees while it runs a case.
class WorkerContext {
 public:
  // The input of the case now running (shown if the case crashes or hangs).
  virtual void setCurrentInput(const std::string& input) = 0;
  virtual void count(const std::string& counter, int64_t n = 1) = 0;
  virtual ~WorkerContext() = default;
};

struct WorkerCode {
  // Called once in each new worker process, before its first case.
  std::function<void()> setup;
  // Runs case `index`; returns a report when it failed.
  std::function<std::optional<FailureReport>(int64_t index, WorkerContext&)> run_index;
  // Checks one given input (minimization); returns the report, or nullopt
  // when it passes.
  std::function<std::optional<FailureReport>(const std::string& input, WorkerContext&)> check_input;
};

struct SupervisorOptions {
  double case_timeout_seconds = 60;
  int64_t address_space_limit_mb = 0;  // 0: none
  bool verbose = false;
};

class Supervisor {
 public:
  Supervisor(WorkerCode code, SupervisorOptions options);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Runs cases [begin, end) until done or `deadline`; calls `on_failure` for
  // each failure (crashes and hangs included) and `on_progress` about once a
  // second. Returns the index after the last case started.
  int64_t runRange(int64_t begin, int64_t end,
                   std::optional<std::chrono::steady_clock::time_point> deadline,
                   const std::function<void(const FailureReport&)>& on_failure,
                   const std::function<void(int64_t done)>& on_progress = {});
  // Checks one input in the worker (restarting it if it dies): the report, or
  // nullopt when the input passes.
  std::optional<FailureReport> check(const std::string& input);

  // Counters summed over every worker this supervisor ran (they live in the
  // shared state, so a worker's death loses none).
  std::map<std::string, int64_t> counters() const;
  int64_t workerRestarts() const { return restarts_; }

 public:
  struct Shared;

 private:
  void startWorker();
  void stopWorker();
  void workerMain();
  // Waits for the worker's next message or its death; nullopt on death (the
  // report of the crash or hang is in `death`).
  std::optional<std::string> receive(FailureReport* death, const std::function<void()>& on_tick);

  WorkerCode code_;
  SupervisorOptions options_;
  Shared* shared_ = nullptr;
  int pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  int64_t restarts_ = 0;
};

std::string encodeReport(const FailureReport& r);
FailureReport decodeReport(const std::string& s);

}  // namespace fusebox::fuzz
