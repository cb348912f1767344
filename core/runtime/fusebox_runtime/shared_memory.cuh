// The launch's dynamic shared memory (LaunchConfig::dynamic_shared_memory
// bytes, 16-byte aligned). Kernels use this rather than declaring their own
// `extern __shared__` array, which the host backend cannot provide.
#pragma once

namespace fusebox {

#if defined(FUSEBOX_CUDA_COMPILER)
extern __shared__ __align__(16) unsigned char fusebox_dynamic_shared_memory[];
template <typename T>
FUSEBOX_DEVICE T* dynamicSharedMemory() {
  return reinterpret_cast<T*>(fusebox_dynamic_shared_memory);
}
#else
template <typename T>
FUSEBOX_DEVICE T* dynamicSharedMemory() {
  return reinterpret_cast<T*>(::fusebox::host::currentThread()->dynamic_shared_memory);
}
#endif

}  // namespace fusebox
