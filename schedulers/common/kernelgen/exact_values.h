// Which of a segment's values hold numbers a 16-bit float type represents
// exactly, whatever dtype they are computed in: a bfloat16 or float16
// tensor's values, and what data movement, a cast to a wider float, neg,
// abs, relu, maximum, minimum, where or cat makes of such values only (each
// returns one of its operands, or one with its sign changed). Casting such
// a value back to that type rounds nothing, so the kernel skips the
// conversion: RoPE's rotated half, cast(neg(cast(x, float)), bfloat16),
// rounded each element under a per-element branch whose two sides diverged
// within a warp (H200, 8x32x4096x128: 163.3 us with the rounding, 138.8
// without; docs/perf.md). The host backend's BFloat16::fromExact checks
// every stored value's low half, so a value wrongly taken as exact fails in
// CI instead of truncating. A rounding makes a NaN the canonical NaN; a
// skipped one keeps the NaN's sign, so a segment holding signbit (the one op
// that sees a NaN's sign) skips none.
#pragma once

#include <fusebox/ir/fusion.h>

#include <unordered_set>

namespace fusebox::kernelgen {

class ExactValues {
 public:
  explicit ExactValues(const Fusion& segment);
  // Whether `v`'s numbers are all exact in `t` (bfloat16 or float16).
  bool holds(const Val* v, DataType t) const;

 private:
  std::unordered_set<const Val*> bfloat16_, half_;
};

}  // namespace fusebox::kernelgen
