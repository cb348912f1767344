// Runs one repro script through the default pipeline (passes, segmenter,
// schedulers) and compares everything it returns with the reference evaluator
// run on a copy of the inputs taken before the call.
#pragma once

#include <fusebox/backend/backend_choice.h>

#include <memory>
#include <string>
#include <vector>

namespace fusebox::fuzz {

struct CheckOptions {
  BackendChoice backend = BackendChoice::Host;  // Host (kernels) or Eval (no kernels)
  // Run a second time with other input values of the same signature (a cache
  // hit must not reuse values baked into the first call's plans).
  bool second_run = true;
  // On the eval backend, then a third call with every extent above 1 grown
  // by one (a new signature: the cache must not reuse the first one's plans).
  bool resized_run = true;
  // An inexact float output off by at most this many times its tolerance is
  // counted as rounding ("precision"), not as a failure.
  double precision_slack = 100;
  // The configuration (passes, schedulers); empty: fusebox's default.
  std::string config_file;
};

enum class Verdict {
  Pass,
  Invalid,    // the evaluator and the runtime both refuse the case (a UserError each)
  Precision,  // only small differences on inexact outputs
  Fail,
};

struct CheckResult {
  Verdict verdict = Verdict::Pass;
  // For failures: "mismatch", "exact-mismatch", "shape", "layout",
  // "input-modified", "runtime-rejects", "reference-rejects", "internal-error",
  // "parse"; "crash" and "hang" come from the supervisor.
  std::string category;
  std::string message;
  // What two failures have in common when they are the same bug: the category
  // and the message with numbers and names blurred.
  std::string signature() const;
  int64_t kernels_compiled = 0;
};

// Names tensors and numbers out of a message, so that messages of one bug
// compare equal: "T12_g dim 3 has size 5" -> "T#_g dim # has size #".
std::string blurMessage(const std::string& message, size_t max_length = 120);

class DifferentialChecker {
 public:
  explicit DifferentialChecker(const CheckOptions& options);
  ~DifferentialChecker();
  DifferentialChecker(const DifferentialChecker&) = delete;
  DifferentialChecker& operator=(const DifferentialChecker&) = delete;

  // The script's "# fuzz-exact:" line names outputs that must match bit for
  // bit, its "# fuzz-tolerance:" line outputs compared with a less precise
  // dtype's tolerance, its "# fuzz-disable-passes:" line passes left out of
  // the pipeline (fuzz_case.h).
  CheckResult check(const std::string& script, BackendChoice backend);
  CheckResult check(const std::string& script) { return check(script, options_.backend); }

 private:
  struct Impl;
  CheckOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fusebox::fuzz
