# The scheduler tests load the real scheduler plugins from the build tree, and
# test no_op's view arithmetic directly (it lives inside the plugin).
get_property(scheduler_targets GLOBAL PROPERTY FUSEBOX_SCHEDULER_TARGETS)
get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
add_dependencies(${target} ${scheduler_targets} ${pass_targets})
target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/schedulers/no_op/view_analysis.cpp)
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/schedulers)
