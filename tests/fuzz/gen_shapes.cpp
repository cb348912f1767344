// Op families that change shapes: broadcasts, expand, squeeze, permute,
// reshape, reductions, slice, pad, cat, creation and matmul.
#include "generator_internal.h"

#include <fmt/format.h>
#include <cmath>
#include <limits>

#include <algorithm>
#include <numeric>

namespace fusebox::fuzz {

namespace {

std::string boolList(const std::vector<bool>& v) {
  std::vector<std::string> s;
  for (bool b : v) s.push_back(b ? "True" : "False");
  return fmt::format("[{}]", fmt::join(s, ", "));
}

std::string intList(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

}  // namespace

// ---- shape arguments ---------------------------------------------------------------

std::string Generator::intArgument(int64_t value) {
  if (!allowed("symbolic-shape") || !chance(0.2)) return std::to_string(value);
  // An existing int scalar holding the value (an extent, or a scalar input:
  // its value then feeds a shape).
  for (const auto& s : scalars)
    if (isIntegralType(s.dtype) && toInt(s.value) == value && chance(0.7)) {
      use("symbolic-shape");
      return s.name;
    }
  // A new extent read from a tensor whose dim has that size.
  for (const auto& t : tensors)
    for (int64_t d = 0; d < t.rank(); ++d)
      if (t.sizes[static_cast<size_t>(d)] == value &&
          t.dims[static_cast<size_t>(d)] != DimKind::Bcast) {
        std::string name = newName('S');
        if (tryStatement({{name, true, 0}}, fmt::format("{}.size({})", t.name, d))) {
          use("symbolic-shape");
          return name;
        }
        return std::to_string(value);
      }
  return std::to_string(value);
}

std::string Generator::shapeList(const std::vector<int64_t>& sizes, bool allow_minus_one,
                                 const std::vector<bool>* keep) {
  std::vector<std::string> parts;
  int64_t minus_one = -1;
  if (allow_minus_one && !sizes.empty() && chance(0.3))
    minus_one = between(0, static_cast<int64_t>(sizes.size()) - 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (keep && (*keep)[i]) {
      parts.push_back("-1");
    } else if (static_cast<int64_t>(i) == minus_one) {
      parts.push_back("-1");
    } else {
      parts.push_back(intArgument(sizes[i]));
    }
  }
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// ---- movement ---------------------------------------------------------------------------

bool Generator::genBroadcast() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() < 4; });
  if (x == nullptr) return false;
  int64_t out_rank = x->rank() + between(1, 4 - x->rank());
  std::vector<bool> is_bcast(static_cast<size_t>(out_rank), true);
  std::vector<int64_t> positions(static_cast<size_t>(out_rank));
  std::iota(positions.begin(), positions.end(), 0);
  std::shuffle(positions.begin(), positions.end(), std::mt19937_64(next()));
  for (int64_t k = 0; k < x->rank(); ++k) is_bcast[static_cast<size_t>(positions[k])] = false;
  return tryTensor(
      fmt::format("fd.ops.broadcast({}, is_broadcast_dim={})", x->name, boolList(is_bcast)),
      {tensorOperand(*x)}, true, true);
}

bool Generator::genBroadcastInDim() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() <= 4; });
  if (x == nullptr) return false;
  int64_t out_rank = std::max<int64_t>(x->rank(), between(x->rank(), 4));
  std::vector<int64_t> positions(static_cast<size_t>(out_rank));
  std::iota(positions.begin(), positions.end(), 0);
  std::shuffle(positions.begin(), positions.end(), std::mt19937_64(next()));
  positions.resize(static_cast<size_t>(x->rank()));
  std::sort(positions.begin(), positions.end());
  // Output sizes: the input's where mapped (a broadcast dim may expand); new
  // dims 1 or a size of the base shape at the same right-aligned position.
  std::vector<int64_t> shape(static_cast<size_t>(out_rank));
  std::vector<bool> keep(static_cast<size_t>(out_rank), false);
  auto baseSize = [&](int64_t p) {
    int64_t k = static_cast<int64_t>(base.size()) - (out_rank - p);
    if (k >= 0 && chance(0.8)) return base[static_cast<size_t>(k)];
    return between(0, 4) == 0 && allowed("size0") ? int64_t{0} : between(1, 5);
  };
  for (int64_t p = 0; p < out_rank; ++p) {
    auto it = std::find(positions.begin(), positions.end(), p);
    if (it == positions.end()) {
      shape[static_cast<size_t>(p)] = chance(0.3) ? 1 : baseSize(p);
      continue;
    }
    size_t d = static_cast<size_t>(it - positions.begin());
    if (x->dims[d] == DimKind::Bcast && chance(0.6)) {
      shape[static_cast<size_t>(p)] = baseSize(p);
    } else {
      shape[static_cast<size_t>(p)] = x->sizes[d];
      keep[static_cast<size_t>(p)] = x->dims[d] != DimKind::Bcast && chance(0.3);
    }
  }
  for (int64_t s : shape)
    if (s == 0) use("size0");
  int64_t numel = 1;
  for (int64_t sz : shape) numel *= sz;
  if (numel > numelCap()) return false;
  std::string shape_text = shapeList(shape, false, &keep);
  return tryTensor(fmt::format("fd.ops.broadcast_in_dim({}, shape={}, broadcast_dims={})", x->name,
                               shape_text, intList(positions)),
                   {tensorOperand(*x)}, true, true);
}

