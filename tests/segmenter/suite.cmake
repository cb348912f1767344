# The segmenter tests load the test-only schedulers (tests/scheduler_fixtures)
# and use the segmenter's internal group graph (core/src/segment).
add_dependencies(${target} fusebox_test_schedulers)
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
target_compile_definitions(${target} PRIVATE
  FUSEBOX_TEST_SCHEDULERS_DIR="${CMAKE_BINARY_DIR}/lib/fusebox/test_schedulers")
