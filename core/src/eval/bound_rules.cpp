// How far one elementwise op's result may move when its operands are off by
// known amounts (error_bounds.h). Three kinds of rule, each a true bound:
//   - Lipschitz: |f(x') - f(x)| <= L |x' - x| (sin, tanh, max, clamp...);
//   - linear algebra: + - * exactly (|a| eb + |b| ea + ea eb for a product);
//   - corners: a function monotone in each operand separately moves the most
//     at a corner of the operand box (exp, log, /, pow of a positive base,
//     comparisons, floor...), after excluding poles and adding interior
//     extrema where the function turns (cosh at 0, lgamma at 1.46).
// Everything else gets +inf (unbounded) once an operand carries an error.
// The functions are the evaluator's own (applyUnary...), so the bound is of
// the same semantics the reference computes.
#include <fusebox/eval/tolerance.h>

#include <cmath>
#include <numbers>
#include <optional>

#include "eval/error_bounds.h"

namespace fusebox::eval_detail {
namespace {

using Kind = Number::Kind;

// |c - y| for a corner value c and the result y, NaN-aware: a corner that is
// NaN where the result is not (or the reverse) means the op may or may not
// give NaN there, which no finite bound covers.
double distance(const Number& c, const Number& y) {
  const double a = c.asDouble(), b = y.asDouble();
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0.0 : kUnbounded;
  if (a == b) return 0.0;
  return std::fabs(a - b);
}

// The ends of x's interval [x - e, x + e] (one point when e = 0): integers
// step by whole units, bools take both values. False when the ends leave
// int64.
struct Ends {
  Number at[2];
  int count = 1;
};

bool ends(const Number& x, double e, Ends& out) {
  out.at[0] = x;
  out.count = 1;
  if (e == 0) return true;
  out.count = 2;
  switch (x.kind) {
    case Kind::Bool:
      out.at[0] = Number::ofBool(false);
      out.at[1] = Number::ofBool(true);
      return true;
    case Kind::Int: {
      if (!(e < 0x1p62)) return false;
      const auto d = static_cast<int64_t>(std::ceil(e));
      if (x.i > INT64_MAX - d || x.i < INT64_MIN + d) return false;
      out.at[0] = Number::ofInt(x.i - d);
      out.at[1] = Number::ofInt(x.i + d);
      return true;
    }
    case Kind::Float:
      break;
  }
  out.at[0] = Number::ofFloat(x.d - e);
  out.at[1] = Number::ofFloat(x.d + e);
  return true;
}

// The largest |f(corner) - y| over the corners of the box of n <= 3 operands.
// f may throw UserError (an integer division by a corner that is 0):
// unbounded.
template <class F>
double cornerBound(F f, const Number* x, const double* e, size_t n, const Number& y) {
  Ends sides[3];
  for (size_t k = 0; k < n; ++k)
    if (!ends(x[k], e[k], sides[k])) return kUnbounded;
  double worst = 0.0;
  int pick[3] = {0, 0, 0};
  Number args[3];
  for (;;) {
    for (size_t k = 0; k < n; ++k) args[k] = sides[k].at[pick[k]];
    try {
      worst = std::max(worst, distance(f(args), y));
    } catch (const UserError&) {
      return kUnbounded;
    }
    size_t k = 0;
    while (k < n && ++pick[k] == sides[k].count) pick[k++] = 0;
    if (k == n) return worst;
  }
}

double unaryCorners(UnaryOpType op, const Number& x, double e, const Number& y) {
  return cornerBound([op](const Number* a) { return applyUnary(op, a[0]); }, &x, &e, 1, y);
}

// Whether [x - e, x + e] holds p.
bool holds(double x, double e, double p) {
  return x - e <= p && p <= x + e;
}

// Whether x's truth value (x != 0) may differ at the other end of its error.
bool truthUncertain(const Number& x, double e) {
  return e > 0 && !(std::fabs(x.asDouble()) > e);
}

// The value at an interior point where f turns, when the interval holds it.
double turningPoint(UnaryOpType op, const Number& x, double e, const Number& y, double p) {
  if (!holds(x.asDouble(), e, p)) return 0.0;
  return distance(applyUnary(op, Number::ofFloat(p)), y);
}

}  // namespace

double unaryBound(UnaryOpType op, const Number& x, double e, const Number& y) {
  if (e == 0) return 0.0;
  if (!(e < kUnbounded)) return kUnbounded;
  const double v = x.asDouble();
  switch (op) {
    // Lipschitz constants: |f'| <= 1 (1/4 for sigmoid, 2/sqrt(pi) for erf,
    // 1.1 for silu, whose slope peaks at 1.0998).
    case UnaryOpType::Abs:
    case UnaryOpType::Neg:
    case UnaryOpType::Relu:
    case UnaryOpType::Sin:
    case UnaryOpType::Cos:
    case UnaryOpType::Atan:
    case UnaryOpType::Tanh:
      return e;
    case UnaryOpType::Sigmoid:
      return 0.25 * e;
    case UnaryOpType::Erf:
      return 2.0 / std::sqrt(std::numbers::pi) * e;
    case UnaryOpType::Silu:
      return 1.1 * e;
    case UnaryOpType::BitwiseNot:
      // ~x = -x - 1 on integers; on bools a flip.
      return x.kind == Kind::Bool ? (truthUncertain(x, e) ? 1.0 : 0.0) : e;
    case UnaryOpType::LogicalNot:
      return truthUncertain(x, e) ? 1.0 : 0.0;
    case UnaryOpType::IsFinite:
    case UnaryOpType::IsInf:
    case UnaryOpType::IsNan:
    case UnaryOpType::IsNegInf:
    case UnaryOpType::IsPosInf:
      return std::isfinite(v - e) && std::isfinite(v + e) ? 0.0 : 1.0;
    case UnaryOpType::Frac:
      // x - trunc(x): slope 1 between integers; a jump inside the interval
      // moves it anywhere in (-1, 1).
      if (x.isFloat() && std::trunc(v - e) == std::trunc(v + e) && !(v - e < 0 && v + e > 0))
        return e;
      return x.isFloat() ? 2.0 : 0.0;
    case UnaryOpType::Reciprocal:
      if (holds(v, e, 0.0)) return kUnbounded;  // the pole at 0
      return unaryCorners(op, x, e, y);
    case UnaryOpType::Tan:
      // Poles at pi/2 + k pi: both ends must lie between the same two.
      if (std::floor((v - e) / std::numbers::pi - 0.5) !=
          std::floor((v + e) / std::numbers::pi - 0.5))
        return kUnbounded;
      return unaryCorners(op, x, e, y);
    case UnaryOpType::Cosh:
      return std::max(unaryCorners(op, x, e, y), turningPoint(op, x, e, y, 0.0));
    case UnaryOpType::Lgamma:
      // Poles at 0, -1, -2...: only the positive side, where it turns once.
      if (v - e <= 0) return kUnbounded;
      return std::max(unaryCorners(op, x, e, y), turningPoint(op, x, e, y, 1.4616321449683623));
    default:
      // Monotone over their whole domain (exp, log, sqrt, rsqrt, asin, acosh,
      // erfinv, floor, round, sign...): an end outside the domain is NaN,
      // which distance() turns into unbounded.
      return unaryCorners(op, x, e, y);
  }
}

double binaryBound(BinaryOpType op, const Number& a, double ea, const Number& b, double eb,
                   const Number& y) {
  if (op == BinaryOpType::CeilDiv && (a.isFloat() || b.isFloat())) {
    // ceil(a / b): a kernel rounds the quotient (to float32 at worst, 2^-24
    // relative) before the ceil, so even exact operands may land on the other
    // side of an integer.
    const double va = a.asDouble(), vb = b.asDouble();
    if (holds(vb, eb, 0.0) || !(ea < kUnbounded && eb < kUnbounded)) return kUnbounded;
    const Number q = Number::ofFloat(va / vb);
    const Number xs[2] = {a, b};
    const double es[2] = {ea, eb};
    auto divide = [](const Number* n) { return applyBinary(BinaryOpType::TrueDiv, n[0], n[1]); };
    const double eq = cornerBound(divide, xs, es, 2, q) + 0x1p-24 * std::fabs(q.d);
    return unaryBound(UnaryOpType::Ceil, q, eq, y);
  }
  if (ea == 0 && eb == 0) return 0.0;
  if (!(ea < kUnbounded && eb < kUnbounded)) return kUnbounded;
  const double va = a.asDouble(), vb = b.asDouble();
  const Number xs[2] = {a, b};
  const double es[2] = {ea, eb};
  auto corners = [&] {
    return cornerBound([op](const Number* n) { return applyBinary(op, n[0], n[1]); }, xs, es, 2, y);
  };
  switch (op) {
    case BinaryOpType::Add:
    case BinaryOpType::Sub:
      return ea + eb;
    case BinaryOpType::Mul:
      return std::fabs(va) * eb + std::fabs(vb) * ea + ea * eb;
    case BinaryOpType::Div:
    case BinaryOpType::TrueDiv:
    case BinaryOpType::CeilDiv:  // on integers here
      // Monotone in each operand while the divisor keeps its sign.
      if (holds(vb, eb, 0.0)) return kUnbounded;
      return corners();
    case BinaryOpType::Pow: {
      if (va - ea > 0) return corners();  // monotone in each for a positive base
      // A negative base needs an exact integral exponent: x^n turns only at 0.
      if (eb != 0 || vb != std::floor(vb)) return kUnbounded;
      if (holds(va, ea, 0.0)) {
        if (vb < 0) return kUnbounded;  // the pole of x^-n
        return std::max(corners(), distance(applyBinary(op, Number::ofFloat(0.0), b), y));
      }
      return corners();
    }
    case BinaryOpType::Atan2: {
      // atan2(a, b) is the angle of the point (b, a); its gradient has norm
      // 1/r. Off the origin and the branch cut (b < 0, a = 0) the angle moves
      // at most |dp| / r_min; else anywhere in (-pi, pi].
      const double dx = std::max(0.0, std::fabs(vb) - eb), dy = std::max(0.0, std::fabs(va) - ea);
      const double r_min = std::hypot(dx, dy);
      const bool crosses_cut = vb - eb < 0 && holds(va, ea, 0.0);
      if (r_min > 0 && !crosses_cut) return (ea + eb) / r_min;
      return 2 * std::numbers::pi;
    }
    case BinaryOpType::Maximum:
    case BinaryOpType::Minimum:
      return std::max(ea, eb);
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
      return corners();
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
      return std::fabs(va - vb) <= ea + eb ? 1.0 : 0.0;
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      return truthUncertain(a, ea) || truthUncertain(b, eb) ? 1.0 : 0.0;
    case BinaryOpType::Fmod:
    case BinaryOpType::Remainder: {
      // a - q b with q = trunc (fmod) or floor (remainder) of a / b: linear
      // while q stays; a change of q jumps by up to the range, 2 |b|.
      if (holds(vb, eb, 0.0)) return kUnbounded;
      const bool floor_q = op == BinaryOpType::Remainder;
      std::optional<double> q;
      bool same = true;
      for (double sa : {-ea, ea})
        for (double sb : {-eb, eb}) {
          const double r = (va + sa) / (vb + sb);
          const double qc = floor_q ? std::floor(r) : std::trunc(r);
          if (q && *q != qc) same = false;
          q = qc;
        }
      if (same) return ea + std::fabs(*q) * eb;
      return 2 * (std::fabs(vb) + eb);
    }
    default:
      break;
  }
  // Bitwise ops and shifts: logical on bools, no bound on integers.
  if (a.kind == Kind::Bool && b.kind == Kind::Bool)
    return truthUncertain(a, ea) || truthUncertain(b, eb) ? 1.0 : 0.0;
  return kUnbounded;
}

double ternaryBound(TernaryOpType op, const Number* x, const double* e, const Number& y) {
  if (e[0] == 0 && e[1] == 0 && e[2] == 0) return 0.0;
  // where(c, a, b) with a condition that cannot flip is the branch it picks,
  // whatever the other holds (a masked value may be unbounded).
  if (op == TernaryOpType::Where && !truthUncertain(x[0], e[0])) return x[0].asBool() ? e[1] : e[2];
  if (!(e[0] < kUnbounded && e[1] < kUnbounded && e[2] < kUnbounded)) return kUnbounded;
  const double v0 = x[0].asDouble(), v1 = x[1].asDouble(), v2 = x[2].asDouble();
  switch (op) {
    case TernaryOpType::Where:
      // A condition that may flip picks the other branch.
      return std::max(e[1], e[2]) + distance(x[1], x[2]);
    case TernaryOpType::Clamp:
      return std::max({e[0], e[1], e[2]});  // min(max(x, lo), hi): 1-Lipschitz in each
    case TernaryOpType::Lerp:
      // a + w (b - a)
      return std::fabs(1 - v2) * e[0] + std::fabs(v2) * e[1] + std::fabs(v1 - v0) * e[2] +
             e[2] * (e[0] + e[1]);
    case TernaryOpType::Threshold:
      // x <= th ? v : x
      if (std::fabs(v0 - v1) <= e[0] + e[1]) return std::max(e[0], e[2]) + distance(x[0], x[2]);
      return v0 <= v1 ? e[2] : e[0];
  }
  (void)y;
  return kUnbounded;
}

double nonFiniteBound(const Expr* expr, const Number* x, const double* e, const Number& y,
                      double widen) {
  const size_t n = std::min<size_t>(expr->inputs().size(), 3);
  double wide[3] = {0, 0, 0};
  for (size_t k = 0; k < n; ++k) {
    if (!(e[k] < kUnbounded)) return kUnbounded;
    const double v = x[k].asDouble();
    wide[k] = e[k] + (x[k].isFloat() && std::isfinite(v) ? widen * std::fabs(v) : 0.0);
  }
  const DataType out = expr->output(0)->dtype();
  auto f = [&](const Number* a) -> Number {
    switch (expr->op()) {
      case OpType::Unary:
        return applyUnary(expr->attr<UnaryOpType>(), a[0]);
      case OpType::Binary:
        return applyBinary(expr->attr<BinaryOpType>(), a[0], a[1], out);
      case OpType::Ternary:
        return applyTernary(expr->attr<TernaryOpType>(), a[0], a[1], a[2]);
      default:
        return a[0];  // set, segment_set, cast
    }
  };
  return cornerBound(f, x, wide, n, y) == 0.0 ? 0.0 : kUnbounded;
}

double castBound(const Number& x, double e, DataType to) {
  if (e == 0) return 0.0;
  if (isBoolType(to)) return truthUncertain(x, e) ? 1.0 : 0.0;
  if (!(e < kUnbounded)) return kUnbounded;
  if (isIntegralType(to) && x.isFloat()) {
    // Truncation toward zero is monotone; ends outside int64 have no bound.
    double worst = 0.0;
    for (double end : {x.d - e, x.d + e}) {
      if (!(std::fabs(end) < 0x1p62)) return kUnbounded;
      worst = std::max(worst, std::fabs(std::trunc(end) - std::trunc(x.d)));
    }
    return worst;
  }
  return e;
}

int unaryUlps(UnaryOpType op) {
  switch (op) {
    case UnaryOpType::Abs:
    case UnaryOpType::Neg:
    case UnaryOpType::Relu:
    case UnaryOpType::Floor:
    case UnaryOpType::Ceil:
    case UnaryOpType::Round:
    case UnaryOpType::Trunc:
    case UnaryOpType::Frac:
    case UnaryOpType::Sign:
    case UnaryOpType::LogicalNot:
    case UnaryOpType::BitwiseNot:
    case UnaryOpType::IsFinite:
    case UnaryOpType::IsInf:
    case UnaryOpType::IsNan:
    case UnaryOpType::IsNegInf:
    case UnaryOpType::IsPosInf:
    case UnaryOpType::Signbit:
      return 0;
    case UnaryOpType::Sqrt:
    case UnaryOpType::Reciprocal:
      return 1;
    default:
      return 8;  // CUDA's float math library: 1 to 6 ulps over the domains it documents
  }
}

int binaryUlps(BinaryOpType op, bool floating) {
  if (!floating) return 0;
  switch (op) {
    case BinaryOpType::Add:
    case BinaryOpType::Sub:
    case BinaryOpType::Mul:
    case BinaryOpType::Div:
    case BinaryOpType::TrueDiv:
    case BinaryOpType::Remainder:
      return 1;
    case BinaryOpType::Pow:
    case BinaryOpType::Atan2:
      return 8;
    default:
      return 0;  // fmod and ceil_div are exact given their operands; compares, max...
  }
}

double storedRounding(DataType dtype, double y) {
  return 2 * unitRoundoff(dtype) * std::fabs(y);
}

double elementBound(const BoundOp& op, const Number* x, const double* err, const Number& y) {
  const double ay = std::fabs(y.asDouble());
  double b = 0.0;
  switch (op.kind) {
    case OpType::Unary:
      b = unaryBound(op.unary, x[0], err[0], y);
      break;
    case OpType::Binary:
      b = binaryBound(op.binary, x[0], err[0], x[1], err[1], y);
      break;
    case OpType::Ternary:
      b = ternaryBound(op.ternary, x, err, y);
      break;
    case OpType::Cast:
      b = castBound(x[0], err[0], op.out_type);
      // Equal values round alike; different ones may round apart.
      if (err[0] > 0 && isFloatingType(op.out_type)) b += storedRounding(op.out_type, ay);
      break;
    default:
      b = err[0];  // set, segment_set
      break;
  }
  if (op.lerp) {
    const double scaled = std::fabs(x[2].asDouble() * (x[1].asDouble() - x[0].asDouble()));
    b += op.ulps * op.u_c * (ay + scaled) + 2 * op.u_d * ay;
  } else if (op.ulps > 0) {
    b += (op.ulps * op.u_c + 2 * op.u_d) * ay;
  }
  if (std::isnan(b)) b = kUnbounded;
  if (isBoolType(op.out_type) && b > 0) b = 1.0;  // a bool differs by one at most
  return b;
}

}  // namespace fusebox::eval_detail
