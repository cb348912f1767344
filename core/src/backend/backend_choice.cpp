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
  if (kind == BackendKind::Host) {
    // Made in the initializer, so it is destroyed at exit before the statics
    // its construction made (and its kernel cache removes its scratch folder).
    static const std::shared_ptr<Backend> host = makeHostBackend();
    return host;
  }
  // The cuda backend is never destroyed: at exit the driver's function tables
  // may already be gone, and the driver frees the context with the process.
  // A failed creation is retried (and reported) on the next call.
  static std::mutex mutex;
  static auto* cuda = new std::shared_ptr<Backend>();
  std::lock_guard lock(mutex);
  if (!*cuda) *cuda = createCudaBackend();
  return *cuda;
}

}  // namespace fusebox
