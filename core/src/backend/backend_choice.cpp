// Choosing a backend, and one backend object per kind per process.
#include <fusebox/backend/backend_choice.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/backend/host_backend.h>
#include <fusebox/error.h>

#include <fmt/format.h>

#include <mutex>

namespace fusebox {

std::string_view toString(BackendChoice choice) {
  switch (choice) {
    case BackendChoice::Default:
      return "default";
    case BackendChoice::Cuda:
      return "cuda";
    case BackendChoice::Host:
      return "host";
    case BackendChoice::Eval:
      return "eval";
  }
  return "?";
}

BackendChoice parseBackendChoice(std::string_view text, std::string_view what) {
  if (text == "cuda") return BackendChoice::Cuda;
  if (text == "host") return BackendChoice::Host;
  if (text == "eval") return BackendChoice::Eval;
  throw UserError(fmt::format("{} {}: expected one of cuda, host, eval", what, text));
}

BackendChoice resolveBackendChoice(BackendChoice choice) {
  if (choice != BackendChoice::Default) return choice;
  static const bool gpu = cudaAvailable().available;
  return gpu ? BackendChoice::Cuda : BackendChoice::Host;
}

std::shared_ptr<Backend> sharedBackend(BackendKind kind) {
  static std::mutex mutex;
  static std::shared_ptr<Backend> cuda, host;
  std::lock_guard lock(mutex);
  std::shared_ptr<Backend>& slot = kind == BackendKind::Cuda ? cuda : host;
  if (!slot) {
    if (kind == BackendKind::Cuda)
      slot = createCudaBackend();
    else
      slot = makeHostBackend();
  }
  return slot;
}

}  // namespace fusebox