bool Generator::genExpand() {
  const TensorVar* x = pickTensor([](const TensorVar& t) {
    return std::count(t.dims.begin(), t.dims.end(), DimKind::Bcast) > 0;
  });
  if (x == nullptr) return false;
  std::vector<int64_t> shape = x->sizes;
  std::vector<bool> keep(shape.size(), false);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (x->dims[d] == DimKind::Bcast) {
      int64_t k = static_cast<int64_t>(base.size()) - (x->rank() - static_cast<int64_t>(d));
      shape[d] = k >= 0 && chance(0.8) ? base[static_cast<size_t>(k)] : between(1, 5);
    } else {
      keep[d] = chance(0.5);
    }
  }
  int64_t numel = 1;
  for (int64_t sz : shape) numel *= sz;
  if (numel > numelCap()) return false;
  return tryTensor(
      fmt::format("fd.ops.expand({}, shape={})", x->name, shapeList(shape, false, &keep)),
      {tensorOperand(*x)}, true, true);
}

bool Generator::genSqueeze() {
  bool expanded_ok = allowed("squeeze-expanded");
  // A dim expanded to 0 cannot be squeezed (that would make values out of an
  // empty tensor): fusebox refuses it, so only expansions to a size >= 1.
  auto squeezable = [&](const TensorVar& t, size_t d) {
    return t.dims[d] == DimKind::Bcast ||
           (t.dims[d] == DimKind::Expanded && expanded_ok && t.sizes[d] > 0);
  };
  const TensorVar* x = pickTensor([&](const TensorVar& t) {
    for (size_t d = 0; d < t.dims.size(); ++d)
      if (squeezable(t, d)) return true;
    return false;
  });
  if (x == nullptr) return false;
  std::vector<int64_t> dims;
  bool squeezes_expanded = false;
  for (int64_t d = 0; d < x->rank(); ++d) {
    DimKind k = x->dims[static_cast<size_t>(d)];
    if (squeezable(*x, static_cast<size_t>(d)) && (dims.empty() || chance(0.5))) {
      dims.push_back(chance(0.2) ? d - x->rank() : d);
      squeezes_expanded = squeezes_expanded || k == DimKind::Expanded;
    }
  }
  if (squeezes_expanded) use("squeeze-expanded");
  std::string flag = squeezes_expanded || chance(0.2) ? ", squeeze_expanded=True" : "";
  return tryTensor(fmt::format("fd.ops.squeeze({}, dims={}{})", x->name, intList(dims), flag),
                   {tensorOperand(*x)}, true, true);
}

bool Generator::genPermute() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() >= 2; });
  if (x == nullptr) return false;
  std::vector<int64_t> perm(static_cast<size_t>(x->rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(next()));
  return tryTensor(fmt::format("fd.ops.permute({}, dims={})", x->name, intList(perm)),
                   {tensorOperand(*x)}, true, true);
}

