# The plugin host tests load the real passes and deliberately broken plugins,
# each broken kind in its own folder under ${CMAKE_BINARY_DIR}/tests/plugin_fixtures.
set(fixtures_dir ${CMAKE_BINARY_DIR}/tests/plugin_fixtures)
set(fixture_src ${CMAKE_CURRENT_SOURCE_DIR}/plugins/fixtures)
function(fusebox_plugin_fixture name folder source)
  fusebox_add_pass(fixture_${name} SOURCES ${fixture_src}/${source}
                   OUTPUT_DIRECTORY ${fixtures_dir}/${folder} NO_INSTALL)
  set_target_properties(fusebox_pass_fixture_${name} PROPERTIES OUTPUT_NAME ${name})
  add_dependencies(${target} fusebox_pass_fixture_${name})
endfunction()
fusebox_plugin_fixture(not_a_plugin not_a_plugin not_a_plugin.cpp)
fusebox_plugin_fixture(wrong_api wrong_api wrong_api.cpp)
fusebox_plugin_fixture(abi_mismatch abi_mismatch abi_mismatch.cpp)
fusebox_plugin_fixture(dup_one duplicate duplicate_pass.cpp)
fusebox_plugin_fixture(dup_two duplicate duplicate_pass.cpp)
fusebox_plugin_fixture(throwing_pass misbehaving throwing_pass.cpp)
fusebox_plugin_fixture(bad_factory misbehaving bad_factory.cpp)
fusebox_plugin_fixture(lying_pass misbehaving lying_pass.cpp)
fusebox_plugin_fixture(corrupting_pass misbehaving corrupting_pass.cpp)
fusebox_plugin_fixture(required_pass constraints required_pass.cpp)
fusebox_plugin_fixture(early_pass constraints early_pass.cpp)

get_property(pass_targets GLOBAL PROPERTY FUSEBOX_PASS_TARGETS)
add_dependencies(${target} ${pass_targets})
target_compile_definitions(${target} PRIVATE FUSEBOX_FIXTURES_DIR="${fixtures_dir}")
# The config limit tests reach the TOML nesting scan in core/src.
target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
