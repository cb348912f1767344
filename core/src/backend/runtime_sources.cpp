// The embedded runtime's hash (the headers themselves are generated into
// embedded_runtime_headers.cpp by core/runtime/embed.cmake).
#include <fusebox/backend/runtime_sources.h>

#include "backend/sha256.h"

namespace fusebox {

const std::string& embeddedRuntimeHash() {
  static const std::string hash = [] {
    Sha256 sha;
    for (const RuntimeHeader& header : embeddedRuntimeHeaders())
      sha.field(header.name).field(header.text);
    return sha.hexDigest();
  }();
  return hash;
}

}  // namespace fusebox
