#include <fusebox/backend/backend.h>

namespace fusebox {

std::string_view toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::Host:
      return "host";
  }
  return "unknown";
}

}  // namespace fusebox
