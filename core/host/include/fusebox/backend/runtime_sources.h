// The device runtime library (core/runtime), embedded in libfusebox_runtime at
// build time: what generated kernels include through <fusebox_runtime.cuh>.
// The cuda backend hands these to NVRTC as in-memory headers; the host backend
// writes them once into its cache folder and compiles against that copy.
#pragma once

#include <string>
#include <vector>

namespace fusebox {

struct RuntimeHeader {
  std::string name;  // include name, relative to core/runtime: "fusebox_runtime/math.cuh"
  std::string text;
};

// Every runtime file, sorted by name; includes the host emulation layer
// (fusebox_runtime/host/), which NVRTC never opens.
const std::vector<RuntimeHeader>& embeddedRuntimeHeaders();

// Hex SHA-256 over every header's name and text: part of every kernel cache key.
const std::string& embeddedRuntimeHash();

}  // namespace fusebox
