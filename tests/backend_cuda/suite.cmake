# Everything here needs a GPU except the no-driver tests (which run anywhere);
# tests that need a device skip without one. `ctest -L gpu` selects the suite
# on a machine with a GPU.
list(APPEND labels gpu)
# The asynchronous-copy kernel is built as kernel IR (tests/kernel_ir/async_copy_kernel.h).
target_link_libraries(${target} PRIVATE fusebox_kernel_ir)
