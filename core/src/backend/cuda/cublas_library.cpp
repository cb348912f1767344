#include "backend/cuda/cublas_library.h"

#include <fusebox/error.h>

#include <mutex>
#include <optional>
#include <vector>

#include "backend/cuda/dynamic_library.h"

namespace fusebox::cuda {
namespace {

struct LoadResult {
  std::optional<CublasApi> api;
  std::string error;
};

LoadResult loadCublas() {
  std::string errors;
  OpenedLibrary lib =
      openFirst(toolkitLibraryCandidates("FUSEBOX_LIBCUBLAS",
                                         {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}),
                errors);
  if (!lib.handle)
    return {std::nullopt,
            fmt::format("cuBLAS (libcublas.so.13) not found; set FUSEBOX_LIBCUBLAS or add the CUDA "
                        "toolkit's lib64 to LD_LIBRARY_PATH. Tried: {}",
                        errors)};
  CublasApi api;
  api.library = lib.path;
  std::vector<std::string> missing;
  void* h = lib.handle;
  bindSymbol(h, api.create, "cublasCreate_v2", missing);
  bindSymbol(h, api.destroy, "cublasDestroy_v2", missing);
  bindSymbol(h, api.setStream, "cublasSetStream_v2", missing);
  bindSymbol(h, api.setMathMode, "cublasSetMathMode", missing);
  bindSymbol(h, api.getProperty, "cublasGetProperty", missing);
  bindSymbol(h, api.getStatusName, "cublasGetStatusName", missing);
  bindSymbol(h, api.getStatusString, "cublasGetStatusString", missing);
  bindSymbol(h, api.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx", missing);
  if (!missing.empty()) {
    std::string names;
    for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
    return {std::nullopt, fmt::format("cuBLAS {} is too old: it lacks {}", lib.path, names)};
  }
  int major = 0, minor = 0, patch = 0;
  api.getProperty(MAJOR_VERSION, &major);
  api.getProperty(MINOR_VERSION, &minor);
  api.getProperty(PATCH_LEVEL, &patch);
  api.version = major * 10000 + minor * 100 + patch;
  return {std::move(api), {}};
}

}  // namespace

const CublasApi& cublas() {
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = loadCublas(); });
  if (!result.api) throw UserError(result.error);
  return *result.api;
}

void checkCublas(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const CublasApi& api = cublas();
  const char* name = api.getStatusName(status);
  const char* text = api.getStatusString(status);
  throw UserError(fmt::format("{}: {} ({})", what, name ? name : "cuBLAS error",
                              text ? text : std::to_string(static_cast<int>(status))));
}

}  // namespace fusebox::cuda
