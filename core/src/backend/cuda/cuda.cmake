# The cuda backend. Only the toolkit's headers are used (cuda.h, nvrtc.h,
# cublas_api.h, for types): libcuda, libnvrtc and libcublas are opened with
# dlopen at first use, so libfusebox_runtime links none of them and runs on
# machines without a driver. Without a toolkit the backend is left out and
# cudaAvailable() says so (no_toolkit.cpp).
#
# Included from core/CMakeLists.txt twice: before add_library with
# FUSEBOX_CUDA_STAGE=sources (adjusts FUSEBOX_RUNTIME_SOURCES), after it with
# FUSEBOX_CUDA_STAGE=target (include dirs and definitions on fusebox_runtime).
if(FUSEBOX_CUDA_STAGE STREQUAL "sources")
  find_package(CUDAToolkit QUIET)
  # Cached: the tests (tests/nvrtc) build against the backend only when it is.
  set(FUSEBOX_HAVE_CUDA_TOOLKIT ${CUDAToolkit_FOUND} CACHE INTERNAL
      "the cuda backend (NVRTC, driver) is built")
  if(FUSEBOX_HAVE_CUDA_TOOLKIT)
    message(STATUS "fusebox: cuda backend on (CUDA toolkit ${CUDAToolkit_VERSION} headers)")
    list(FILTER FUSEBOX_RUNTIME_SOURCES EXCLUDE REGEX "/backend/cuda/no_toolkit\\.cpp$")
  else()
    message(STATUS "fusebox: cuda backend off (no CUDA toolkit found)")
    list(FILTER FUSEBOX_RUNTIME_SOURCES EXCLUDE REGEX "/backend/cuda/")
    list(APPEND FUSEBOX_RUNTIME_SOURCES ${CMAKE_CURRENT_LIST_DIR}/no_toolkit.cpp)
  endif()
elseif(FUSEBOX_CUDA_STAGE STREQUAL "target")
  if(FUSEBOX_HAVE_CUDA_TOOLKIT)
    target_include_directories(fusebox_runtime SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
    # Where the toolkit's libraries were at build time: one more place to look
    # for libnvrtc / libcublas at run time.
    target_compile_definitions(fusebox_runtime PRIVATE
      FUSEBOX_CUDA_TOOLKIT_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  endif()
endif()
