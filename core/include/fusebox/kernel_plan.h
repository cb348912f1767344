// A SegmentPlan that runs one generated kernel on a backend (cuda or host).
// The runtime allocates the outputs as `outputs` says, fills KernelParams from
// `bindings`, compiles `kernel` through the backend (and its kernel cache) and
// launches it with `launch`.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/scheduler.h>

#include <string>
#include <vector>

namespace fusebox {

class __attribute__((visibility("default"))) KernelPlan : public SegmentPlan {
 public:
  // How to allocate one segment output; sizes are known when the plan is made
  // (plans are per input signature).
  struct OutputSpec {
    DataType dtype;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;  // elements
    bool zero_init = false;        // e.g. outputs accumulated with atomics
  };

  KernelSource kernel;
  LaunchConfig launch;
  std::vector<ParamBinding> bindings;
  std::vector<OutputSpec> outputs;  // one per segment output, in order
  // Bytes every launch must read and write at least (each input read once,
  // each output written once): the denominator of GB/s in --bench.
  int64_t bytes_moved = 0;

  std::string describe() const override;
};

}  // namespace fusebox
