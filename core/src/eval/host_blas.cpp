// Loading the host's BLAS (host_blas.h).
#include "eval/host_blas.h"

#include <boost/dll/shared_library.hpp>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace fusebox::eval_detail {
namespace {

struct LoadedBlas {
  boost::dll::shared_library library;
  Dgemm dgemm = nullptr;
};

LoadedBlas load() {
  LoadedBlas blas;
  if (const char* mode = std::getenv("FUSEBOX_HOST_BLAS"); mode && std::string_view(mode) == "off")
    return blas;
  for (const char* name : {"libopenblas.so.0", "libcblas.so.3"}) {
    boost::dll::fs::error_code ec;
    boost::dll::shared_library lib(name, boost::dll::load_mode::search_system_folders, ec);
    if (ec || !lib.has("cblas_dgemm")) continue;
    blas.dgemm = &lib.get<std::remove_pointer_t<Dgemm>>("cblas_dgemm");
    blas.library = std::move(lib);
    return blas;
  }
  return blas;
}

}  // namespace

Dgemm hostDgemm() {
  // Loaded once, kept for the process's lifetime (never unloaded under a caller).
  static const LoadedBlas* blas = new LoadedBlas(load());
  return blas->dgemm;
}

}  // namespace fusebox::eval_detail
