#include "backend/cuda/nvrtc_api.h"

#include <fusebox/error.h>

#include <mutex>
#include <optional>

#include "backend/cuda/dynamic_library.h"

namespace fusebox::cuda {
namespace {

struct LoadResult {
  std::optional<NvrtcApi> api;
  std::string error;
};

LoadResult loadNvrtc() {
  std::string errors;
  OpenedLibrary lib =
      openFirst(toolkitLibraryCandidates("FUSEBOX_LIBNVRTC",
                                         {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}),
                errors);
  if (!lib.handle)
    return {std::nullopt, fmt::format("NVRTC (libnvrtc.so.13) not found; set FUSEBOX_LIBNVRTC or "
                                      "add the CUDA toolkit's lib64 to LD_LIBRARY_PATH. Tried: {}",
                                      errors)};
  NvrtcApi api;
  api.library = lib.path;
  std::vector<std::string> missing;
  void* h = lib.handle;
  bindSymbol(h, api.getErrorString, "nvrtcGetErrorString", missing);
  bindSymbol(h, api.version, "nvrtcVersion", missing);
  bindSymbol(h, api.getNumSupportedArchs, "nvrtcGetNumSupportedArchs", missing);
  bindSymbol(h, api.getSupportedArchs, "nvrtcGetSupportedArchs", missing);
  bindSymbol(h, api.createProgram, "nvrtcCreateProgram", missing);
  bindSymbol(h, api.destroyProgram, "nvrtcDestroyProgram", missing);
  bindSymbol(h, api.compileProgram, "nvrtcCompileProgram", missing);
  bindSymbol(h, api.getProgramLogSize, "nvrtcGetProgramLogSize", missing);
  bindSymbol(h, api.getProgramLog, "nvrtcGetProgramLog", missing);
  bindSymbol(h, api.getCubinSize, "nvrtcGetCUBINSize", missing);
  bindSymbol(h, api.getCubin, "nvrtcGetCUBIN", missing);
  if (!missing.empty()) {
    std::string names;
    for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
    return {std::nullopt, fmt::format("NVRTC {} is too old: it lacks {}", lib.path, names)};
  }
  api.version(&api.major, &api.minor);
  int count = 0;
  if (api.getNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    api.archs.resize(count);
    if (api.getSupportedArchs(api.archs.data()) != NVRTC_SUCCESS) api.archs.clear();
  }
  return {std::move(api), {}};
}

}  // namespace

const NvrtcApi& nvrtc() {
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = loadNvrtc(); });
  if (!result.api) throw UserError(result.error);
  return *result.api;
}

}  // namespace fusebox::cuda
