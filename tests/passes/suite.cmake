# The pass tests load the real pass plugins from the build tree.
get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
add_dependencies(${target} ${pass_targets})
