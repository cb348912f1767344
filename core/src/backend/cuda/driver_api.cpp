#include "backend/cuda/driver_api.h"

#include <fusebox/error.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include "backend/cuda/dynamic_library.h"

// Two levels so the argument's macro (cuMemAlloc -> cuMemAlloc_v2) expands first.
#define FUSEBOX_CU_NAME_(x) #x
#define FUSEBOX_CU_NAME(x) FUSEBOX_CU_NAME_(x)

namespace fusebox::cuda {
namespace {

struct LoadResult {
  std::optional<DriverApi> api;
  std::string error;
};

LoadResult loadDriver() {
  const char* override_path = std::getenv("FUSEBOX_LIBCUDA");
  std::string library = override_path && *override_path ? override_path : "libcuda.so.1";
  std::string errors;
  OpenedLibrary lib = openFirst({library}, errors);
  if (!lib.handle)
    return {std::nullopt, fmt::format("no CUDA driver found ({}): {}", library, errors)};

  DriverApi api;
  api.library = lib.path;
  std::vector<std::string> missing;
  void* h = lib.handle;
#define FUSEBOX_BIND(field, fn) bindSymbol(h, api.field, FUSEBOX_CU_NAME(fn), missing)
  FUSEBOX_BIND(init, cuInit);
  FUSEBOX_BIND(driverGetVersion, cuDriverGetVersion);
  FUSEBOX_BIND(getErrorName, cuGetErrorName);
  FUSEBOX_BIND(getErrorString, cuGetErrorString);
  FUSEBOX_BIND(deviceGetCount, cuDeviceGetCount);
  FUSEBOX_BIND(deviceGet, cuDeviceGet);
  FUSEBOX_BIND(deviceGetAttribute, cuDeviceGetAttribute);
  FUSEBOX_BIND(deviceGetName, cuDeviceGetName);
  FUSEBOX_BIND(deviceTotalMem, cuDeviceTotalMem);
  FUSEBOX_BIND(primaryCtxRetain, cuDevicePrimaryCtxRetain);
  FUSEBOX_BIND(primaryCtxRelease, cuDevicePrimaryCtxRelease);
  FUSEBOX_BIND(ctxSetCurrent, cuCtxSetCurrent);
  FUSEBOX_BIND(ctxGetCurrent, cuCtxGetCurrent);
  FUSEBOX_BIND(moduleLoadData, cuModuleLoadData);
  FUSEBOX_BIND(moduleUnload, cuModuleUnload);
  FUSEBOX_BIND(moduleGetFunction, cuModuleGetFunction);
  FUSEBOX_BIND(funcGetAttribute, cuFuncGetAttribute);
  FUSEBOX_BIND(funcSetAttribute, cuFuncSetAttribute);
  FUSEBOX_BIND(launchKernel, cuLaunchKernel);
  FUSEBOX_BIND(launchCooperativeKernel, cuLaunchCooperativeKernel);
  FUSEBOX_BIND(launchKernelEx, cuLaunchKernelEx);
  FUSEBOX_BIND(occupancyMaxActiveBlocks, cuOccupancyMaxActiveBlocksPerMultiprocessor);
  FUSEBOX_BIND(memAlloc, cuMemAlloc);
  FUSEBOX_BIND(memFree, cuMemFree);
  FUSEBOX_BIND(memGetInfo, cuMemGetInfo);
  FUSEBOX_BIND(memcpyHtoDAsync, cuMemcpyHtoDAsync);
  FUSEBOX_BIND(memcpyDtoHAsync, cuMemcpyDtoHAsync);
  FUSEBOX_BIND(memcpyDtoDAsync, cuMemcpyDtoDAsync);
  FUSEBOX_BIND(memsetD8Async, cuMemsetD8Async);
  FUSEBOX_BIND(streamCreate, cuStreamCreate);
  FUSEBOX_BIND(streamDestroy, cuStreamDestroy);
  FUSEBOX_BIND(streamSynchronize, cuStreamSynchronize);
  FUSEBOX_BIND(eventCreate, cuEventCreate);
  FUSEBOX_BIND(eventDestroy, cuEventDestroy);
  FUSEBOX_BIND(eventRecord, cuEventRecord);
  FUSEBOX_BIND(eventSynchronize, cuEventSynchronize);
  FUSEBOX_BIND(eventQuery, cuEventQuery);
  FUSEBOX_BIND(memAllocHost, cuMemAllocHost);
  FUSEBOX_BIND(memFreeHost, cuMemFreeHost);
#undef FUSEBOX_BIND
  // cuEventElapsedTime_v2 (CUDA 12.8+) has the same signature as the original;
  // older drivers have only the latter.
  api.eventElapsedTime = reinterpret_cast<decltype(api.eventElapsedTime)>(
      findSymbol(h, FUSEBOX_CU_NAME(cuEventElapsedTime)));
  if (!api.eventElapsedTime) bindSymbol(h, api.eventElapsedTime, "cuEventElapsedTime", missing);

  if (!missing.empty()) {
    std::string names;
    for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
    return {std::nullopt,
            fmt::format("the CUDA driver {} is too old for this build of fusebox (CUDA {}.{} "
                        "headers): it lacks {}",
                        lib.path, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, names)};
  }
  CUresult init = api.init(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* text = nullptr;
    api.getErrorName(init, &name);
    api.getErrorString(init, &text);
    return {std::nullopt, fmt::format("the CUDA driver {} failed to initialize: {} ({})", lib.path,
                                      name ? name : "unknown error", text ? text : "")};
  }
  api.driverGetVersion(&api.version);
  return {std::move(api), {}};
}

}  // namespace

const DriverApi& driver() {
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = loadDriver(); });
  if (!result.api) throw UserError(result.error);
  return *result.api;
}

std::string errorText(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  const DriverApi& api = driver();
  if (api.getErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (api.getErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  if (!name) return fmt::format("CUDA error {}", static_cast<int>(result));
  return text ? fmt::format("{} ({})", name, text) : std::string(name);
}

void check(CUresult result, std::string_view what) {
  if (result != CUDA_SUCCESS) throw UserError(fmt::format("{}: {}", what, errorText(result)));
}

}  // namespace fusebox::cuda