bool Generator::genReshape() {
  const TensorVar* x = pickTensor();
  if (x == nullptr) return false;
  const int64_t n = x->numel();
  std::vector<int64_t> shape;
  int which = static_cast<int>(between(0, 3));
  if (which == 0 || x->rank() == 0) {
    shape = {n};
  } else if (which == 1 && x->rank() >= 2) {  // merge two neighbours
    size_t i = static_cast<size_t>(between(0, x->rank() - 2));
    shape = x->sizes;
    shape[i] *= shape[i + 1];
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  } else if (which == 2) {  // split one dim
    size_t i = static_cast<size_t>(between(0, x->rank() - 1));
    int64_t s = x->sizes[i];
    std::vector<int64_t> divisors;
    for (int64_t a = 1; a <= s; ++a)
      if (s % a == 0) divisors.push_back(a);
    if (divisors.empty() || x->rank() >= 4) return false;
    int64_t a = pick(divisors);
    shape = x->sizes;
    shape[i] = s / a;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(i), a);
  } else {  // any factorization
    int64_t rest = n;
    int64_t rank = between(1, 4);
    if (n == 0) {
      shape.assign(static_cast<size_t>(rank), 0);
      for (auto& s : shape) s = between(0, 3);
      shape[static_cast<size_t>(between(0, rank - 1))] = 0;
    } else {
      for (int64_t k = 0; k + 1 < rank; ++k) {
        std::vector<int64_t> divisors;
        for (int64_t a = 1; a <= rest && a <= 64; ++a)
          if (rest % a == 0) divisors.push_back(a);
        int64_t a = pick(divisors);
        shape.push_back(a);
        rest /= a;
      }
      shape.push_back(rest);
      std::shuffle(shape.begin(), shape.end(), std::mt19937_64(next()));
    }
  }
  if (shape == x->sizes && chance(0.5)) return false;
  return tryTensor(
      fmt::format("fd.ops.reshape({}, new_shape={})", x->name, shapeList(shape, n > 0)),
      {tensorOperand(*x)}, true, true);
}

// ---- reductions --------------------------------------------------------------------------

namespace {

// A non-empty random subset of dims, sometimes negative.
std::vector<int64_t> someDims(Generator& g, int64_t rank) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (g.chance(0.45)) dims.push_back(g.chance(0.2) ? d - rank : d);
  if (dims.empty() && rank > 0) dims.push_back(g.between(0, rank - 1));
  return dims;
}

// How many values each output element of a reduction of `x` over `dims`
// combines (no dims: all of them).
int64_t reducedCount(const TensorVar& x, const std::vector<int64_t>& dims) {
  if (dims.empty()) return x.numel();
  int64_t n = 1;
  for (int64_t d : dims) n *= x.sizes[static_cast<size_t>(d < 0 ? d + x.rank() : d)];
  return n;
}

}  // namespace

bool productFitsAccumulator(double max_abs, int64_t reduced, DataType result) {
  if (!isFloatingType(result) || reduced <= 1) return true;
  // Every partial product is at most max(|x|, 1)^reduced; a margin of e^2
  // keeps it clear of the largest finite value.
  const double log_max = std::log(result == DataType::Double ? std::numeric_limits<double>::max()
                                                             : std::numeric_limits<float>::max());
  return static_cast<double>(reduced) * std::log(std::max(max_abs, 1.0)) <= log_max - 2;
}

bool Generator::genReduction() {
  static const std::vector<const char*> ops = {"sum", "sum", "prod", "max", "min"};
  const char* op = pick(ops);
  bool minmax = op[1] != 'u' && op[1] != 'r';
  const TensorVar* x = pickTensor([&](const TensorVar& t) { return t.rank() > 0 && tame(t); });
  if (x == nullptr) return false;
  std::vector<int64_t> dims = someDims(*this, x->rank());
  bool keepdim = chance(0.4);
  std::string dtype;
  bool exact = minmax || !isFloatingType(x->dtype);
  DataType result_dtype = x->dtype;
  if (!minmax && chance(0.3)) {
    DataType d = pick(std::vector<DataType>{DataType::Float, DataType::Double, DataType::Int64});
    if (isFloatingType(x->dtype) && !isFloatingType(d)) d = DataType::Double;
    dtype = fmt::format(", dtype=DataType.{}", pythonName(d));
    result_dtype = d;
    if (isFloatingType(d)) exact = false;
  } else if (!minmax) {
    dtype = ", dtype=DataType.Null";
  }
  std::string dims_text = chance(0.1) && !minmax ? "" : fmt::format(", dims={}", intList(dims));
  if (dims_text.empty()) {
    dims.clear();
    keepdim = false;
  }
  const int64_t reduced = reducedCount(*x, dims);
  // max and min of nothing are errors.
  if (minmax && reduced == 0) return false;
  if (op[1] == 'r' && !productFitsAccumulator(x->max_abs, reduced, result_dtype)) return false;
  return tryTensor(fmt::format("fd.ops.{}({}{}, keepdim={}{})", op, x->name, dims_text,
                               keepdim ? "True" : "False", dtype),
                   {tensorOperand(*x)}, exact);
}

