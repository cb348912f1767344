// Running a KernelPlan: its outputs allocated on a backend as its OutputSpecs
// say, its KernelParams filled from its bindings. The runtime and the tests
// that drive a scheduler directly share these.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/kernel_plan.h>

#include <string>
#include <vector>

namespace fusebox {

// One tensor per OutputSpec, zeroed where the spec says so; where `given`
// holds a defined tensor for an output (an input written in place), that one.
std::vector<Tensor> allocateKernelOutputs(Backend& backend, const KernelPlan& plan,
                                          const std::vector<Tensor>& given = {});

// Zeroed scratch buffers, one per ScratchData or IndexErrors binding (in
// binding order).
std::vector<Tensor> allocateKernelScratch(Backend& backend, const KernelPlan& plan);

// The kernel's parameter block: `inputs` are the segment's inputs (backend
// tensors and scalars), `outputs` and `scratch` what the two functions above
// made. A binding that names a missing or mistyped input, or a slot out of
// range, is an InternalError naming the binding (a scheduler bug).
KernelParams bindKernelParams(const KernelPlan& plan, const std::vector<Argument>& inputs,
                              const std::vector<Tensor>& outputs,
                              const std::vector<Tensor>& scratch = {});

// The IndexErrors buffer among a launch's `scratch` (nullptr when the plan
// has no index checks).
const Tensor* indexErrorBuffer(const KernelPlan& plan, const std::vector<Tensor>& scratch);
// The message for the words a kernel recorded in its IndexErrors buffer
// (copied to the host), naming the op, the index, the dim and its size, and
// the kernel; empty when the kernel met no index out of range. `index_checks` and `kernel` are
// the plan's (KernelPlan::index_checks, its kernel's name).
std::string indexErrorMessage(const std::vector<IndexCheck>& index_checks,
                              const std::string& kernel, const Tensor& host_words);

// After a launch: the first out-of-range index
// the kernel recorded in its IndexErrors buffer, if any, as a UserError
// naming the op, the index, the dim and its size (KernelPlan::index_checks).
// It waits for the kernel (a copy to the host), so only plans with index
// checks pay for it.
void checkKernelIndexErrors(Backend& backend, const KernelPlan& plan,
                            const std::vector<Tensor>& scratch);

// Allocates, binds and launches (asynchronous on cuda); returns the outputs.
std::vector<Tensor> launchKernelPlan(Backend& backend, const KernelPlan& plan,
                                     CompiledKernel& kernel, const std::vector<Argument>& inputs);

}  // namespace fusebox
