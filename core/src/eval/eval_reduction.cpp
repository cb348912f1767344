// Reductions: sum/prod/max/min, var, var_mean and welford over a set of axes.
// Floating values accumulate in double, integers and bools in int64 (wrapping).
// Variance is two-pass (mean first, then squared deviations), which keeps
// precision when the mean is large compared to the spread.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

// How a reduction walks its input: an outer walk over the kept dims (with the
// output's offsets beside) and, for each, the offsets of the reduced elements.
struct ReductionPlan {
  std::vector<int64_t> kept_sizes, kept_strides;
  std::vector<int64_t> reduced_offsets;  // relative to the kept position's offset
  int64_t first_empty_axis = -1;         // a reduced axis of size 0, if any
};

ReductionPlan plan(const Tensor& in, const std::vector<int64_t>& axes) {
  ReductionPlan p;
  std::vector<int64_t> red_sizes, red_strides;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) {
      red_sizes.push_back(in.sizes()[d]);
      red_strides.push_back(in.strides()[d]);
      if (in.sizes()[d] == 0 && p.first_empty_axis < 0) p.first_empty_axis = d;
    } else {
      p.kept_sizes.push_back(in.sizes()[d]);
      p.kept_strides.push_back(in.strides()[d]);
    }
  }
  for (detail::StridedWalk w(red_sizes, {red_strides}); !w.done(); w.next())
    p.reduced_offsets.push_back(w.offset(0));
  return p;
}

void checkAxes(const Tensor& in, const std::vector<int64_t>& axes) {
  for (int64_t a : axes)
    FUSEBOX_CHECK(a >= 0 && a < in.dim(), "reduction axis {} out of range for rank {}", a,
                  in.dim());
}

void evalPlainReduction(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<ReductionAttr>();
  const Tensor& in = ctx.tensor(e->input(0));
  checkAxes(in, attr.axes);
  const auto* out_tv = e->output(0)->as<TensorView>();
  ReductionPlan p = plan(in, attr.axes);
  const bool is_extremum = attr.op == ReductionOpType::Max || attr.op == ReductionOpType::Min;
  FUSEBOX_USER_CHECK(!is_extremum || p.first_empty_axis < 0,
                     "{} of an empty set: dim {} of {} has size 0 (max and min need at least one "
                     "element)",
                     toString(attr.op), p.first_empty_axis, e->input(0)->toString());

  Tensor out = ctx.allocate(out_tv, p.kept_sizes);
  // Floating if either side is (sum(int_tensor, dtype=float) sums the values as floats).
  const bool floating = isFloatingType(in.dtype()) || isFloatingType(out.dtype());
  const void* src = in.data();
  void* dst = out.data();
  for (detail::StridedWalk w(p.kept_sizes, {p.kept_strides, out.strides()}); !w.done(); w.next()) {
    const int64_t base = w.offset(0);
    Number result;
    if (floating) {
      double acc = attr.op == ReductionOpType::Prod ? 1.0 : 0.0;
      bool first = true;
      for (int64_t off : p.reduced_offsets) {
        const double x = loadNumber(src, in.dtype(), base + off).asDouble();
        switch (attr.op) {
          case ReductionOpType::Sum:
            acc += x;
            break;
          case ReductionOpType::Prod:
            acc *= x;
            break;
          case ReductionOpType::Max:
            // NaN wins and stays, as in torch.
            if (first || std::isnan(x) || (!std::isnan(acc) && x > acc)) acc = x;
            break;
          case ReductionOpType::Min:
            if (first || std::isnan(x) || (!std::isnan(acc) && x < acc)) acc = x;
            break;
        }
        first = false;
      }
      result = Number::ofFloat(acc);
    } else {
      int64_t acc = attr.op == ReductionOpType::Prod ? 1 : 0;
      bool first = true;
      for (int64_t off : p.reduced_offsets) {
        const int64_t x = loadNumber(src, in.dtype(), base + off).i;
        switch (attr.op) {
          case ReductionOpType::Sum:
            acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
            break;
          case ReductionOpType::Prod:
            acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(x));
            break;
          case ReductionOpType::Max:
            acc = first ? x : std::max(acc, x);
            break;
          case ReductionOpType::Min:
            acc = first ? x : std::min(acc, x);
            break;
        }
        first = false;
      }
      result = Number::ofInt(acc);
    }
    storeNumber(dst, out.dtype(), w.offset(1), result);
  }
  ctx.setTensor(out_tv, std::move(out));
}

// var, var_mean and welford: per kept position, the mean and the sum of squared
// deviations (M2) over the reduced elements.
void evalVariance(EvalContext& ctx, const Expr* e) {
  const auto& attr = e->attr<VarianceAttr>();
  const Tensor& in = ctx.tensor(e->input(0));
  checkAxes(in, attr.axes);
  ReductionPlan p = plan(in, attr.axes);
  std::vector<Tensor> outs;
  std::vector<const TensorView*> out_tvs;
  for (const Val* v : e->outputs()) {
    out_tvs.push_back(v->as<TensorView>());
    outs.push_back(ctx.allocate(out_tvs.back(), p.kept_sizes));
  }
  std::vector<std::vector<int64_t>> strides{p.kept_strides};
  for (const auto& t : outs) strides.push_back(t.strides());

  const int64_t n = static_cast<int64_t>(p.reduced_offsets.size());
  const void* src = in.data();
  for (detail::StridedWalk w(p.kept_sizes, strides); !w.done(); w.next()) {
    const int64_t base = w.offset(0);
    double sum = 0.0;
    for (int64_t off : p.reduced_offsets) sum += loadNumber(src, in.dtype(), base + off).asDouble();
    const double mean = sum / static_cast<double>(n);  // NaN when n == 0
    double m2 = 0.0;
    for (int64_t off : p.reduced_offsets) {
      const double dev = loadNumber(src, in.dtype(), base + off).asDouble() - mean;
      m2 += dev * dev;
    }
    // torch divides by max(0, N - correction): 0/0 gives NaN, x/0 gives inf.
    const double divisor = static_cast<double>(std::max<int64_t>(0, n - attr.correction));
    switch (e->op()) {
      case OpType::Var:
        storeNumber(outs[0].data(), outs[0].dtype(), w.offset(1), Number::ofFloat(m2 / divisor));
        break;
      case OpType::VarMean:
        storeNumber(outs[0].data(), outs[0].dtype(), w.offset(1), Number::ofFloat(m2 / divisor));
        storeNumber(outs[1].data(), outs[1].dtype(), w.offset(2), Number::ofFloat(mean));
        break;
      default:  // Welford: the state a Welford reduction ends in; no elements -> (0, 0, 0)
        storeNumber(outs[0].data(), outs[0].dtype(), w.offset(1),
                    Number::ofFloat(n == 0 ? 0.0 : mean));
        storeNumber(outs[1].data(), outs[1].dtype(), w.offset(2), Number::ofFloat(m2));
        storeNumber(outs[2].data(), outs[2].dtype(), w.offset(3), Number::ofInt(n));
        break;
    }
  }
  for (size_t k = 0; k < outs.size(); ++k) ctx.setTensor(out_tvs[k], std::move(outs[k]));
}

}  // namespace

void evalReduction(EvalContext& ctx, const Expr* e) {
  switch (e->op()) {
    case OpType::Reduction:
      evalPlainReduction(ctx, e);
      return;
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford:
      evalVariance(ctx, e);
      return;
    default:
      break;
  }
  throw InternalError(fmt::format("evalReduction: {}", describeExpr(e)));
}

}  // namespace fusebox::eval_detail
