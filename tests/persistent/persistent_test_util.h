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
                                            const DeviceProperties& device) {
  auto s = builtinScheduler(scheduler);
  s->configure({});
  return expectSchedulerMatchesEvaluator(*s, backend, fusion, inputs, device);
}

}  // namespace fusebox::test
