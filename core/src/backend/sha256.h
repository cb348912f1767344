// SHA-256 (FIPS 180-4), for kernel cache keys and entry checksums: a strong
// hash, so different sources never share a cache entry by accident.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fusebox {

class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, size_t size);
  Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
  // Length-prefixed, so ("ab", "c") and ("a", "bc") hash differently.
  Sha256& field(std::string_view text);
  std::array<uint8_t, 32> digest();  // finishes; the object is spent afterwards
  std::string hexDigest();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string sha256Hex(std::string_view data);
std::string toHex(const uint8_t* data, size_t size);

}  // namespace fusebox
