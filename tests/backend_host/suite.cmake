# The runtime tests include the device runtime directly (compiled for the host
# through its CUDA emulation layer), and the cache tests reach the SHA-256 in core/src.
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/runtime
                                             ${PROJECT_SOURCE_DIR}/core/src)
# Fake compilers in the host compiler tests hand real work to this one.
target_compile_definitions(${target} PRIVATE FUSEBOX_TEST_CXX="${CMAKE_CXX_COMPILER}")
