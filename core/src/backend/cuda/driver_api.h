// The CUDA driver API, opened with dlopen("libcuda.so.1") at first use. cuda.h
// supplies the types and, through its macros, the versioned symbol names
// (cuMemAlloc -> cuMemAlloc_v2), so the table binds what the header declares.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

namespace fusebox::cuda {

struct DriverApi {
  std::string library;  // the file that was opened
  int version = 0;      // cuDriverGetVersion, e.g. 13000

  decltype(&::cuInit) init;
  decltype(&::cuDriverGetVersion) driverGetVersion;
  decltype(&::cuGetErrorName) getErrorName;
  decltype(&::cuGetErrorString) getErrorString;
  decltype(&::cuDeviceGetCount) deviceGetCount;
  decltype(&::cuDeviceGet) deviceGet;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute;
  decltype(&::cuDeviceGetName) deviceGetName;
  decltype(&::cuDeviceTotalMem) deviceTotalMem;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain;
  decltype(&::cuDevicePrimaryCtxRelease) primaryCtxRelease;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent;
  decltype(&::cuCtxGetCurrent) ctxGetCurrent;
  decltype(&::cuModuleLoadData) moduleLoadData;
  decltype(&::cuModuleUnload) moduleUnload;
  decltype(&::cuModuleGetFunction) moduleGetFunction;
  decltype(&::cuFuncGetAttribute) funcGetAttribute;
  decltype(&::cuFuncSetAttribute) funcSetAttribute;
  decltype(&::cuLaunchKernel) launchKernel;
  decltype(&::cuLaunchCooperativeKernel) launchCooperativeKernel;
  decltype(&::cuLaunchKernelEx) launchKernelEx;  // thread-block clusters
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancyMaxActiveBlocks;
  decltype(&::cuMemAlloc) memAlloc;
  decltype(&::cuMemFree) memFree;
  decltype(&::cuMemGetInfo) memGetInfo;
  decltype(&::cuMemcpyHtoDAsync) memcpyHtoDAsync;
  decltype(&::cuMemcpyDtoHAsync) memcpyDtoHAsync;
  decltype(&::cuMemcpyDtoDAsync) memcpyDtoDAsync;
  decltype(&::cuMemsetD8Async) memsetD8Async;
  decltype(&::cuStreamCreate) streamCreate;
  decltype(&::cuStreamDestroy) streamDestroy;
  decltype(&::cuStreamSynchronize) streamSynchronize;
  decltype(&::cuEventCreate) eventCreate;
  decltype(&::cuEventDestroy) eventDestroy;
  decltype(&::cuEventRecord) eventRecord;
  decltype(&::cuEventSynchronize) eventSynchronize;
  decltype(&::cuEventQuery) eventQuery;
  decltype(&::cuMemAllocHost) memAllocHost;
  decltype(&::cuMemFreeHost) memFreeHost;
  decltype(&::cuEventElapsedTime) eventElapsedTime;
};

// Opens the driver and calls cuInit(0) on the first call; later calls return the
// same table. Throws UserError "no CUDA driver found (libcuda.so.1): ..." when
// the library is missing, and a UserError naming the missing functions or the
// cuInit error otherwise (the failure is remembered and rethrown).
const DriverApi& driver();

// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string errorText(CUresult result);

// Throws UserError "<what>: <errorText>" unless result is CUDA_SUCCESS.
void check(CUresult result, std::string_view what);

}  // namespace fusebox::cuda
