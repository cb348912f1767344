// A host plan that can also run on the runtime's backend itself, given the
// backend's tensors (device tensors on cuda, host tensors on host): for plans
// that call a library (cuBLAS) or move data between host and device on their
// own, and views that must not be copied. The runtime runs plain HostPlans on
// host tensors (copying device inputs to the host and the outputs back on
// cuda), KernelPlans by launching their kernel, and BackendPlans by calling
// runOn() with the backend. run() (HostPlan's) is the same on host tensors
// without a backend.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/scheduler.h>

#include <vector>

namespace fusebox {

class __attribute__((visibility("default"))) BackendPlan : public HostPlan {
 public:
  ~BackendPlan() override;
  // `inputs` live on `backend`; so must the returned outputs (in the segment
  // fusion's output order).
  virtual std::vector<Argument> runOn(Backend& backend,
                                      const std::vector<Argument>& inputs) const = 0;
};

}  // namespace fusebox
