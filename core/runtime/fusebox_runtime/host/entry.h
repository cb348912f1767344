// The exported entry of a kernel library built by the host backend, which
// appends `FUSEBOX_HOST_ENTRY(<kernel name>)` to the kernel's source (see abi.h).
#pragma once

#define FUSEBOX_HOST_ENTRY(kernel)                                                   \
  extern "C" __attribute__((visibility("default"))) int fusebox_host_abi_version() { \
    return ::fusebox::host::kHostAbiVersion;                                         \
  }                                                                                  \
  /* Runs `count` threads one after the other: a plain loop, or one fiber each. */   \
  extern "C" __attribute__((visibility("default"))) void fusebox_host_run_threads(   \
      ::fusebox::host::ThreadContext* threads, unsigned count,                       \
      const ::fusebox::KernelParams* params) {                                       \
    for (unsigned i = 0; i < count; ++i) {                                           \
      ::fusebox::host::tls_current_thread = &threads[i];                             \
      kernel(*params);                                                               \
    }                                                                                \
  }
