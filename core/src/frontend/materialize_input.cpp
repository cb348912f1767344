// Deterministic host tensors for the inputs list. The generator is our own
// (splitmix64), so the same (spec, seed) gives the same values on every
// platform and standard library. Each element takes a fixed number of draws,
// and splitmix64 jumps ahead in O(1), so large tensors are filled by several
// threads with the values one thread would make.
#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/frontend/python_definition.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>
#include <vector>

#include "element_access.h"
#include "frontend/input_views.h"
#include "frontend/inputs_list.h"

namespace fusebox {
namespace {

class Random {
 public:
  // The seed is hashed into the state: seeding with the raw seed would make
  // seed s + 1 replay seed s's stream shifted by one draw.
  explicit Random(uint64_t seed) : state_(mix(seed ^ 0x632BE59BD9B4E019ull)) {}
  uint64_t next() { return mix(state_ += kStep); }
  // As if next() had been called `draws` times.
  void skip(uint64_t draws) { state_ += draws * kStep; }
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
  static constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;
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
    case InputSpec::Kind::Literal:
    case InputSpec::Kind::Arange:
    case InputSpec::Kind::Scalar:
      break;  // not random: valueAt()
  }
  return e;
}

// The draws makeElement takes for one element of `spec` (the same for every
// element: what lets a thread start its share of a tensor mid-stream).
uint64_t drawsPerElement(const InputSpec& spec) {
  switch (spec.kind) {
    case InputSpec::Kind::Randn:
      return 2;
    case InputSpec::Kind::Rand:
    case InputSpec::Kind::Randint:
    case InputSpec::Kind::MakeTensor:
      return 1;
    default:
      return 0;
  }
}

// Element `k` (row-major) of torch.tensor's data or of torch.arange.
Element valueAt(const InputSpec& spec, int64_t k) {
  Element e;
  auto set = [&](const ScalarValue& v) {
    e.is_int = !std::holds_alternative<double>(v);
    if (e.is_int)
      e.i = toInt(v);
    else
      e.d = std::get<double>(v);
  };
  if (spec.kind == InputSpec::Kind::Literal) {
    set(spec.values[k]);  // materializeInput checked the count
    return e;
  }
  if (std::holds_alternative<double>(spec.arange_start) ||
      std::holds_alternative<double>(spec.arange_step)) {
    set(toDouble(spec.arange_start) + static_cast<double>(k) * toDouble(spec.arange_step));
    return e;
  }
  // Exact, and between start and end, so within int64.
  set(static_cast<int64_t>(static_cast<__int128>(toInt(spec.arange_start)) +
                           static_cast<__int128>(k) * toInt(spec.arange_step)));
  return e;
}

}  // namespace

Argument materializeInput(const InputSpec& spec, uint64_t seed) {
  if (spec.kind == InputSpec::Kind::Scalar) return spec.scalar;
  const std::vector<int64_t> base_shape = frontend::constructorShape(spec);
  const DataType made =
      spec.copies.empty() ? spec.dtype : spec.constructor_dtype.value_or(spec.dtype);
  Tensor base = Tensor::empty(made, base_shape);
  InputSpec constructor = spec;  // the values are made in the constructor's dtype
  constructor.dtype = made;
  const bool computed =
      spec.kind == InputSpec::Kind::Literal || spec.kind == InputSpec::Kind::Arange;
  // A caller that resized the spec cannot make up the values torch.tensor listed.
  FUSEBOX_USER_CHECK(spec.kind != InputSpec::Kind::Literal ||
                         static_cast<int64_t>(spec.values.size()) == base.numel(),
                     "a torch.tensor input holds {} values, but its shape ({}) has {} elements",
                     spec.values.size(), fmt::join(base_shape, ", "), base.numel());
  // `base` is contiguous: element k (row-major) is at offset k.
  auto* data = static_cast<char*>(base.data());
  const int64_t element_size = base.elementSize();
  const uint64_t draws = computed ? 0 : drawsPerElement(constructor);
  auto fill = [&](int64_t begin, int64_t end) {
    Random share(seed);
    share.skip(static_cast<uint64_t>(begin) * draws);
    for (int64_t k = begin; k < end; ++k) {
      const Element e = computed ? valueAt(spec, k) : makeElement(constructor, share);
      if (e.is_int)
        detail::storeInt(data + k * element_size, made, e.i);
      else
        detail::storeDouble(data + k * element_size, made, e.d);
    }
  };
  constexpr int64_t kElementsPerThread = int64_t{1} << 22;
  const int64_t n = base.numel();
  const int64_t threads = std::min<int64_t>(
      {(n + kElementsPerThread - 1) / kElementsPerThread,
       std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency())), 64});
  if (threads <= 1) {
    fill(0, n);
  } else {
    std::vector<std::thread> workers;
    const int64_t share = (n + threads - 1) / threads;
    for (int64_t t = 1; t < threads; ++t)
      workers.emplace_back(fill, std::min(n, t * share), std::min(n, (t + 1) * share));
    fill(0, std::min(n, share));
    for (std::thread& w : workers) w.join();
  }
  // Each copy reads a view of the storage so far into a storage of its own.
  for (const InputCopy& c : spec.copies) {
    Tensor copy = Tensor::emptyStrided(c.dtype, c.shape, c.new_strides);
    copyInto(base.asStrided(c.shape, c.strides, c.storage_offset), copy);
    if (c.math) frontend::applyInputMath(*c.math, copy);
    base = copy;
  }
  if (!spec.strides) return base;
  return base.asStrided(spec.shape, *spec.strides, spec.storage_offset);
}

}  // namespace fusebox
