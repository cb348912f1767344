// Tolerant comparison with the evaluator's results.
#include <fusebox/error.h>
#include <fusebox/eval/check_close.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fusebox {

Tolerance toleranceFor(DataType dtype, int64_t reduction_size) {
  double base = 0;
  switch (dtype) {
    case DataType::Half:
      base = 4e-3;
      break;
    case DataType::BFloat16:
      base = 3.2e-2;
      break;
    case DataType::Float:
      base = 2e-5;
      break;
    case DataType::Double:
      base = 1e-12;
      break;
    default:
      return {};
  }
  const double scale = reduction_size > 1 ? std::sqrt(static_cast<double>(reduction_size)) : 1.0;
  return {base * scale, base * scale};
}

namespace {

std::string position(const std::vector<int64_t>& sizes, int64_t linear) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 0) break;
    index[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

void compareValues(const std::vector<double>& got, const std::vector<double>& want,
                   const std::vector<int64_t>& sizes, CloseResult& r) {
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    bool same = (std::isnan(g) && std::isnan(w)) || g == w;
    if (!same) {
      const double err = std::fabs(g - w);
      if (std::isfinite(err)) {
        r.max_abs_error = std::max(r.max_abs_error, err);
        if (w != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(w));
      } else {
        r.max_abs_error = r.max_rel_error = INFINITY;
      }
      same = err <= r.tolerance.atol + r.tolerance.rtol * std::fabs(w);
    }
    if (!same) {
      if (r.mismatches++ == 0)
        r.first_mismatch = fmt::format("element {}: got {}, expected {}",
                                       position(sizes, static_cast<int64_t>(i)), g, w);
      r.pass = false;
    }
  }
}

}  // namespace

CloseResult checkClose(const Tensor& actual, const Tensor& expected, int64_t reduction_size) {
  CloseResult r;
  r.tolerance = toleranceFor(expected.dtype(), reduction_size);
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes()) {
    r.pass = false;
    r.shape_error = fmt::format("got {}, expected {}", actual.describe(), expected.describe());
    return r;
  }
  compareValues(actual.toDoubles(), expected.toDoubles(), expected.sizes(), r);
  return r;
}

CloseResult checkClose(const Argument& actual, const Argument& expected, DataType dtype,
                       int64_t reduction_size) {
  const auto* a = std::get_if<Tensor>(&actual);
  const auto* e = std::get_if<Tensor>(&expected);
  if (a != nullptr && e != nullptr) return checkClose(*a, *e, reduction_size);
  CloseResult r;
  r.tolerance = toleranceFor(dtype, reduction_size);
  if (a != nullptr || e != nullptr) {
    r.pass = false;
    r.shape_error =
        a != nullptr ? "got a tensor, expected a scalar" : "got a scalar, expected a tensor";
    return r;
  }
  compareValues({toDouble(std::get<ScalarValue>(actual))},
                {toDouble(std::get<ScalarValue>(expected))}, {}, r);
  return r;
}

int64_t largestReductionSize(const Fusion& fusion, const std::vector<Argument>& inputs) {
  ExpressionEvaluator ee;
  for (size_t i = 0; i < inputs.size() && i < fusion.inputs().size(); ++i) {
    const Val* in = fusion.inputs()[i];
    if (const auto* t = std::get_if<Tensor>(&inputs[i]))
      ee.bindTensor(in->as<TensorView>(), *t, in->toString());
    else
      ee.bind(in, std::get<ScalarValue>(inputs[i]), in->toString());
  }
  auto extent = [&](const IterDomain* id) -> int64_t {
    auto v = ee.evaluate(id->logicalExtent());
    return v ? toInt(*v) : 1;
  };
  int64_t largest = 1;
  for (const TensorView* tv : fusion.allTensors()) {
    int64_t n = 1;
    for (const IterDomain* id : tv->logical())
      if (id->isReduction()) n *= std::max<int64_t>(extent(id), 1);
    largest = std::max(largest, n);
  }
  for (const Expr* e : fusion.tensorExprs()) {
    if (e->op() != OpType::Matmul && e->op() != OpType::Linear) continue;
    const auto dims = e->inputs()[0]->as<TensorView>()->logicalNoReductions();
    if (!dims.empty()) largest = std::max(largest, extent(dims.back()));
  }
  return largest;
}

}  // namespace fusebox
