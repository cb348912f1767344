// The random word stream of docs/random.md as the evaluator walks it: the
// device runtime's Philox (fusebox_runtime/philox.cuh, the one implementation
// generated kernels use too) behind a cache of the last block, so filling a
// tensor makes one Philox call per four words.
#pragma once

#include <cstdint>

#include "fusebox_runtime/philox.cuh"

namespace fusebox::eval_detail {

class PhiloxStream {
 public:
  PhiloxStream(uint64_t seed, uint64_t offset) : seed_(seed), offset_(offset) {}
  // Word j: lane j % 4 of block j / 4.
  uint32_t word(uint64_t j) {
    const uint64_t block = j / 4;
    if (block != cached_block_) {
      cached_ = philox::streamBlock(seed_, offset_, block);
      cached_block_ = block;
    }
    return cached_.w[j % 4];
  }

 private:
  uint64_t seed_, offset_;
  uint64_t cached_block_ = UINT64_MAX;
  philox::Block cached_{};
};

}  // namespace fusebox::eval_detail