bool Generator::genVariance() {
  // Finite values only: a Welford update meets inf - inf (NaN) where a
  // two-pass mean gives inf, and both are what one of PyTorch's backends does.
  const TensorVar* x = pickTensor([](const TensorVar& t) {
    return t.rank() > 0 && isFloatingType(t.dtype) && t.finite && tame(t);
  });
  if (x == nullptr) return false;
  Operand o = tensorOperand(*x);
  std::vector<int64_t> dims = someDims(*this, x->rank());
  int which = static_cast<int>(between(0, 2));
  // A correction below the count: with N - correction <= 0 the variance is
  // M2 / 0, inf or NaN as M2 is tiny or exactly 0, and float32 and double
  // disagree on which (M2 of values near 1e-29 underflows in float32).
  const int64_t reduced = reducedCount(*x, dims);
  int64_t correction = between(0, std::clamp<int64_t>(reduced - 1, 0, 2));
  bool keepdim = chance(0.4);
  if (which == 0)
    return tryTensor(fmt::format("fd.ops.var({}, dims={}, correction={}, keepdim={})", x->name,
                                 intList(dims), correction, keepdim ? "True" : "False"),
                     {o}, false);
  if (which == 1) {
    NewVar var = resultOf(newName('T'), {o}, false), mean = resultOf(newName('T'), {o}, false);
    return tryStatement(
        {var, mean}, fmt::format("fd.ops.var_mean({}, dims={}, correction={}, keepdim={})", x->name,
                                 intList(dims), correction, keepdim ? "True" : "False"));
  }
  NewVar avg = resultOf(newName('T'), {o}, false), m2 = resultOf(newName('T'), {o}, false);
  NewVar count{newName('T'), true, 0};
  return tryStatement({avg, m2, count},
                      fmt::format("fd.ops.welford({}, dims={})", x->name, intList(dims)));
}

// ---- resize -----------------------------------------------------------------------------

bool Generator::genSlice() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() > 0; });
  if (x == nullptr) return false;
  std::vector<std::string> starts, ends, steps;
  for (int64_t d = 0; d < x->rank(); ++d) {
    int64_t s = x->sizes[static_cast<size_t>(d)];
    if (chance(0.4)) {  // the whole dim
      starts.push_back("0");
      ends.push_back(intArgument(s));
      steps.push_back("1");
      continue;
    }
    int64_t start = between(0, s);
    int64_t end = between(start, s + (chance(0.2) ? 3 : 0));  // past the end clamps
    if (chance(0.1) && s > 0) start -= s;                     // counts from the end
    starts.push_back(std::to_string(start));
    ends.push_back(end <= s ? intArgument(end) : std::to_string(end));
    steps.push_back(std::to_string(chance(0.7) ? 1 : between(2, 3)));
  }
  return tryTensor(
      fmt::format("fd.ops.slice({}, start_indices=[{}], end_indices=[{}], strides=[{}])", x->name,
                  fmt::join(starts, ", "), fmt::join(ends, ", "), fmt::join(steps, ", ")),
      {tensorOperand(*x)}, true, true);
}

bool Generator::genPad() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() > 0; });
  if (x == nullptr) return false;
  int64_t k = between(1, x->rank());
  std::vector<int64_t> widths;
  for (int64_t i = 0; i < k; ++i) {
    int64_t s = x->sizes[static_cast<size_t>(x->rank() - 1 - i)];
    int64_t l = between(-1, 3), r = between(-1, 3);
    while (s + l + r < 0) ++r;
    widths.push_back(l);
    widths.push_back(r);
  }
  Operand o = tensorOperand(*x);
  std::string value;
  std::vector<Operand> ops = {o};
  if (chance(0.6)) {
    Operand v = scalarOperand(computeType(x->dtype), isIntegralType(x->dtype));
    if (x->dtype == DataType::Bool) v.text = chance(0.5) ? "True" : "False";
    value = ", " + v.text;
    ops.push_back(v);
  }
  return tryTensor(fmt::format("fd.ops.pad({}, {}{})", x->name, intList(widths), value), ops, true,
                   true);
}

