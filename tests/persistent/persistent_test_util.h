// Shared by the persistent suites (host backend here, cuda in
// persistent_gpu): the persistent schedulers, and a run that must produce
// one kernel matching the reference evaluator.
#pragma once

#include "persistent/norm_definitions.h"
#include "support/scheduler_run.h"

namespace fusebox::test {

inline SchedulerRun expectPersistentMatches(const std::string& scheduler, Backend& backend,
                                            const Fusion& fusion,
                                            const std::vector<Argument>& inputs,
                                            const DeviceProperties& device,
                                            const OptionSettings& options = {}) {
  auto s = builtinScheduler(scheduler);
  s->configure(options);
  return expectSchedulerMatchesEvaluator(*s, backend, fusion, inputs, device);
}

// An H100's multiprocessors and its opt-in shared memory a block (the
// heuristics' tests; the rest of the properties as DeviceProperties says).
inline DeviceProperties h100Properties() {
  DeviceProperties d;
  d.multiprocessor_count = 132;
  d.shared_memory_per_block = 227 * 1024;
  return d;
}

// A scheduler's compile-time and run-time decisions on `f` (the host's
// device properties).
// A scheduler's answer on `f` as a Decision; with `structural_only`, only a
// refusal of the structure counts (what any inputs would get).
inline Decision answerOf(const std::string& scheduler, const Fusion& f,
                         const std::vector<ArgumentInfo>& inputs, bool structural_only) {
  CompileTimeCache cache;
  auto s = builtinScheduler(scheduler);
  s->configure({});
  RuntimeInfo info(f, inputs, {});
  Answer answer = s->propose(f, info, cache);
  if (answer.proposed()) return Decision::accept();
  if (structural_only && !answer.refusal().structural()) return Decision::accept();
  return Decision::reject(answer.refusal().reason());
}

// The structural part of a scheduler's answer on `f` (its compile-time check).
inline Decision compileTime(const std::string& scheduler, const Fusion& f) {
  return answerOf(scheduler, f, someInputs(f), true);
}

inline Decision runTime(const std::string& scheduler, const Fusion& f,
                        const std::vector<ArgumentInfo>& inputs) {
  return answerOf(scheduler, f, inputs, false);
}

inline void expectReason(const Decision& d, const std::string& part) {
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find(part), std::string::npos) << d.reason();
}

inline TensorArgInfo tensorInfo(DataType dtype, std::vector<int64_t> sizes) {
  return TensorArgInfo{dtype, sizes, contiguousStrides(sizes), 16};
}

}  // namespace fusebox::test
