# The scan comparisons on the cuda backend; every test skips without a GPU.
add_dependencies(${target} fusebox_scheduler_scan)
list(APPEND labels gpu)
