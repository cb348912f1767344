#include "backend/cuda/dynamic_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace fusebox::cuda {

OpenedLibrary openFirst(const std::vector<std::string>& candidates, std::string& errors) {
  errors.clear();
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: the CUDA libraries' symbols stay out of the global namespace.
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      errors.clear();
      return {handle, candidate};
    }
    const char* why = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += why ? why : candidate + ": cannot be opened";
  }
  return {};
}

std::vector<std::string> toolkitLibraryCandidates(const char* env_override,
                                                  const std::vector<std::string>& names) {
  if (const char* path = std::getenv(env_override); path && *path) return {path};
  std::vector<std::string> candidates = names;
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root) {
      dirs.push_back(std::string(root) + "/lib64");
      dirs.push_back(std::string(root) + "/lib");
    }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/lib");
#ifdef FUSEBOX_CUDA_TOOLKIT_LIBRARY_DIR
  dirs.push_back(FUSEBOX_CUDA_TOOLKIT_LIBRARY_DIR);
#endif
  for (const std::string& dir : dirs)
    for (const std::string& name : names) candidates.push_back(dir + "/" + name);
  return candidates;
}

void* findSymbol(void* handle, const char* name) {
  return handle ? dlsym(handle, name) : nullptr;
}

}  // namespace fusebox::cuda
