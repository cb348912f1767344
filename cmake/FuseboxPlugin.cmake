# Helpers that make a plugin's CMakeLists a few lines, in fusebox's own tree
# and, installed with the SDK, in a third party's project after
# find_package(fusebox) (docs/writing-a-scheduler-plugin.md):
#
#   fusebox_add_pass(remove_empty SOURCES remove_empty.cpp)
#   fusebox_add_scheduler(pointwise SOURCES pointwise.cpp heuristics.cpp)
#
# Each builds a MODULE library (loaded with dlopen, never linked against) with
# hidden visibility, so the only exported symbol is the plugin's entry
# (fusebox_plugin_info). Options:
#   SOURCES file...          the plugin's sources (required)
#   LIBRARIES lib...         more libraries to link privately (a scheduler's
#                            fusebox::kernelgen or fusebox::normalization:
#                            static PIC libraries built with hidden
#                            visibility, so the plugin still exports its
#                            entry alone)
#   OUTPUT_DIRECTORY dir     where the library goes (default:
#                            ${FUSEBOX_PLUGIN_DIR}, which is
#                            ${CMAKE_BINARY_DIR}/lib/fusebox/plugins unless set
#                            before this file is included)
#   NO_INSTALL               build only (test plugins)
# The target is fusebox_<kind>_<name>; its file is libfusebox_<kind>_<name>.so.
# Every installed pass target is recorded in the global property
# FUSEBOX_PASS_TARGETS (schedulers in FUSEBOX_SCHEDULER_TARGETS) so tests can
# depend on them.

if(NOT DEFINED FUSEBOX_PLUGIN_DIR)
  set(FUSEBOX_PLUGIN_DIR ${CMAKE_BINARY_DIR}/lib/fusebox/plugins)
endif()

# Hidden visibility does not cover the standard library's own template
# instantiations (namespace std is declared visible), so on ELF systems a
# version script keeps the dynamic symbol table down to the entry alone.
set(FUSEBOX_PLUGIN_VERSION_SCRIPT ${CMAKE_BINARY_DIR}/fusebox_plugin_exports.map)
file(WRITE ${FUSEBOX_PLUGIN_VERSION_SCRIPT}
  "{\n  global: fusebox_plugin_info;\n  local: *;\n};\n")

function(fusebox_add_plugin_ kind name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "fusebox_add_${kind}(${name}): SOURCES is required")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${FUSEBOX_PLUGIN_DIR})
  endif()
  set(target fusebox_${kind}_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE fusebox::core ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    # Installed plugins find the core's libraries two folders up (lib/fusebox/plugins).
    INSTALL_RPATH "$ORIGIN/../..")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${FUSEBOX_PLUGIN_VERSION_SCRIPT}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${FUSEBOX_PLUGIN_VERSION_SCRIPT})
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION lib/fusebox/plugins)
    string(TOUPPER ${kind} kind_upper)
    set_property(GLOBAL APPEND PROPERTY FUSEBOX_${kind_upper}_TARGETS ${target})
  endif()
endfunction()

function(fusebox_add_pass name)
  fusebox_add_plugin_(pass ${name} ${ARGN})
endfunction()

function(fusebox_add_scheduler name)
  fusebox_add_plugin_(scheduler ${name} ${ARGN})
endfunction()
