// Small integer helpers every heuristic uses, on non-negative sizes that
// are already known to fit (checked_math.h guards the sizes themselves).
#pragma once

#include <cstdint>

namespace fusebox::kernelgen {

// a / b rounded up; b > 0.
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The smallest power of two >= a (1 for a <= 1).
inline int64_t pow2Ceil(int64_t a) {
  int64_t p = 1;
  while (p < a) p *= 2;
  return p;
}

// The largest power of two <= a (1 for a <= 1).
inline int64_t pow2Floor(int64_t a) {
  int64_t p = 1;
  while (p * 2 <= a) p *= 2;
  return p;
}

}  // namespace fusebox::kernelgen
