# The runtime on the cuda backend; every test skips without a usable GPU.
# It loads the real pass and scheduler plugins from the build tree.
get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
get_property(scheduler_targets GLOBAL PROPERTY FUSEBOX_SCHEDULER_TARGETS)
add_dependencies(${target} ${pass_targets} ${scheduler_targets})
list(APPEND labels gpu)
