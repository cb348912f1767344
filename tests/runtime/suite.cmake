# The runtime tests load the real pass and scheduler plugins from the build tree.
get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
get_property(scheduler_targets GLOBAL PROPERTY FUSEBOX_SCHEDULER_TARGETS)
add_dependencies(${target} ${pass_targets} ${scheduler_targets})
# ... and the test-only schedulers (tests/scheduler_fixtures).
add_dependencies(${target} fusebox_test_schedulers)
target_compile_definitions(${target} PRIVATE
  FUSEBOX_TEST_SCHEDULERS_DIR="${CMAKE_BINARY_DIR}/lib/fusebox/test_schedulers")
# runtime_plan_fit_test checks an internal rule of the runtime (runtime_internal.h).
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
