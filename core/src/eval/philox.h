// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3",
// SC'11) and the mapping from tensor elements to its output that rand ops use.
// docs/random.md specifies the mapping so a device kernel can reproduce it.
#pragma once

#include <array>
#include <cstdint>

namespace fusebox::eval_detail {

using PhiloxBlock = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// Ten rounds of the Philox 4x32 bijection of `counter` under `key`.
PhiloxBlock philox4x32_10(PhiloxBlock counter, PhiloxKey key);

// The 32-bit word stream of one (seed, offset) pair: word j is lane j % 4 of
// Philox(counter = {lo(j / 4), hi(j / 4), lo(offset), hi(offset)},
//        key = {lo(seed), hi(seed)}).
class PhiloxStream {
 public:
  PhiloxStream(uint64_t seed, uint64_t offset) : seed_(seed), offset_(offset) {}
  uint32_t word(uint64_t j);

 private:
  uint64_t seed_, offset_;
  uint64_t cached_block_ = UINT64_MAX;
  PhiloxBlock cached_{};
};

// Uniform in [0, 1) from one word: the top 24 bits, times 2^-24 (exact in float).
double unitFromWord(uint32_t w);
// Uniform in [0, 1) from two words: the top 53 bits of (hi << 32 | lo), times 2^-53.
double unitFromWords(uint32_t lo, uint32_t hi);

}  // namespace fusebox::eval_detail
