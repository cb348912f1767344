// Opening the CUDA libraries with dlopen at first use, and binding their
// functions by name. A library that cannot be opened, or lacks a function,
// is reported with what was tried, never a crash.
#pragma once

#include <string>
#include <vector>

namespace fusebox::cuda {

struct OpenedLibrary {
  void* handle = nullptr;  // dlopen handle (never closed: the process keeps it)
  std::string path;        // what was opened
};

// Opens the first candidate that loads. Each candidate is a file name (searched
// by the dynamic loader) or a path. On failure returns a null handle and sets
// `errors` to one "candidate: dlerror" line per attempt.
OpenedLibrary openFirst(const std::vector<std::string>& candidates, std::string& errors);

// Candidates for a toolkit library (nvrtc, cublas): `env_override` when set
// (alone), else each of `names` through the loader's search, then in
// $CUDA_HOME, $CUDA_PATH, /usr/local/cuda and the toolkit found at build time.
std::vector<std::string> toolkitLibraryCandidates(const char* env_override,
                                                  const std::vector<std::string>& names);

// dlsym; nullptr when absent.
void* findSymbol(void* handle, const char* name);

// Binds `fn` to the symbol `name`, or records `name` in `missing`.
template <class Fn>
void bindSymbol(void* handle, Fn& fn, const char* name, std::vector<std::string>& missing) {
  fn = reinterpret_cast<Fn>(findSymbol(handle, name));
  if (!fn) missing.emplace_back(name);
}

}  // namespace fusebox::cuda
