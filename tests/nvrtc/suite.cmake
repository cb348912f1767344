# Generated kernels compiled by NVRTC where the CUDA toolkit is (CI has it, and
# no GPU). NvrtcCompiler lives in libfusebox_runtime (core/src/backend/cuda);
# without a toolkit core leaves it out (FUSEBOX_HAVE_CUDA_TOOLKIT, its one
# decision) and the suite skips.
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
if(NOT FUSEBOX_HAVE_CUDA_TOOLKIT)
  target_compile_definitions(${target} PRIVATE FUSEBOX_TEST_NO_CUDA_TOOLKIT)
endif()
add_dependencies(${target} fusebox_scheduler_pointwise fusebox_scheduler_inner_persistent
                 fusebox_scheduler_inner_outer_persistent)
