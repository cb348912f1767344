// The error bounds behind the tolerance model (fusebox/eval/tolerance.h).
// For every element of a tensor, a bound E on how far the value a correct
// kernel computes may be from the evaluator's: kernels compute in float32
// (float64 for double), accumulate in another order and may keep or round
// intermediates, while the evaluator computes in float64 and rounds each
// tensor to its dtype. Inputs are exact (E = 0); each op carries its
// operands' bounds forward (bound_rules.cpp) and adds its own rounding.
#pragma once

#include <algorithm>
#include <limits>

#include "eval/eval_internal.h"

namespace fusebox::eval_detail {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// ---- one element (bound_rules.cpp) ------------------------------------------
// How far the op's result may move when operand k, of value x_k, may be off by
// e_k (>= 0, +inf when unbounded). y is the op's result at the x_k. Returns a
// bound >= 0, or +inf where none exists (an operand interval that holds a
// pole, or a discontinuity of unbounded jump). Rounding is not included.
double unaryBound(UnaryOpType op, const Number& x, double e, const Number& y);
double binaryBound(BinaryOpType op, const Number& a, double ea, const Number& b, double eb,
                   const Number& y);
double ternaryBound(TernaryOpType op, const Number* x, const double* e, const Number& y);
// The bound of an elementwise result y that is an infinity or NaN: 0 when
// every corner of the operands' intervals gives y again (an infinite operand
// is itself; a finite one is also widened by `widen` times its magnitude, the
// op's own rounding seen as a change of its operands), so that every correct
// kernel computes y exactly: -inf - x, max(-inf, x), exp(inf), log(0), a NaN
// of exact operands. +inf otherwise: y is an overflow (a kernel may round to
// the largest finite value instead) or depends on where in the interval the
// operands lie.
double nonFiniteBound(const Expr* expr, const Number* x, const double* e, const Number& y,
                      double widen);
// A cast of x (off by e) to `to`.
double castBound(const Number& x, double e, DataType to);

// The op's own rounding, in units of roundoff of its compute type, relative to
// |result|: 0 for exact ops (abs, comparisons, max...), 1 for correctly
// rounded ones (+ - * / sqrt), 8 for library functions (exp, tanh, pow...).
int unaryUlps(UnaryOpType op);
int binaryUlps(BinaryOpType op, bool floating);
// A value stored in `dtype`: the stored and the reference value may round
// apart, 2 u |y|.
double storedRounding(DataType dtype, double y);

// An elementwise op as its error bound sees it.
struct BoundOp {
  OpType kind{};
  UnaryOpType unary{};
  BinaryOpType binary{};
  TernaryOpType ternary{};
  DataType out_type{};
  int ulps = 0;  // the op's own rounding, in units of the compute type
  bool lerp = false;
  double u_c = 0;  // unit roundoff of the compute type
  double u_d = 0;  // and of the output dtype
};

// One element's bound: what its operands' bounds (`err`) carry through the
// op at values `x`, plus the op's own roundings, for the result `y`.
double elementBound(const BoundOp& op, const Number* x, const double* err, const Number& y);

// ---- one sum, product or extremum (error_bounds_scan.cpp) -------------------
// Running totals over the K terms x_j (off by e_j) one reduction combines.
struct ReductionTotals {
  double terms = 0, sum_abs = 0, sum_err = 0, max_err = 0, prod_abs = 1, prod_wide = 1;
  void add(double abs_x, double e) {
    terms += 1;
    sum_abs += abs_x;
    sum_err += e;
    max_err = std::max(max_err, e);
    prod_abs *= abs_x;
    prod_wide *= abs_x + e;
  }
};
// The bound of the reduction's result y (stored as `dtype`), accumulated
// with unit roundoff u_acc: a sum's sum e_j + (K + 1) u_acc sum |x_j|, a
// product's prod(|x_j| + e_j) (1 + (K + 1) u_acc) - prod |x_j| (each of the K
// multiplications rounds), plus the stored rounding 2 u_d |y|; max and min
// max e_j. +inf instead of NaN.
double reductionBound(ReductionOpType op, const ReductionTotals& t, double u_acc, DataType dtype,
                      double abs_y);

// ---- scans and topk (error_bounds_scan.cpp) ---------------------------------
// E of a scan's output (row-major float64): each element gets the bound of
// the sum, product or extremum of its prefix; undefined when every element
// is exact. `in_error` may be undefined (an exact input); u_acc is the unit
// roundoff the scan accumulates with.
Tensor scanErrorBound(const Expr* e, const Tensor& in, const Tensor& in_error, const Tensor& out,
                      double u_acc);
// E of topk's values (row-major float64, `values`' sizes): each gets the
// largest bound of its line of the input, as the j-th largest (or smallest)
// moves by at most that whichever elements trade places; undefined when the
// input is exact. The indices get none: compared exactly, inputs that tie
// within their bounds may trade places and fail the check (a flagged
// difference, never a hidden one).
Tensor topkErrorBound(const Expr* e, const Tensor& in_error, const Tensor& values);

// ---- whole tensors (error_bounds.cpp) ---------------------------------------
// Per output of `fusion` that `wanted` selects: E for each element, as a
// float64 tensor of the output's sizes (row-major); an undefined tensor where
// every element is exact (E = 0) and for scalar and unwanted outputs. Only
// the expressions the wanted outputs depend on are evaluated.
std::vector<Tensor> outputErrorBounds(const Fusion& fusion, const std::vector<Argument>& inputs,
                                      const std::vector<bool>& wanted);

}  // namespace fusebox::eval_detail
