# The transpose scheduler through the runtime on the host backend; it loads
# the real pass and scheduler plugins from the build tree.
get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
get_property(scheduler_targets GLOBAL PROPERTY FUSEBOX_SCHEDULER_TARGETS)
add_dependencies(${target} ${pass_targets} ${scheduler_targets})
