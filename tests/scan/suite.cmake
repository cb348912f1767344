# The suite loads the scan plugin from the build tree.
add_dependencies(${target} fusebox_scheduler_scan)
