// Error bounds of whole tensors (error_bounds.h): runs the evaluator on the
// fusion and, beside every tensor it computes, a float64 tensor E of bounds.
//   elementwise  E = (operands' bounds carried by bound_rules.cpp)
//                    + (ulps(op) u_c + 2 u_d) |y|
//   sum over K   E = sum e_j + (K + 1) u_acc sum |x_j| + 2 u_d |y|
//   max, min     E = max e_j
//   matmul       E = |A| @ E_B + E_A @ (|B| + E_B) + (K + 1) u_acc |A| @ |B| + 2 u_d |y|
//   movement     E moves with its values (the evaluator's own kernels, run on E)
// u_c: the compute type's unit roundoff (float32 for half types), u_acc the
// accumulation's (float32, float64 for double), u_d the tensor dtype's: both
// the evaluator and a kernel may round a stored value to its dtype, or only
// one of them, hence 2 u_d.
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/compute_type.h>

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "eval/error_bounds.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

// The unit roundoff kernels accumulate a reduction or contraction with.
double accumulationRoundoff(DataType in, DataType out) {
  if (!isFloatingType(in) && !isFloatingType(out)) return 0.0;
  return in == DataType::Double || out == DataType::Double ? unitRoundoff(DataType::Double)
                                                           : unitRoundoff(DataType::Float);
}

// Strides of a tensor of `sizes` seen from an output of `out_sizes` (aligned
// on the right; 0 where it broadcasts).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& out_sizes) {
  std::vector<int64_t> s(out_sizes.size(), 0);
  const size_t align = out_sizes.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] == out_sizes[d + align]) s[d + align] = strides[d];
  return s;
}

// |t| as float64, row-major.
Tensor absolute(const Tensor& t) {
  Tensor out = Tensor::empty(DataType::Double, t.sizes());
  auto* dst = static_cast<double*>(out.data());
  int64_t i = 0;
  for (detail::StridedWalk w(t.sizes(), {t.strides()}); !w.done(); w.next())
    dst[i++] = std::fabs(loadNumber(t.data(), t.dtype(), w.offset(0)).asDouble());
  return out;
}

class BoundRun {
 public:
  BoundRun(const Fusion& fusion, ExpressionEvaluator& ee)
      : values_(fusion, ee), moves_(fusion, ee) {
    moves_.setErrorBoundMode(true);
  }

  EvalContext& values() { return values_; }
  // E of v; undefined when every element is exact.
  Tensor error(const Val* v) const {
    auto it = errors_.find(v);
    return it == errors_.end() ? Tensor() : it->second;
  }
  void release(const Val* v) {
    values_.releaseTensor(v);
    errors_.erase(v);
  }

  void propagate(const Expr* e) {
    switch (e->op()) {
      case OpType::Set:
      case OpType::SegmentSet:
      case OpType::Unary:
      case OpType::Binary:
      case OpType::Ternary:
      case OpType::Cast:
        elementwise(e);
        return;
      case OpType::Reduction:
      case OpType::Var:
      case OpType::VarMean:
      case OpType::Welford:
        reduction(e);
        return;
      case OpType::Matmul:
      case OpType::Linear:
        contraction(e);
        return;
      case OpType::Full:
        return;
      case OpType::Iota:
      case OpType::Rand:
        creation(e);
        return;
      case OpType::Scan: {
        const Tensor& in = values_.tensor(e->input(0));
        const Tensor& out = values_.tensor(e->output(0));
        Tensor b = scanErrorBound(e, in, error(e->input(0)), out,
                                  accumulationRoundoff(in.dtype(), out.dtype()));
        setError(e->output(0), b, b.defined());
        return;
      }
      case OpType::Argsort:  // indices: compared exactly (see topkErrorBound)
        return;
      case OpType::TopK: {
        Tensor b = topkErrorBound(e, error(e->input(0)), values_.tensor(e->output(0)));
        setError(e->output(0), b, b.defined());
        return;
      }
      default:
        // broadcast, squeeze, expand, reshape, permute, slice, pad, cat; the
        // indexing ops read their index as it is.
        return isIndexingOp(e->op()) ? indexed(e) : movement(e);
    }
  }

 private:
  // E of v, zeros where it is exact (float64, v's sizes, row-major).
  Tensor errorOrZeros(const Val* v) const {
    Tensor t = error(v);
    return t.defined() ? t : Tensor::empty(DataType::Double, values_.tensor(v).sizes());
  }

