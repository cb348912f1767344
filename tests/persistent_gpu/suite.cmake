# The persistent comparisons on the cuda backend; every test skips without a GPU.
add_dependencies(${target} fusebox_scheduler_inner_persistent)
list(APPEND labels gpu)
