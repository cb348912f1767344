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
    // The segment input whose memory this output may be written into
    // (RuntimeInfo::inPlaceRequests, honoured), or -1. The runtime then
    // passes that input's tensor for the output when it is the caller's own
    // memory and nothing else reads it; otherwise it allocates as usual (the
    // kernel is correct either way).
    int in_place_of_input = -1;
  };

  KernelSource kernel;
  LaunchConfig launch;
  std::vector<ParamBinding> bindings;
  std::vector<OutputSpec> outputs;  // one per segment output, in order
  // The run-time index checks of the kernel's indirect loads (index_select,
  // gather, ...), in the order of the ids it records them by (id k + 1 is
  // index_checks[k]); non-empty only with an IndexErrors binding. A launch
  // that meets an index out of range records the first one and reads
  // element 0 instead; the runtime then raises a UserError
  // (IndexErrorRecord, fusebox/index_error_record.h).
  std::vector<IndexCheck> index_checks;
  // Bytes every launch must read and write at least (each input read once,
  // each output written once): the denominator of GB/s in --bench.
  int64_t bytes_moved = 0;
  // The kernel as its scheduler built it in the kernel IR, as the readable
  // dump prints it (`--dump kernel_ir`; docs/kernel-ir.md); empty for a
  // kernel written without the IR.
  std::string kernel_ir;

  std::string describe() const override;
};

}  // namespace fusebox