  void setError(const Val* v, Tensor t, bool nonzero) {
    if (nonzero) errors_[v] = std::move(t);
  }

  // An operand of an elementwise op: its values and bounds (null for a
  // scalar, whose value is fixed), read in the op's compute type.
  struct BoundOperand {
    const void* value = nullptr;
    DataType dtype = DataType::Float;
    const double* error = nullptr;
    Number scalar;
    bool convert = false;
  };
  // e's operands over `out`'s sizes: their values and bounds in `ops`, and
  // the strides of each (value, bound) appended to `strides`.
  void readBoundOperands(const Expr* e, const Tensor& out, DataType compute, BoundOperand* ops,
                         std::vector<std::vector<int64_t>>& strides);
  void elementwise(const Expr* e);
  void reduction(const Expr* e);
  void variance(const Expr* e);
  void contraction(const Expr* e);
  void creation(const Expr* e);
  void movement(const Expr* e);
  void indexed(const Expr* e);
  // The evaluator's kernel for `e` run on float64 `operands` (one per input
  // tensor, in order); the output as it allocates it.
  Tensor moved(const Expr* e, const std::vector<Tensor>& operands, size_t output = 0);

  EvalContext values_;
  EvalContext moves_;
  std::unordered_map<const Val*, Tensor> errors_;
};

void BoundRun::readBoundOperands(const Expr* e, const Tensor& out, DataType compute,
                                 BoundOperand* ops, std::vector<std::vector<int64_t>>& strides) {
  for (size_t k = 0; k < e->inputs().size(); ++k) {
    const Val* in = e->input(k);
    strides.emplace_back(out.dim(), 0);
    strides.emplace_back(out.dim(), 0);
    if (!in->isTensor()) {
      // Scalars reach both sides rounded alike (to the compute type).
      ops[k].scalar = values_.number(in);
      if (convertsToComputeType(in->dtype(), false, compute))
        ops[k].scalar = numberFromScalar(scalarFromNumber(ops[k].scalar, compute), compute);
      continue;
    }
    const Tensor& v = values_.tensor(in);
    ops[k].value = v.data();
    ops[k].dtype = v.dtype();
    ops[k].convert = convertsToComputeType(v.dtype(), true, compute);
    strides[2 + 2 * k] = broadcastStrides(v.sizes(), v.strides(), out.sizes());
    if (const Tensor err = error(in); err.defined()) {
      ops[k].error = static_cast<const double*>(err.data());  // errors_ keeps it alive
      strides[3 + 2 * k] = broadcastStrides(err.sizes(), err.strides(), out.sizes());
    }
  }
}

void BoundRun::elementwise(const Expr* e) {
  const auto* out_tv = e->output(0)->as<TensorView>();
  const Tensor& out = values_.tensor(out_tv);
  const DataType compute = elementwiseComputeType(e);
  BoundOp op;
  op.kind = e->op();
  op.out_type = out.dtype();
  op.u_c = unitRoundoff(compute);
  op.u_d = unitRoundoff(out.dtype());
  if (op.kind == OpType::Unary) {
    op.unary = e->attr<UnaryOpType>();
    op.ulps = unaryUlps(op.unary);
  }
  if (op.kind == OpType::Binary) {
    op.binary = e->attr<BinaryOpType>();
    op.ulps = binaryUlps(op.binary, isFloatingType(compute));
  }
  if (op.kind == OpType::Ternary) op.ternary = e->attr<TernaryOpType>();
  op.lerp = op.kind == OpType::Ternary && op.ternary == TernaryOpType::Lerp;
  if (op.lerp) op.ulps = 3;
  bool any_error = false;
  for (const Val* in : e->inputs()) any_error |= in->isTensor() && error(in).defined();
  if (!any_error && op.ulps == 0) return;  // exact ops of exact operands stay exact

  // Per operand: its values and bounds (null for a scalar, whose value is
  // fixed), read in the op's compute type as the evaluator reads them.
  const size_t n_ops = e->inputs().size();
  BoundOperand ops[3];
  Tensor bound = Tensor::empty(DataType::Double, out.sizes());
  std::vector<std::vector<int64_t>> strides{bound.strides(), out.strides()};
  readBoundOperands(e, out, compute, ops, strides);
  auto* dst = static_cast<double*>(bound.data());
  const void* out_base = out.data();
  std::vector<int64_t> step;
  for (const auto& s : strides) step.push_back(s.empty() ? 0 : s.back());
  bool nonzero = false;
  Number x[3];
  double err[3] = {0, 0, 0};
  detail::forEachRow(out.sizes(), strides, [&](const std::vector<int64_t>& start, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < n_ops; ++k) {
        const BoundOperand& o = ops[k];
        if (o.value == nullptr) {
          x[k] = o.scalar;
          continue;
        }
        x[k] = loadNumber(o.value, o.dtype, start[2 + 2 * k] + i * step[2 + 2 * k]);
        if (o.convert) x[k] = numberFromScalar(scalarFromNumber(x[k], compute), compute);
        err[k] = o.error ? o.error[start[3 + 2 * k] + i * step[3 + 2 * k]] : 0.0;
      }
      const Number y = loadNumber(out_base, op.out_type, start[1] + i * step[1]);
      // No rounding of an infinity or NaN: exact, or unbounded.
      const double b = y.isFloat() && !std::isfinite(y.d)
                           ? nonFiniteBound(e, x, err, y, op.ulps * op.u_c)
                           : elementBound(op, x, err, y);
      nonzero |= b != 0;
      dst[start[0] + i * step[0]] = b;
    }
  });
  setError(out_tv, std::move(bound), nonzero);
}

