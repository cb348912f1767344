// fusebox's own files live beside libfusebox_runtime: <libdir>/fusebox/default.toml
// and <libdir>/fusebox/plugins/. Found from the library's own location so the
// build tree, an install and every test find the same files.
#include <fusebox/config.h>

#ifndef BOOST_DLL_USE_STD_FS
#define BOOST_DLL_USE_STD_FS
#endif
#include <boost/dll/runtime_symbol_info.hpp>

namespace fusebox {

std::filesystem::path builtinConfigDir() {
  return boost::dll::this_line_location().parent_path() / "fusebox";
}

std::filesystem::path builtinPluginDir() {
  return builtinConfigDir() / "plugins";
}

std::filesystem::path defaultConfigFile() {
  return builtinConfigDir() / "default.toml";
}

}  // namespace fusebox
