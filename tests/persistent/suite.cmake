# The suite loads the persistent scheduler plugins from the build tree.
add_dependencies(${target} fusebox_scheduler_inner_persistent fusebox_scheduler_outer_persistent
                 fusebox_scheduler_inner_outer_persistent)
