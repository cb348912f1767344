# The suite links the kernel IR library the scheduler plugins share.
target_link_libraries(${target} PRIVATE fusebox_kernel_ir)
