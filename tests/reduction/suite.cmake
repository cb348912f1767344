# The suite loads the reduction plugin from the build tree.
add_dependencies(${target} fusebox_scheduler_reduction)