bool Generator::genCat() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() > 0; });
  if (x == nullptr) return false;
  int64_t dim = between(0, x->rank() - 1);
  std::vector<const TensorVar*> parts = {x};
  int64_t n = between(2, 3);
  for (int64_t i = 1; i < n; ++i) {
    const TensorVar* y = pickTensor([&](const TensorVar& t) {
      if (t.rank() != x->rank() || t.dtype != x->dtype) return false;
      for (int64_t d = 0; d < t.rank(); ++d)
        if (d != dim && t.sizes[static_cast<size_t>(d)] != x->sizes[static_cast<size_t>(d)])
          return false;
      return true;
    });
    parts.push_back(y ? y : x);
  }
  std::vector<std::string> names;
  std::vector<Operand> ops;
  for (const TensorVar* p : parts) {
    names.push_back(p->name);
    ops.push_back(tensorOperand(*p));
  }
  if (chance(0.2)) dim -= x->rank();
  return tryTensor(fmt::format("fd.ops.cat([{}], dim={})", fmt::join(names, ", "), dim), ops, true);
}

// ---- creation ---------------------------------------------------------------------------

namespace {

std::vector<int64_t> suffixShape(Generator& g) {
  int64_t r = g.between(0, static_cast<int64_t>(g.base.size()));
  return std::vector<int64_t>(g.base.end() - r, g.base.end());
}

}  // namespace

bool Generator::genFull() {
  DataType d = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
  Operand fill = scalarOperand(computeType(d), isIntegralType(d));
  if (d == DataType::Bool) fill.text = chance(0.5) ? "True" : "False";
  return tryTensor(fmt::format("fd.ops.full(shape={}, fill_value={}, dtype=DataType.{})",
                               shapeList(suffixShape(*this)), fill.text, pythonName(d)),
                   {fill}, true);
}

bool Generator::genIota() {
  DataType d = pick(
      std::vector<DataType>{DataType::Int64, DataType::Int32, DataType::Float, DataType::Double});
  int64_t length = base.empty() ? between(0, 6) : pick(base);
  int64_t start = between(-3, 3), step = between(-2, 3);
  bool floating = isFloatingType(d);
  return tryTensor(
      fmt::format("fd.ops.iota({}, {}{}, {}{}, dtype=DataType.{})", intArgument(length), start,
                  floating ? ".0" : "", step, floating ? ".0" : "", pythonName(d)),
      {}, true);
}

bool Generator::genRandom() {
  std::string seed;
  if (chance(0.6))
    seed = fmt::format(", rng_seed={}, rng_offset={}", between(0, 1000), between(0, 4));
  if (chance(0.4)) {
    const TensorVar* x = pickTensor([](const TensorVar& t) { return isFloatingType(t.dtype); });
    if (x == nullptr) return false;
    bool uniform = chance(0.5);
    return tryTensor(
        fmt::format("fd.ops.{}({}{})", uniform ? "rand_like" : "randn_like", x->name, seed), {},
        uniform);
  }
  DataType d = pick(
      std::vector<DataType>{DataType::Float, DataType::Double, DataType::Half, DataType::BFloat16});
  bool uniform = chance(0.5);
  std::string a = uniform ? "-1.0" : "0.0", b = uniform ? "2.0" : "1.0";
  return tryTensor(fmt::format("fd.ops.{}({}, {}, shape={}, dtype=DataType.{}{})",
                               uniform ? "uniform" : "normal", a, b, shapeList(suffixShape(*this)),
                               pythonName(d), seed),
                   {}, uniform);
}

bool Generator::genMatmul() {
  const TensorVar* a = pickTensor([](const TensorVar& t) {
    return isFloatingType(t.dtype) && tame(t) && t.rank() >= 1 && t.rank() <= 3;
  });
  if (a == nullptr) return false;
  int64_t k = a->sizes.back();
  bool linear = chance(0.5);
  const TensorVar* b = pickTensor([&](const TensorVar& t) {
    if (t.dtype != a->dtype || !tame(t)) return false;
    if (linear) return (t.rank() == 2 && t.sizes[1] == k) || (t.rank() == 1 && t.sizes[0] == k);
    if (t.rank() == 1) return t.sizes[0] == k;
    return t.rank() == 2 && t.sizes[0] == k;
  });
  if (b == nullptr) return false;
  std::vector<Operand> ops = {tensorOperand(*a), tensorOperand(*b)};
  return tryTensor(fmt::format("fd.ops.{}({}, {})", linear ? "linear" : "matmul", a->name, b->name),
                   ops, false);
}

}  // namespace fusebox::fuzz
