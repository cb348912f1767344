// NVRTC, opened with dlopen at first use (libnvrtc.so.13, .12 or libnvrtc.so,
// through the loader's search path, then the usual toolkit folders).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace fusebox::cuda {

struct NvrtcApi {
  std::string library;
  int major = 0, minor = 0;  // nvrtcVersion
  std::vector<int> archs;    // nvrtcGetSupportedArchs: 75, 80, 90, ...

  decltype(&::nvrtcGetErrorString) getErrorString;
  decltype(&::nvrtcVersion) version;
  decltype(&::nvrtcGetNumSupportedArchs) getNumSupportedArchs;
  decltype(&::nvrtcGetSupportedArchs) getSupportedArchs;
  decltype(&::nvrtcCreateProgram) createProgram;
  decltype(&::nvrtcDestroyProgram) destroyProgram;
  decltype(&::nvrtcCompileProgram) compileProgram;
  decltype(&::nvrtcGetProgramLogSize) getProgramLogSize;
  decltype(&::nvrtcGetProgramLog) getProgramLog;
  decltype(&::nvrtcGetCUBINSize) getCubinSize;
  decltype(&::nvrtcGetCUBIN) getCubin;
};

// Throws UserError "NVRTC not found (tried ...)" when no library opens; the
// failure is remembered.
const NvrtcApi& nvrtc();

}  // namespace fusebox::cuda
