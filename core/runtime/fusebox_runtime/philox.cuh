// Philox4x32-10 and the [0, 1) draws of the random ops, as docs/random.md
// specifies them: the one implementation that generated kernels and the
// reference evaluator share, so their values agree bit for bit. Only integer
// arithmetic, correctly rounded float fma and double arithmetic: outside the
// runtime (the evaluator includes this header on its own) it is ordinary
// inline C++.
#pragma once

#if defined(FUSEBOX_DEVICE)
#define FUSEBOX_PHILOX_FN FUSEBOX_DEVICE
#else
#include <cmath>
#include <cstdint>
#define FUSEBOX_PHILOX_FN inline
#endif

namespace fusebox::philox {

// The four counter words after one Philox call.
struct Block {
  uint32_t w[4];
};

// The key of each of the ten rounds: {k0, k1} bumped by a Weyl sequence
// between rounds. A stream computes them once, so each of its Philox calls
// skips the 18 key additions.
struct RoundKeys {
  uint32_t k0[10], k1[10];
};

// Of key {lo(seed), hi(seed)}.
FUSEBOX_PHILOX_FN RoundKeys roundKeys(uint64_t seed) {
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  RoundKeys keys;
  for (int r = 0; r < 10; ++r) {
    keys.k0[r] = k0;
    keys.k1[r] = k1;
    k0 += 0x9E3779B9u;  // golden ratio
    k1 += 0xBB67AE85u;  // sqrt(3) - 1
  }
  return keys;
}

// Ten rounds of the Philox 4x32 bijection of counter {c0, c1, c2, c3}: each
// round multiplies two words by fixed odd constants, swaps the halves of the
// products into place and mixes in the round's key.
FUSEBOX_PHILOX_FN Block philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                      const RoundKeys& keys) {
  for (int r = 0; r < 10; ++r) {
#if defined(__CUDA_ARCH__)
    // The high halves with one 32-bit multiply each (a 64-bit product is
    // several instructions on the GPU).
    const uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
#else
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
#endif
    c0 = hi1 ^ c1 ^ keys.k0[r];
    c2 = hi0 ^ c3 ^ keys.k1[r];
    c1 = lo1;
    c3 = lo0;
  }
  return {{c0, c1, c2, c3}};
}

// Words 4 * block to 4 * block + 3 of the (seed, offset) stream: Philox with
// counter {lo(block), hi(block), lo(offset), hi(offset)} and the seed's
// round keys.
FUSEBOX_PHILOX_FN Block streamBlock(const RoundKeys& keys, uint64_t offset, uint64_t block) {
  return philox4x32_10(static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                       static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32), keys);
}

// Word j's lane of its block. Picked by comparisons, not by indexing with
// j % 4, so a kernel keeps the block in registers.
FUSEBOX_PHILOX_FN uint32_t lane(const Block& b, uint64_t j) {
  const uint32_t k = static_cast<uint32_t>(j % 4);
  return k == 0 ? b.w[0] : k == 1 ? b.w[1] : k == 2 ? b.w[2] : b.w[3];
}

// Word j of the stream, on its own (one Philox call).
FUSEBOX_PHILOX_FN uint32_t word(uint64_t seed, uint64_t offset, uint64_t j) {
  return lane(streamBlock(roundKeys(seed), offset, j / 4), j);
}

// The word stream of one (seed, offset) walked in order: the last Philox
// block is kept, so consecutive words (a thread's elements of a vector chunk,
// the evaluator filling a tensor) cost one Philox call per four. Generated
// kernels declare one per random op and thread; the evaluator one per op.
struct Stream {
  RoundKeys keys;
  uint64_t offset;
  uint64_t cached_block = ~uint64_t{0};
  Block cached{};

  FUSEBOX_PHILOX_FN Stream(uint64_t seed, uint64_t offset_)
      : keys(roundKeys(seed)), offset(offset_) {}

  // Word j: lane j % 4 of block j / 4.
  FUSEBOX_PHILOX_FN uint32_t word(uint64_t j) {
    const uint64_t block = j / 4;
    if (block != cached_block) {
      cached = streamBlock(keys, offset, block);
      cached_block = block;
    }
    return lane(cached, j);
  }
};

// [0, 1) from one word: its top 24 bits times 2^-24 (exact in float).
FUSEBOX_PHILOX_FN double unitFromWord(uint32_t w) {
  return static_cast<double>(w >> 8) * 5.9604644775390625e-08;
}

// [0, 1) from two words: the top 53 bits of (hi << 32 | lo) times 2^-53.
FUSEBOX_PHILOX_FN double unitFromWords(uint32_t lo, uint32_t hi) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(bits >> 11) * 1.1102230246251565404e-16;
}

// uniform(low, high) for float, half and bfloat16 outputs, element k: one
// fused multiply-add in float of the draw (word k's top 24 bits times 2^-24,
// exact in float), range = high - low and low, both rounded to float first,
// as PyTorch's float generator computes it. A correctly rounded fma is the
// same bits on the host and the device, and costs the kernel no double
// arithmetic.
FUSEBOX_PHILOX_FN float uniformNarrow(Stream& s, uint64_t k, float low, float range) {
  const float x = static_cast<float>(s.word(k) >> 8) * 5.9604644775390625e-08f;
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(range, x, low);
#else
  return std::fma(range, x, low);
#endif
}

// Draw k in [0, 1) of the stream: word k, or (wide: double outputs) words
// 2k (low) and 2k + 1 (high).
FUSEBOX_PHILOX_FN double draw(Stream& s, uint64_t k, bool wide) {
  if (!wide) return unitFromWord(s.word(k));
  const uint32_t lo = s.word(2 * k);
  return unitFromWords(lo, s.word(2 * k + 1));
}

// a * b rounded on its own: never contracted with a following add into an
// FMA, so a kernel's value matches the evaluator's separately rounded steps.
FUSEBOX_PHILOX_FN double mulRounded(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double product = a * b;
  return product;
#endif
}

}  // namespace fusebox::philox

#undef FUSEBOX_PHILOX_FN
