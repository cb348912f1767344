# Generated kernels compiled by NVRTC where the CUDA toolkit is (CI has it, and
# no GPU). NvrtcCompiler lives in libfusebox_runtime (core/src/backend/cuda);
# without a toolkit it is not built and the suite skips.
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  target_compile_definitions(${target} PRIVATE FUSEBOX_TEST_NO_CUDA_TOOLKIT)
endif()
add_dependencies(${target} fusebox_scheduler_pointwise fusebox_scheduler_inner_persistent
                 fusebox_scheduler_inner_outer_persistent)