// How a reduction walks its operands: the kept positions and, for each, the
// offsets of the reduced elements, per operand (values and bounds differ in
// strides).
struct ReductionWalk {
  std::vector<int64_t> kept_sizes;
  std::vector<std::vector<int64_t>> kept_strides;  // per operand
  std::vector<std::vector<int64_t>> reduced;       // per operand, relative offsets
};

ReductionWalk reductionWalk(const std::vector<const Tensor*>& operands,
                            const std::vector<int64_t>& axes) {
  ReductionWalk r;
  const Tensor& first = *operands[0];
  std::vector<int64_t> red_sizes;
  std::vector<std::vector<int64_t>> red_strides(operands.size());
  r.kept_strides.resize(operands.size());
  for (int64_t d = 0; d < first.dim(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    (reduced ? red_sizes : r.kept_sizes).push_back(first.sizes()[d]);
    for (size_t k = 0; k < operands.size(); ++k)
      (reduced ? red_strides[k] : r.kept_strides[k]).push_back(operands[k]->strides()[d]);
  }
  r.reduced.resize(operands.size());
  for (detail::StridedWalk w(red_sizes, red_strides); !w.done(); w.next())
    for (size_t k = 0; k < operands.size(); ++k) r.reduced[k].push_back(w.offset(k));
  return r;
}

void BoundRun::reduction(const Expr* e) {
  if (e->op() != OpType::Reduction) return variance(e);
  const auto& attr = e->attr<ReductionAttr>();
  const Tensor& in = values_.tensor(e->input(0));
  const Tensor in_error = errorOrZeros(e->input(0));
  const auto* out_tv = e->output(0)->as<TensorView>();
  const Tensor& out = values_.tensor(out_tv);
  const double u_acc = accumulationRoundoff(in.dtype(), out.dtype());
  if (u_acc == 0 && !error(e->input(0)).defined()) return;  // integers, exact
  ReductionWalk r = reductionWalk({&in, &in_error}, attr.axes);
  Tensor bound = Tensor::empty(DataType::Double, out.sizes());
  const auto* err = static_cast<const double*>(in_error.data());
  auto* dst = static_cast<double*>(bound.data());
  bool nonzero = false;
  for (detail::StridedWalk w(
           r.kept_sizes, {r.kept_strides[0], r.kept_strides[1], out.strides(), bound.strides()});
       !w.done(); w.next()) {
    ReductionTotals totals;
    for (size_t j = 0; j < r.reduced[0].size(); ++j)
      totals.add(
          std::fabs(loadNumber(in.data(), in.dtype(), w.offset(0) + r.reduced[0][j]).asDouble()),
          err[w.offset(1) + r.reduced[1][j]]);
    const double y = std::fabs(loadNumber(out.data(), out.dtype(), w.offset(2)).asDouble());
    const double b = reductionBound(attr.op, totals, u_acc, out.dtype(), y);
    nonzero |= b != 0;
    dst[w.offset(3)] = b;
  }
  setError(out_tv, std::move(bound), nonzero);
}

// var, var_mean, welford: the mean m = sum / K off by e_m, deviations d_j =
// x_j - m off by delta_j = e_j + e_m + u |d_j|, and
// M2 = sum d_j^2 off by sum (2 |d_j| delta_j + delta_j^2) + (K + 1) u sum d_j^2
// (a first-order bound, so it holds for Welford's updates as for two passes).
void BoundRun::variance(const Expr* e) {
  const auto& attr = e->attr<VarianceAttr>();
  const Tensor& in = values_.tensor(e->input(0));
  const Tensor in_error = errorOrZeros(e->input(0));
  std::vector<const Tensor*> outs;
  std::vector<Tensor> bounds;
  for (const Val* v : e->outputs()) {
    outs.push_back(&values_.tensor(v));
    bounds.push_back(Tensor::empty(DataType::Double, outs.back()->sizes()));
  }
  const double u = accumulationRoundoff(in.dtype(), outs[0]->dtype());
  ReductionWalk r = reductionWalk({&in, &in_error}, attr.axes);
  std::vector<std::vector<int64_t>> strides = {r.kept_strides[0], r.kept_strides[1]};
  for (size_t k = 0; k < outs.size(); ++k) {
    strides.push_back(outs[k]->strides());
    strides.push_back(bounds[k].strides());
  }
  const auto* err = static_cast<const double*>(in_error.data());
  const auto n = static_cast<int64_t>(r.reduced[0].size());
  const double terms = static_cast<double>(n);
  const double divisor = static_cast<double>(std::max<int64_t>(0, n - attr.correction));
  std::vector<bool> nonzero(outs.size(), false);
  for (detail::StridedWalk w(r.kept_sizes, strides); !w.done(); w.next()) {
    auto x = [&](size_t j) {
      return loadNumber(in.data(), in.dtype(), w.offset(0) + r.reduced[0][j]).asDouble();
    };
    auto ex = [&](size_t j) { return err[w.offset(1) + r.reduced[1][j]]; };
    double sum = 0, sum_abs = 0, sum_err = 0;
    for (size_t j = 0; j < r.reduced[0].size(); ++j) {
      sum += x(j);
      sum_abs += std::fabs(x(j));
      sum_err += ex(j);
    }
    const double mean = sum / terms;
    const double e_mean = (sum_err + (terms + 1) * u * sum_abs) / terms + u * std::fabs(mean);
    double m2 = 0, e_m2 = 0;
    for (size_t j = 0; j < r.reduced[0].size(); ++j) {
      const double d = x(j) - mean;
      const double delta = ex(j) + e_mean + u * std::fabs(d);
      m2 += d * d;
      e_m2 += 2 * std::fabs(d) * delta + delta * delta;
    }
    e_m2 += (terms + 1) * u * m2;
    // No elements, or a divisor of 0: NaN or inf on both sides alike.
    const bool degenerate = n == 0 || divisor == 0;
    auto put = [&](size_t k, double b) {
      const double y =
          std::fabs(loadNumber(outs[k]->data(), outs[k]->dtype(), w.offset(2 + 2 * k)).asDouble());
      b = degenerate ? 0.0 : b + storedRounding(outs[k]->dtype(), y);
      if (std::isnan(b)) b = kUnbounded;
      nonzero[k] = nonzero[k] || b != 0;
      static_cast<double*>(bounds[k].data())[w.offset(3 + 2 * k)] = b;
    };
    const double e_var = e_m2 / divisor + u * m2 / divisor;
    switch (e->op()) {
      case OpType::Var:
        put(0, e_var);
        break;
      case OpType::VarMean:
        put(0, e_var);
        put(1, e_mean);
        break;
      default:  // Welford: avg, var_sum, n (exact)
        put(0, e_mean);
        put(1, e_m2);
        put(2, 0.0);
        break;
    }
  }
  for (size_t k = 0; k < outs.size(); ++k) setError(e->output(k), std::move(bounds[k]), nonzero[k]);
}

Tensor BoundRun::moved(const Expr* e, const std::vector<Tensor>& operands, size_t output) {
  size_t next = 0;
  for (const Val* in : e->inputs())
    if (in->isTensor()) moves_.setTensor(in, operands.at(next++));
  evalTensorExpr(moves_, e);
  Tensor result = moves_.tensor(e->output(output));
  for (const Val* v : e->inputs()) moves_.releaseTensor(v);
  for (const Val* v : e->outputs()) moves_.releaseTensor(v);
  return result;
}

void BoundRun::movement(const Expr* e) {
  bool any_error = false;
  std::vector<Tensor> operands;
  for (const Val* in : e->inputs()) {
    if (!in->isTensor()) continue;
    any_error |= error(in).defined();
    operands.push_back(errorOrZeros(in));
  }
  if (!any_error) return;  // data movement is exact
  Tensor m = moved(e, operands).contiguous();
  setError(e->output(0), std::move(m), true);
}

// Indexing ops move their data operands' bounds with the values, read at the
// very indices the values were: the index operand is passed as it is. An
// index with a bound of its own (computed from rounded values) may pick other
// elements, so then no element is bounded.
void BoundRun::indexed(const Expr* e) {
  const Val* index = e->input(1);
  bool any_error = false;
  for (const Val* in : e->inputs()) any_error |= in->isTensor() && error(in).defined();
  if (!any_error) return;  // exact data at exact indices
  const Val* out = e->output(0);
  if (index->isTensor() && error(index).defined()) {
    Tensor all = Tensor::empty(DataType::Double, values_.tensor(out).sizes());
    auto* p = static_cast<double*>(all.data());
    for (int64_t i = 0; i < all.numel(); ++i) p[i] = kUnbounded;
    setError(out, std::move(all), true);
    return;
  }
  std::vector<Tensor> operands;
  for (size_t k = 0; k < e->inputs().size(); ++k) {
    const Val* in = e->input(k);
    if (in->isTensor()) operands.push_back(k == 1 ? values_.tensor(in) : errorOrZeros(in));
  }
  setError(out, moved(e, operands).contiguous(), true);
}

// matmul and linear: the contraction of |A| and |B| (and of the bounds) by the
// evaluator's own kernel, so batch broadcasting and 1-D operands follow.
void BoundRun::contraction(const Expr* e) {
  const auto* out_tv = e->output(0)->as<TensorView>();
  const Tensor& out = values_.tensor(out_tv);
  const Tensor& a = values_.tensor(e->input(0));
  const Tensor& b = values_.tensor(e->input(1));
  const bool has_bias = e->inputs().size() > 2;
  const int64_t k = a.sizes().back();
  const double u_acc = accumulationRoundoff(a.dtype(), out.dtype());
  const Tensor abs_a = absolute(a), abs_b = absolute(b);
  auto zeroBias = [&] {
    return Tensor::empty(DataType::Double, values_.tensor(e->input(2)).sizes());
  };
  std::vector<Tensor> plain = {abs_a, abs_b};
  if (has_bias) plain.push_back(zeroBias());
  const Tensor magnitude = moved(e, plain);  // |A| @ |B|
  Tensor carried;
  if (error(e->input(0)).defined() || error(e->input(1)).defined() ||
      (has_bias && error(e->input(2)).defined())) {
    // E_A @ (|B| + E_B) + |A| @ E_B + E_bias
    Tensor eb = errorOrZeros(e->input(1));
    Tensor wide_b = Tensor::empty(DataType::Double, b.sizes());
    auto* wb = static_cast<double*>(wide_b.data());
    const auto* ab = static_cast<const double*>(abs_b.data());
    const auto* ebp = static_cast<const double*>(eb.data());
    for (int64_t i = 0; i < b.numel(); ++i) wb[i] = ab[i] + ebp[i];
    std::vector<Tensor> first = {errorOrZeros(e->input(0)), wide_b};
    std::vector<Tensor> second = {abs_a, eb};
    if (has_bias) {
      first.push_back(errorOrZeros(e->input(2)));
      second.push_back(zeroBias());
    }
    const Tensor m1 = moved(e, first), m2 = moved(e, second);
    carried = Tensor::empty(DataType::Double, out.sizes());
    copyInto(m1, carried);
    auto* c = static_cast<double*>(carried.data());
    int64_t i = 0;
    for (detail::StridedWalk w(m2.sizes(), {m2.strides()}); !w.done(); w.next())
      c[i++] += static_cast<const double*>(m2.data())[w.offset(0)];
  }
  Tensor bound = Tensor::empty(DataType::Double, out.sizes());
  auto* dst = static_cast<double*>(bound.data());
  const auto* carried_p = carried.defined() ? static_cast<const double*>(carried.data()) : nullptr;
  // The bias case: the product may also be rounded to the output dtype before
  // the bias is added (cuBLAS's epilogue on half types).
  const double product_rounding = has_bias ? unitRoundoff(out.dtype()) : 0.0;
  int64_t i = 0;
  for (detail::StridedWalk w(out.sizes(), {out.strides(), magnitude.strides()}); !w.done();
       w.next(), ++i) {
    const double mag = static_cast<const double*>(magnitude.data())[w.offset(1)];
    const double y = std::fabs(loadNumber(out.data(), out.dtype(), w.offset(0)).asDouble());
    double v = (static_cast<double>(k) + 1) * u_acc * mag + product_rounding * mag +
               storedRounding(out.dtype(), y) + (carried_p ? carried_p[i] : 0.0);
    dst[i] = std::isnan(v) ? kUnbounded : v;
  }
  setError(out_tv, std::move(bound), true);
}

// iota (start + i step) and rand (low + (high - low) draw; normal's
// Box-Muller): a few float32 operations on the same draws.
void BoundRun::creation(const Expr* e) {
  const auto* out_tv = e->output(0)->as<TensorView>();
  const Tensor& out = values_.tensor(out_tv);
  if (!isFloatingType(out.dtype())) return;
  const double u_c =
      unitRoundoff(out.dtype() == DataType::Double ? DataType::Double : DataType::Float);
  double slack = 0.0, ulps = 2.0;
  if (e->op() == OpType::Iota) {
    slack = std::fabs(values_.number(e->input(1)).asDouble());
  } else {
    const int64_t rank = out.dim();
    const double p = std::fabs(values_.number(e->input(rank)).asDouble());
    const double q = std::fabs(values_.number(e->input(rank + 1)).asDouble());
    const bool normal = e->attr<RandAttr>().dist == RandomDistribution::Normal;
    // Normal: |z| <= 6 for float32 draws; log, sqrt and cos cost 16 ulps.
    slack = normal ? p + 8 * q : p + q;
    ulps = normal ? 16.0 : 4.0;
  }
  Tensor bound = Tensor::empty(DataType::Double, out.sizes());
  auto* dst = static_cast<double*>(bound.data());
  int64_t i = 0;
  for (detail::StridedWalk w(out.sizes(), {out.strides()}); !w.done(); w.next()) {
    const double y = std::fabs(loadNumber(out.data(), out.dtype(), w.offset(0)).asDouble());
    const double b = ulps * u_c * (y + slack) + storedRounding(out.dtype(), y);
    dst[i++] = std::isnan(b) ? kUnbounded : b;
  }
  setError(out_tv, std::move(bound), true);
}

}  // namespace

