# The CLI tests run the built `fusebox` program.
add_dependencies(${target} fusebox)
target_compile_definitions(${target} PRIVATE FUSEBOX_EXE="$<TARGET_FILE:fusebox>")
# The runtime tests try the test-only schedulers (tests/scheduler_fixtures).
add_dependencies(${target} fusebox_test_schedulers)
target_compile_definitions(${target} PRIVATE
  FUSEBOX_TEST_SCHEDULERS_DIR="${CMAKE_BINARY_DIR}/lib/fusebox/test_schedulers")
# compare/bench tests parse the Google Benchmark JSON they write.
target_link_libraries(${target} PRIVATE nlohmann_json::nlohmann_json)
