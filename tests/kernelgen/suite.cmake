# The suite links the kernel-generation library the scheduler plugins share.
target_link_libraries(${target} PRIVATE fusebox_kernelgen)
