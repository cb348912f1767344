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

// A scheduler's compile-time and run-time decisions on `f` (the host's
// device properties).
inline Decision compileTime(const std::string& scheduler, const Fusion& f) {
  CompileTimeCache cache;
  auto s = builtinScheduler(scheduler);
  s->configure({});
  return s->canScheduleCompileTime(f, cache);
}

inline Decision runTime(const std::string& scheduler, const Fusion& f,
                        const std::vector<ArgumentInfo>& inputs) {
  CompileTimeCache cache;
  auto s = builtinScheduler(scheduler);
  s->configure({});
  if (Decision d = s->canScheduleCompileTime(f, cache); !d) return d;
  RuntimeInfo info(f, inputs, {});
  return s->canScheduleRunTime(f, info, cache);
}

inline void expectReason(const Decision& d, const std::string& part) {
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find(part), std::string::npos) << d.reason();
}

inline TensorArgInfo tensorInfo(DataType dtype, std::vector<int64_t> sizes) {
  return TensorArgInfo{dtype, sizes, contiguousStrides(sizes), 16};
}

}  // namespace fusebox::test
