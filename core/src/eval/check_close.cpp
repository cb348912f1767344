// Element-by-element comparison with the evaluator's results (check_close.h).
#include <fusebox/error.h>
#include <fusebox/eval/check_close.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox {
namespace {

std::string position(const std::vector<int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ", "));
}

void recordError(CloseResult& r, double err, double expected) {
  if (!std::isfinite(err)) {
    r.max_abs_error = r.max_rel_error = INFINITY;
    return;
  }
  r.max_abs_error = std::max(r.max_abs_error, err);
  if (expected != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(expected));
}

template <class Where>
void mismatch(CloseResult& r, const Where& where, const std::string& got, const std::string& want) {
  if (r.mismatches++ == 0)
    r.first_mismatch = fmt::format("element {}: got {}, expected {}", where(), got, want);
  r.pass = false;
}

// Integers and bools: exact int64 differences, within the allowance (0
// unless a bound after a reduction says more).
template <class Where>
void compareInts(CloseResult& r, const OutputTolerance& tol, int64_t linear, int64_t g, int64_t w,
                 const Where& where) {
  // |g - w| in uint64: exact for any two int64 values.
  const uint64_t diff = g > w ? static_cast<uint64_t>(g) - static_cast<uint64_t>(w)
                              : static_cast<uint64_t>(w) - static_cast<uint64_t>(g);
  if (diff == 0) return;
  const double allowed = tol.allowed(linear, static_cast<double>(w));
  recordError(r, static_cast<double>(diff), static_cast<double>(w));
  if (allowed > 0 && static_cast<double>(diff) <= allowed) return;
  mismatch(r, where, std::to_string(g), std::to_string(w));
}

template <class Where>
void compareFloats(CloseResult& r, const OutputTolerance& tol, int64_t linear, double g, double w,
                   const Where& where) {
  if (std::isnan(g) && std::isnan(w)) return;
  bool same;
  if (tol.mode == OutputTolerance::Mode::Exact) {
    same = g == w && std::signbit(g) == std::signbit(w);
  } else if (g == w) {
    same = true;  // -0.0 == 0.0, inf == inf
  } else {
    const double allowed = tol.allowed(linear, w);
    same = std::isinf(allowed) ||
           (std::isfinite(g) && std::isfinite(w) && std::fabs(g - w) <= allowed);
  }
  if (g != w) recordError(r, std::fabs(g - w), w);
  if (!same) mismatch(r, where, fmt::format("{}", g), fmt::format("{}", w));
}

void countUnbounded(CloseResult& r, const OutputTolerance& tol) {
  if (tol.mode != OutputTolerance::Mode::Bounded || !tol.bound.defined()) return;
  const auto* b = static_cast<const double*>(tol.bound.data());
  for (int64_t i = 0; i < tol.bound.numel(); ++i) r.unbounded += std::isinf(b[i]) ? 1 : 0;
}

CloseResult compareTensors(const Tensor& actual, const Tensor& expected,
                           const OutputTolerance& tol) {
  CloseResult r;
  r.tolerance = tol.describe();
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes()) {
    r.pass = false;
    r.shape_error = fmt::format("got {}, expected {}", actual.describe(), expected.describe());
    return r;
  }
  FUSEBOX_USER_CHECK(actual.device() == Device::Host && expected.device() == Device::Host,
                     "checkClose compares host tensors, got {} and {}", actual.describe(),
                     expected.describe());
  FUSEBOX_CHECK(!tol.bound.defined() || tol.bound.numel() == expected.numel(),
                "a bound of {} elements for {}", tol.bound.numel(), expected.describe());
  countUnbounded(r, tol);
  const DataType dtype = expected.dtype();
  const bool floating = isFloatingType(dtype);
  int64_t linear = 0;
  for (detail::StridedWalk w(expected.sizes(), {actual.strides(), expected.strides()}); !w.done();
       w.next(), ++linear) {
    const auto g = eval_detail::loadNumber(actual.data(), dtype, w.offset(0));
    const auto e = eval_detail::loadNumber(expected.data(), dtype, w.offset(1));
    auto where = [&] { return position(w.index()); };
    if (floating)
      compareFloats(r, tol, linear, g.d, e.d, where);
    else
      compareInts(r, tol, linear, g.i, e.i, where);
  }
  return r;
}

CloseResult compareScalars(const ScalarValue& actual, const ScalarValue& expected,
                           const OutputTolerance& tol) {
  CloseResult r;
  r.tolerance = tol.describe();
  auto where = [] { return std::string("[]"); };
  if (std::holds_alternative<double>(expected) || std::holds_alternative<double>(actual))
    compareFloats(r, tol, 0, toDouble(actual), toDouble(expected), where);
  else
    compareInts(r, tol, 0, toInt(actual), toInt(expected), where);
  return r;
}

}  // namespace

CloseResult checkClose(const Argument& actual, const Argument& expected,
                       const OutputTolerance& tolerance) {
  const auto* a = std::get_if<Tensor>(&actual);
  const auto* e = std::get_if<Tensor>(&expected);
  if (a != nullptr && e != nullptr) return compareTensors(*a, *e, tolerance);
  if (a == nullptr && e == nullptr)
    return compareScalars(std::get<ScalarValue>(actual), std::get<ScalarValue>(expected),
                          tolerance);
  CloseResult r;
  r.tolerance = tolerance.describe();
  r.pass = false;
  r.shape_error =
      a != nullptr ? "got a tensor, expected a scalar" : "got a scalar, expected a tensor";
  return r;
}

CloseResult checkClose(const Tensor& actual, const Tensor& expected) {
  OutputTolerance tol;
  tol.dtype = expected.dtype();
  tol.base = toleranceFor(tol.dtype);
  return compareTensors(actual, expected, tol);
}

CloseResult checkExact(const Argument& actual, const Argument& expected) {
  OutputTolerance tol;
  tol.mode = OutputTolerance::Mode::Exact;
  if (const auto* e = std::get_if<Tensor>(&expected)) tol.dtype = e->dtype();
  return checkClose(actual, expected, tol);
}

}  // namespace fusebox
