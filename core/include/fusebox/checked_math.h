// Checked int64 arithmetic for sizes, strides, extents, pad widths and
// literals: a result that does not fit in int64 is reported, never wrapped.
// The plain forms return nullopt on overflow, so a caller can word its own
// message (naming the op, the input or file:line:col); orThrow() turns nullopt
// into UserError("<what> overflows int64") where the caller has nothing better.
#pragma once

#include <fusebox/error.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fusebox::checked {

inline std::optional<int64_t> add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> neg(int64_t a) {
  return sub(0, a);
}

// Overflow-propagating forms: nullopt in, nullopt out.
inline std::optional<int64_t> add(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? add(*a, *b) : std::nullopt;
}
inline std::optional<int64_t> mul(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? mul(*a, *b) : std::nullopt;
}

// base ** exp for exp >= 0, by repeated squaring.
inline std::optional<int64_t> pow(int64_t base, int64_t exp) {
  if (exp < 0) return std::nullopt;
  int64_t result = 1;
  while (true) {
    if (exp & 1) {
      auto r = mul(result, base);
      if (!r) return std::nullopt;
      result = *r;
    }
    exp >>= 1;
    if (exp == 0) return result;
    // base * base is only needed while bits remain; base 0, 1, -1 never overflow.
    auto b = mul(base, base);
    if (!b) return std::nullopt;
    base = *b;
  }
}

// The number of elements of a shape: 0 when any size is 0 (however large the
// others), nullopt when the product does not fit. Sizes are expected >= 0.
inline std::optional<int64_t> product(const std::vector<int64_t>& sizes) {
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t n = 1;
  for (int64_t s : sizes) {
    auto r = mul(n, s);
    if (!r) return std::nullopt;
    n = *r;
  }
  return n;
}

// The value, or UserError("<what> overflows int64").
inline int64_t orThrow(std::optional<int64_t> v, std::string_view what) {
  if (!v) throw UserError(fmt::format("{} overflows int64", what));
  return *v;
}

}  // namespace fusebox::checked
