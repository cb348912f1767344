// Running a KernelPlan: its outputs allocated on a backend as its OutputSpecs
// say, its KernelParams filled from its bindings. The runtime and the tests
// that drive a scheduler directly share these.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/index_error_record.h>
#include <fusebox/kernel_plan.h>

#include <memory>
#include <string>
#include <vector>

namespace fusebox {

// One tensor per OutputSpec, zeroed where the spec says so; where `given`
// holds a defined tensor for an output (an input written in place), that one.
std::vector<Tensor> allocateKernelOutputs(Backend& backend, const KernelPlan& plan,
                                          const std::vector<Tensor>& given = {});

// What the launches of one plan share, made at its first launch and kept:
// the buffers of its kept ScratchData bindings (ParamBinding::kept), zeroed
// once, and its IndexErrorRecord. The runtime keeps one per scheduled
// segment, so every call's launch reuses them and queues no zeroing.
struct SharedScratch {
  std::vector<Tensor> kept;  // one per kept ScratchData binding, in binding order
  std::shared_ptr<IndexErrorRecord> index_errors;  // null without index checks

  // Makes `index_errors` when `plan` has index checks and it is not made
  // yet; returns whether it made it (the runtime then registers it, before
  // anything else of the launch can fail).
  bool makeIndexErrors(Backend& backend, const KernelPlan& plan);
};

// One buffer per ScratchData or IndexErrors binding, in binding order: from
// `shared` for kept scratch and the index-error words (made and zeroed there
// at the first call: makeIndexErrors), freshly allocated and zeroed for any
// other scratch.
std::vector<Tensor> allocateKernelScratch(Backend& backend, const KernelPlan& plan,
                                          SharedScratch& shared);

// The kernel's parameter block: `inputs` are the segment's inputs (backend
// tensors and scalars), `outputs` and `scratch` what the two functions above
// made. A binding that names a missing or mistyped input, or a slot out of
// range, is an InternalError naming the binding (a scheduler bug).
KernelParams bindKernelParams(const KernelPlan& plan, const std::vector<Argument>& inputs,
                              const std::vector<Tensor>& outputs,
                              const std::vector<Tensor>& scratch = {});

// After a launch: waits for it and raises the first out-of-range index its
// kernel recorded, if any, as a UserError naming the op, the index, the dim
// and its size (KernelPlan::index_checks). Nothing to do (and no wait) for a
// plan without index checks (a null record).
void checkIndexErrors(IndexErrorRecord* index_errors);

// Allocates, binds and launches (asynchronous on cuda; a plan with index
// checks waits for its kernel); returns the outputs.
std::vector<Tensor> launchKernelPlan(Backend& backend, const KernelPlan& plan,
                                     CompiledKernel& kernel, const std::vector<Argument>& inputs);

}  // namespace fusebox