std::vector<Tensor> outputErrorBounds(const Fusion& fusion, const std::vector<Argument>& inputs,
                                      const std::vector<bool>& wanted) {
  ExpressionEvaluator ee;
  bindInputs(fusion, inputs, {}, ee);
  checkShapeConstraints(fusion, ee);
  BoundRun run(fusion, ee);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (fusion.inputs()[i]->isTensor())
      run.values().setTensor(fusion.inputs()[i], std::get<Tensor>(inputs[i]));

  // The tensor expressions the wanted outputs depend on, in topological order.
  std::unordered_set<const Expr*> needed;
  std::vector<const Val*> stack;
  std::unordered_set<const Val*> kept;
  for (size_t k = 0; k < fusion.outputs().size(); ++k)
    if (wanted[k] && fusion.outputs()[k]->isTensor()) {
      stack.push_back(fusion.outputs()[k]);
      kept.insert(fusion.outputs()[k]);
    }
  while (!stack.empty()) {
    const Val* v = stack.back();
    stack.pop_back();
    const Expr* def = v->definition();
    if (def == nullptr || v->isFusionInput() || !needed.insert(def).second) continue;
    for (const Val* in : def->inputs())
      if (in->isTensor()) stack.push_back(in);
  }
  std::vector<const Expr*> exprs;
  for (const Expr* e : fusion.tensorExprs())
    if (needed.count(e)) exprs.push_back(e);
  std::unordered_map<const Val*, size_t> last_use = lastUses(exprs);

  for (size_t k = 0; k < exprs.size(); ++k) {
    const Expr* e = exprs[k];
    try {
      evalTensorExpr(run.values(), e);
      run.propagate(e);
    } catch (const UserError& err) {
      throw UserError(fmt::format("{}: {}", describeExpr(e), err.what()));
    }
    for (const Val* in : e->inputs())
      if (in->isTensor() && last_use[in] == k && !in->isFusionInput() && !kept.count(in))
        run.release(in);
  }

  std::vector<Tensor> bounds;
  for (size_t k = 0; k < fusion.outputs().size(); ++k) {
    const Val* out = fusion.outputs()[k];
    bounds.push_back(wanted[k] && out->isTensor() ? run.error(out) : Tensor());
  }
  return bounds;
}

}  // namespace fusebox::eval_detail
