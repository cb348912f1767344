// `fusebox --version`: what a bug report or a plugin author needs to know
// about this build: the version, the plugin API a plugin must be built
// against, the ABI tag its record must carry, and which backends run here.
#include <fmt/format.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/plugin/plugin_api.h>
#include <fusebox/version.h>

#include "cli_common.h"

namespace fusebox::cli {

std::string versionText() {
  const CudaAvailability cuda = cudaAvailable();
  const std::string cuda_line =
      cuda.available
          ? fmt::format("cuda ({} device{})", cuda.device_count, cuda.device_count == 1 ? "" : "s")
          : fmt::format("cuda unavailable here: {}", cuda.reason);
  return fmt::format("fusebox {}\nplugin API version {}\nplugin ABI tag {}\nbackends: host; {}",
                     FUSEBOX_VERSION_STRING, kPluginApiVersion, hostAbiTag(), cuda_line);
}

}  // namespace fusebox::cli
