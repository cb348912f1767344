// Which backend a FusionRuntime runs its plans on, and the process-wide
// backend objects runtimes share (one CUDA context and allocator, one kernel
// cache in memory per backend kind).
#pragma once

#include <fusebox/backend/backend.h>

#include <memory>
#include <string_view>

namespace fusebox {

enum class BackendChoice {
  Default,  // cuda when a GPU is usable (cudaAvailable()), else host
  Cuda,
  Host,
  Eval,  // no kernels: only host plans (the reference evaluator) run
};

// "cuda" / "host" / "eval" / "default".
std::string_view toString(BackendChoice choice);
// "cuda", "host" or "eval"; anything else is a UserError listing them (`what`
// names the place, e.g. "--backend").
BackendChoice parseBackendChoice(std::string_view text, std::string_view what);

// Default resolved: Cuda when cudaAvailable() (probed once per process), else Host.
BackendChoice resolveBackendChoice(BackendChoice choice);

// The process's backend of that kind, created at first use (thread-safe).
// Cuda throws the UserError of createCudaBackend when no GPU is usable.
std::shared_ptr<Backend> sharedBackend(BackendKind kind);

}  // namespace fusebox
