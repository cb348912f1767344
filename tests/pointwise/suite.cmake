# The suite loads the pointwise plugin from the build tree.
add_dependencies(${target} fusebox_scheduler_pointwise)
