// Philox4x32-10, written from the algorithm's description: each round multiplies
// two of the four words by fixed odd constants, swaps the halves of the
// products into place and mixes in the key, which a Weyl sequence bumps
// between rounds.
#include "eval/philox.h"

#include <cmath>

namespace fusebox::eval_detail {
namespace {

constexpr uint32_t kMultiplier0 = 0xD2511F53u;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
constexpr uint32_t kKeyBump0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kKeyBump1 = 0xBB67AE85u;  // sqrt(3) - 1
constexpr int kRounds = 10;

PhiloxBlock round(const PhiloxBlock& x, const PhiloxKey& k) {
  const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * x[0];
  const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * x[2];
  const auto hi = [](uint64_t p) { return static_cast<uint32_t>(p >> 32); };
  const auto lo = [](uint64_t p) { return static_cast<uint32_t>(p); };
  return {hi(p1) ^ x[1] ^ k[0], lo(p1), hi(p0) ^ x[3] ^ k[1], lo(p0)};
}

}  // namespace

PhiloxBlock philox4x32_10(PhiloxBlock counter, PhiloxKey key) {
  for (int r = 0; r < kRounds; ++r) {
    if (r > 0) {
      key[0] += kKeyBump0;
      key[1] += kKeyBump1;
    }
    counter = round(counter, key);
  }
  return counter;
}

uint32_t PhiloxStream::word(uint64_t j) {
  const uint64_t block = j / 4;
  if (block != cached_block_) {
    const PhiloxBlock counter = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                 static_cast<uint32_t>(offset_),
                                 static_cast<uint32_t>(offset_ >> 32)};
    cached_ =
        philox4x32_10(counter, {static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32)});
    cached_block_ = block;
  }
  return cached_[j % 4];
}

double unitFromWord(uint32_t w) {
  return std::ldexp(static_cast<double>(w >> 8), -24);
}

double unitFromWords(uint32_t lo, uint32_t hi) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  return std::ldexp(static_cast<double>(bits >> 11), -53);
}

}  // namespace fusebox::eval_detail
