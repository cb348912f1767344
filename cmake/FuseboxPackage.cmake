# The installed SDK's CMake package (docs/architecture.md, "The SDK"):
# <prefix>/lib/cmake/fusebox/ holds fuseboxConfig.cmake, its version file (a
# plugin built for 0.1 needs a 0.1.x fusebox: the minor version is the plugin
# API's compatibility line), the exported targets and FuseboxPlugin.cmake.
include(CMakePackageConfigHelpers)

set(FUSEBOX_CMAKE_INSTALL_DIR lib/cmake/fusebox)
# The paths fuseboxConfig.cmake checks, relative to the prefix (fusebox's own
# files sit beside the core's libraries in lib/, so no GNUInstallDirs multiarch dir).
set(CMAKE_INSTALL_BINDIR bin)
set(CMAKE_INSTALL_LIBDIR lib)
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/fusebox/plugin/plugin_api.h api_line
     REGEX "kPluginApiVersion = [0-9]+")
string(REGEX REPLACE ".*= ([0-9]+).*" "\\1" FUSEBOX_PLUGIN_API_VERSION "${api_line}")

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/fuseboxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/fuseboxConfig.cmake
  INSTALL_DESTINATION ${FUSEBOX_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fuseboxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fuseboxConfig.cmake
  ${PROJECT_BINARY_DIR}/fuseboxConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/FuseboxPlugin.cmake
  DESTINATION ${FUSEBOX_CMAKE_INSTALL_DIR})
install(EXPORT fuseboxTargets NAMESPACE fusebox:: DESTINATION ${FUSEBOX_CMAKE_INSTALL_DIR})
