// Deterministic host tensors for the inputs list. The generator is our own
// (splitmix64), so the same (spec, seed) gives the same values on every
// platform and standard library.
#include <fusebox/checked_math.h>
#include <fusebox/frontend/python_definition.h>

#include <cmath>
#include <numbers>

#include "frontend/inputs_list.h"

namespace fusebox {
namespace {

class Random {
 public:
  // The seed is hashed into the state: seeding with the raw seed would make
  // seed s + 1 replay seed s's stream shifted by one draw.
  explicit Random(uint64_t seed) : state_(mix(seed ^ 0x632BE59BD9B4E019ull)) {}
  uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Standard normal (Box-Muller; 1 - u keeps the log argument in (0, 1]).
  double normal() {
    double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  // Uniform integer in [low, high), high > low.
  int64_t integer(int64_t low, int64_t high) {
    uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + next() % range);
  }

 private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// torch.testing.make_tensor replaces zeros with the dtype's smallest normal number.
double smallestNormal(DataType t) {
  switch (t) {
    case DataType::Half:
      return 6.103515625e-05;
    case DataType::Double:
      return 2.2250738585072014e-308;
    default:
      return 1.1754943508222875e-38;  // float32 and bfloat16
  }
}

// One element's value, as double (floating and bool) or int64 (integral).
struct Element {
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
};

Element makeElement(const InputSpec& spec, Random& rng) {
  Element e;
  bool integral = isIntegralType(spec.dtype) || isBoolType(spec.dtype);
  switch (spec.kind) {
    case InputSpec::Kind::Randn:
      e.d = rng.normal();
      return e;
    case InputSpec::Kind::Rand:
      e.d = rng.uniform();
      return e;
    case InputSpec::Kind::Ones:
      e.d = 1;
      return e;
    case InputSpec::Kind::Zeros:
      return e;
    case InputSpec::Kind::Full:
      if (isIntegralType(spec.dtype)) {
        e.is_int = true;
        e.i = toInt(spec.fill_value);
      } else {
        e.d = toDouble(spec.fill_value);
      }
      return e;
    case InputSpec::Kind::Randint:
      if (isFloatingType(spec.dtype)) {
        e.d = static_cast<double>(rng.integer(spec.low, spec.high));
      } else {
        e.is_int = true;
        e.i = rng.integer(spec.low, spec.high);
      }
      return e;
    case InputSpec::Kind::MakeTensor:
      if (isBoolType(spec.dtype)) {
        e.d = static_cast<double>(rng.integer(0, 2));
      } else if (integral) {
        int64_t low = spec.make_low ? static_cast<int64_t>(std::ceil(*spec.make_low)) : -9;
        int64_t high = spec.make_high ? static_cast<int64_t>(std::ceil(*spec.make_high)) : 10;
        e.is_int = true;
        e.i = high > low ? rng.integer(low, high) : low;
        if (spec.exclude_zero && e.i == 0) e.i = 1;
      } else {
        double low = spec.make_low.value_or(-9.0), high = spec.make_high.value_or(9.0);
        e.d = low + (high - low) * rng.uniform();
        if (spec.exclude_zero && e.d == 0) e.d = smallestNormal(spec.dtype);
      }
      return e;
    case InputSpec::Kind::Scalar:
      break;
  }
  return e;
}

}  // namespace

Argument materializeInput(const InputSpec& spec, uint64_t seed) {
  if (spec.kind == InputSpec::Kind::Scalar) return spec.scalar;
  std::vector<int64_t> base_shape =
      spec.strides && !spec.base_shape.empty() ? spec.base_shape : spec.shape;
  if (spec.strides && spec.base_shape.empty()) {
    // A view with no recorded base: a 1-D storage just big enough.
    base_shape = {
        checked::orThrow(frontend::viewStorageSize(spec.shape, *spec.strides, spec.storage_offset),
                         "the storage an as_strided view reaches")};
  }
  Tensor base = Tensor::empty(spec.dtype, base_shape);
  Random rng(seed);
  std::vector<int64_t> index(base_shape.size(), 0);
  for (int64_t n = base.numel(), k = 0; k < n; ++k) {
    Element e = makeElement(spec, rng);
    if (e.is_int)
      base.setInt(index, e.i);
    else
      base.setDouble(index, e.d);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {  // row-major increment
      if (++index[d] < base_shape[d]) break;
      index[d] = 0;
    }
  }
  if (!spec.strides) return base;
  return base.asStrided(spec.shape, *spec.strides, spec.storage_offset);
}

}  // namespace fusebox
