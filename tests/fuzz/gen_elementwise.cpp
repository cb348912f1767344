// Elementwise op families: unary, binary, ternary, cast, set and scalar
// arithmetic, with the exactness rules of generator.h.
#include "generator_internal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace fusebox::fuzz {

namespace {

// How an op treats rounding differences in its operands.
struct OpRule {
  const char* name;
  bool exact;       // exact operands give an exact result
  bool continuous;  // small operand differences give small result differences
  int kinds;        // operand kinds accepted (bit 0 floating, 1 integer, 2 bool)
  double bound;     // an inexact operand must be at most this large (0: tameBound)
};
constexpr int kF = 1, kI = 2, kB = 4, kAll = 7;

// Unary ops. sqrt and reciprocal are single correctly rounded operations, so
// exact; functions computed by a library (exp, sin...) are not.
const std::vector<OpRule>& unaryRules() {
  static const std::vector<OpRule> rules = {
      {"abs", true, true, kAll, 0},          {"neg", true, true, kF | kI, 0},
      {"exp", false, true, kAll, 4},         {"exp2", false, true, kAll, 4},
      {"expm1", false, true, kAll, 4},       {"log", false, false, kAll, 0},
      {"log2", false, false, kAll, 0},       {"log10", false, false, kAll, 0},
      {"log1p", false, false, kAll, 0},      {"sqrt", true, false, kAll, 0},
      {"rsqrt", false, false, kAll, 0},      {"reciprocal", true, false, kAll, 0},
      {"sin", false, true, kAll, 0},         {"cos", false, true, kAll, 0},
      {"tan", false, false, kAll, 0},        {"asin", false, false, kAll, 0},
      {"acos", false, false, kAll, 0},       {"atan", false, true, kAll, 0},
      {"sinh", false, true, kAll, 4},        {"cosh", false, true, kAll, 4},
      {"tanh", false, true, kAll, 0},        {"asinh", false, true, kAll, 0},
      {"acosh", false, false, kAll, 0},      {"atanh", false, false, kAll, 0},
      {"sigmoid", false, true, kAll, 0},     {"relu", true, true, kF | kI, 0},
      {"silu", false, true, kAll, 0},        {"erf", false, true, kAll, 0},
      {"erfc", false, true, kAll, 0},        {"erfinv", false, false, kAll, 0},
      {"erfcinv", false, false, kAll, 0},    {"lgamma", false, false, kAll, 0},
      {"floor", true, false, kF | kI, 0},    {"ceil", true, false, kF | kI, 0},
      {"round", true, false, kF | kI, 0},    {"trunc", true, false, kF | kI, 0},
      {"frac", true, false, kF, 0},          {"sign", true, false, kF | kI, 0},
      {"logical_not", true, false, kAll, 0}, {"bitwise_not", true, false, kI | kB, 0},
      {"isfinite", true, false, kAll, 0},    {"isinf", true, false, kAll, 0},
      {"isnan", true, false, kAll, 0},       {"isneginf", true, false, kAll, 0},
      {"isposinf", true, false, kAll, 0},    {"signbit", true, false, kAll, 0},
  };
  return rules;
}

const std::vector<OpRule>& binaryRules() {
  static const std::vector<OpRule> rules = {
      {"add", true, true, kAll, 0},
      {"sub", true, true, kF | kI, 0},
      {"mul", true, true, kAll, 0},
      {"div", true, true, kF | kI, 0},
      {"truediv", true, true, kAll, 0},
      {"fmod", true, false, kF | kI, 0},
      {"remainder", true, false, kF | kI, 0},
      {"pow", false, false, kF | kI, 0},
      {"atan2", false, false, kAll, 0},
      {"maximum", true, true, kAll, 0},
      {"minimum", true, true, kAll, 0},
      {"ceilDiv", true, false, kI, 0},
      {"eq", true, false, kAll, 0},
      {"ne", true, false, kAll, 0},
      {"lt", true, false, kAll, 0},
      {"le", true, false, kAll, 0},
      {"gt", true, false, kAll, 0},
      {"ge", true, false, kAll, 0},
      {"logical_and", true, false, kAll, 0},
      {"logical_or", true, false, kAll, 0},
      {"bitwise_and", true, false, kI | kB, 0},
      {"bitwise_or", true, false, kI | kB, 0},
      {"bitwise_xor", true, false, kI | kB, 0},
      {"bitwise_left_shift", true, false, kI, 0},
      {"bitwise_right_shift", true, false, kI, 0},
      {"logical_right_shift", true, false, kI, 0},
      {"gcd", true, false, kI, 0},
      {"nextafter", true, false, kF, 0},
  };
  return rules;
}

int kindOf(DataType t) {
  return isFloatingType(t) ? kF : isIntegralType(t) ? kI : kB;
}

bool isOneOf(const char* name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (std::string_view(name) == n) return true;
  return false;
}

// The dtype an elementwise op computes in (the evaluator's and the kernels'
// rule): floating when the result or an operand is.
DataType computeDtype(const std::vector<Operand>& ops, const char* name) {
  std::vector<PromotionOperand> p;
  for (const Operand& o : ops) p.push_back({o.dtype, o.is_tensor});
  DataType t = resultType(p.data(), p.data() + p.size());
  if (isOneOf(name, {"truediv", "atan2"}) && !isFloatingType(t)) t = DataType::Float;
  return computeType(t);
}

}  // namespace

// ---- literals and scalar operands ----------------------------------------------

namespace {

// Python float literals that no float dtype holds exactly (the float-scalar feature).
const std::vector<std::string>& inexactLiterals() {
  static const std::vector<std::string> l = {"0.1",     "-0.3", "1e-05",
                                             "3.14159", "0.7",  "2.718281828"};
  return l;
}

}  // namespace

std::string Generator::literal(DataType t, bool small) {
  if (t == DataType::Bool) return chance(0.5) ? "True" : "False";
  if (isIntegralType(t)) {
    if (!small && allowed("big-int") && chance(0.05)) {
      use("big-int");
      return pick(std::vector<std::string>{"2147483647", "-2147483648", "4294967296",
                                           "1099511627776", "-9223372036854775807",
                                           "(-9223372036854775807 - 1)"});
    }
    return std::to_string(between(-4, 9));
  }
  if (!small && allowed("nonfinite") && chance(0.03)) {
    use("nonfinite");
    return pick(std::vector<std::string>{"float('nan')", "float('inf')", "float('-inf')"});
  }
  if (allowed("float-scalar") && chance(0.15)) {
    use("float-scalar");
    return pick(inexactLiterals());
  }
  return pick(std::vector<std::string>{"0.5", "-1.5", "2.0", "0.25", "3.0", "-2.0", "1.0", "0.0",
                                       "1.25", "-0.75", "4.0", "-0.125"});
}

Operand Generator::scalarOperand(DataType compute, bool want_int, const TensorVar* near) {
  Operand o;
  if (near != nullptr && !near->samples.empty() && chance(0.3)) {
    double v = pick(near->samples);
    if (!isFloatingType(near->dtype) || want_int) {
      o.text = near->dtype == DataType::Bool && !want_int ? (v != 0 ? "True" : "False")
                                                          : std::to_string(static_cast<int64_t>(v));
      o.dtype = near->dtype == DataType::Bool && !want_int ? DataType::Bool : DataType::Int64;
    } else {
      o.text = fmt::format("{:.17g}", v);
      if (o.text.find_first_of(".e") == std::string::npos) o.text += ".0";
      // The short literal the value was made from, when it is one of those.
      if (allowed("float-scalar"))
        for (const auto& lit : inexactLiterals())
          if (static_cast<double>(static_cast<float>(std::strtod(lit.c_str(), nullptr))) == v ||
              std::strtod(lit.c_str(), nullptr) == v) {
            o.text = lit;
            use("float-scalar");
          }
      o.dtype = DataType::Double;
    }
    o.value = v;
    o.max_abs = o.min_abs = std::fabs(v);
    return o;
  }
  // A scalar variable of a fitting kind, sometimes.
  std::vector<const ScalarVar*> vars;
  for (const auto& s : scalars) {
    bool integral = isIntegralType(s.dtype);
    if (want_int && !integral) continue;
    if (s.dtype == DataType::Bool && want_int) continue;
    double v = toDouble(s.value);
    // Representable in the computation type (else PyTorch's rounding of the
    // scalar would be the question, which the float-scalar feature covers).
    if (isFloatingType(s.dtype) && compute != DataType::Double &&
        static_cast<double>(static_cast<float>(v)) != v && !allowed("float-scalar"))
      continue;
    if (integral && std::fabs(v) > 16777216.0 && isFloatingType(compute)) continue;
    vars.push_back(&s);
  }
  if (!vars.empty() && chance(0.35)) {
    const ScalarVar* s = pick(vars);
    o.text = s->name;
    o.dtype = s->dtype;
    o.value = toDouble(s->value);
    o.max_abs = o.min_abs = std::fabs(o.value);
    o.finite = std::isfinite(toDouble(s->value));
    return o;
  }
  DataType lit = want_int || isIntegralType(compute) ? DataType::Int64
                 : compute == DataType::Bool         ? DataType::Bool
                                                     : DataType::Double;
  if (!want_int && isFloatingType(compute) && chance(0.2)) lit = DataType::Int64;
  o.text = literal(lit, isFloatingType(compute) && lit == DataType::Int64);
  o.dtype = lit;
  double v = o.text == "True" ? 1 : o.text == "False" ? 0 : std::strtod(o.text.c_str(), nullptr);
  if (o.text.find("nan") != std::string::npos) v = NAN;
  if (o.text.find("inf") != std::string::npos)
    v = o.text.find('-') != std::string::npos ? -INFINITY : INFINITY;
  o.value = v;
  o.finite = std::isfinite(v);
  o.max_abs = o.min_abs = std::isfinite(v) ? std::fabs(v) : 0;
  return o;
}

// ---- families ---------------------------------------------------------------------------

bool Generator::genUnary() {
  const OpRule& rule = pick(unaryRules());
  const TensorVar* x = pickTensor([&](const TensorVar& t) {
    if (!(rule.kinds & kindOf(t.dtype))) return false;
    if (!t.exact && (!rule.continuous || !tame(t))) return false;
    if (!t.exact && rule.bound > 0 && t.max_abs > rule.bound) return false;
    // Integers feeding a floating function must convert exactly.
    if (isIntegralType(t.dtype) && !rule.exact && !intFitsCompute(t.max_abs, DataType::Float))
      return false;
    return true;
  });
  if (x == nullptr) return false;
  Operand o = tensorOperand(*x);
  bool exact =
      rule.exact && (!isIntegralType(x->dtype) || intFitsCompute(x->max_abs, DataType::Float) ||
                     isOneOf(rule.name, {"abs", "neg", "relu", "floor", "ceil", "round", "trunc",
                                         "sign", "logical_not", "bitwise_not", "isfinite", "isinf",
                                         "isnan", "isneginf", "isposinf", "signbit"}));
  return tryTensor(fmt::format("fd.ops.{}({})", rule.name, x->name), {o}, exact);
}

bool Generator::genBinary() {
  const OpRule& rule = pick(binaryRules());
  auto usable = [&](const TensorVar& t) {
    if (!(rule.kinds & kindOf(t.dtype))) return false;
    if (!t.exact && (!rule.continuous || !tame(t))) return false;
    return true;
  };
  const TensorVar* a = pickTensor(usable);
  if (a == nullptr) return false;
  Operand oa = tensorOperand(*a), ob;
  bool divides = isOneOf(rule.name, {"div", "truediv", "fmod", "remainder", "ceilDiv"});
  const TensorVar* b = nullptr;
  if (chance(0.7)) {
    b = pickTensor([&](const TensorVar& t) {
      if (!usable(t) || !broadcastable(*a, t)) return false;
      // Integer division by zero is an error; an inexact divisor stays away from 0.
      if (divides && !isFloatingType(t.dtype) && t.min_abs == 0) return false;
      if (divides && !t.exact && t.min_abs < 0.5) return false;
      return true;
    });
  }
  if (b != nullptr) {
    ob = tensorOperand(*b);
  } else {
    DataType ct = computeType(a->dtype);
    bool want_int = rule.kinds == kI || (isIntegralType(a->dtype) && !(rule.kinds & kF)) ||
                    (rule.kinds == (kI | kB) && isIntegralType(a->dtype));
    if (rule.kinds == (kI | kB) && a->dtype == DataType::Bool) {
      ob.text = chance(0.5) ? "True" : "False";
      ob.dtype = DataType::Bool;
    } else {
      ob = scalarOperand(ct, want_int, a);
    }
    if (divides && !isFloatingType(ob.dtype) && ob.min_abs == 0) return false;
    if (!(rule.kinds & kindOf(ob.dtype))) return false;
  }
  bool swap = chance(0.25) && !(divides && !isFloatingType(oa.dtype) && oa.min_abs == 0 &&
                                !isFloatingType(ob.dtype));
  if (swap && divides && !oa.exact && oa.min_abs < 0.5) swap = false;
  std::vector<Operand> ops = swap ? std::vector<Operand>{ob, oa} : std::vector<Operand>{oa, ob};
  DataType compute = computeDtype(ops, rule.name);
  bool exact = rule.exact;
  for (const Operand& o : ops)
    if (isIntegralType(o.dtype) && isFloatingType(compute) && !intFitsCompute(o.max_abs, compute)) {
      if (!rule.continuous) return false;  // a conversion difference could flip the result
      exact = false;
    }
  // pow on integers multiplies exactly; on floating values it is a library call.
  if (std::string_view(rule.name) == "pow" && !isFloatingType(compute)) exact = true;
  if (!rule.continuous)
    for (const Operand& o : ops)
      if (!o.exact) return false;
  return tryTensor(fmt::format("fd.ops.{}({}, {})", rule.name, ops[0].text, ops[1].text), ops,
                   exact);
}

bool Generator::genTernary() {
  int which = static_cast<int>(between(0, 4));
  if (which == 4) {  // addcmul(input, tensor1, tensor2, value): input + value * t1 * t2
    auto floating = [](const TensorVar& t) { return isFloatingType(t.dtype) && tame(t); };
    const TensorVar* x = pickTensor(floating);
    if (x == nullptr) return false;
    const TensorVar* a =
        pickTensor([&](const TensorVar& t) { return floating(t) && broadcastable(*x, t); });
    const TensorVar* b = pickTensor([&](const TensorVar& t) {
      return floating(t) && broadcastable(*x, t) && (a == nullptr || broadcastable(*a, t));
    });
    if (a == nullptr || b == nullptr) return false;
    Operand ox = tensorOperand(*x), oa = tensorOperand(*a), ob = tensorOperand(*b);
    Operand value = scalarOperand(computeType(x->dtype));
    if (!value.finite) return false;
    return tryTensor(
        fmt::format("fd.ops.addcmul({}, {}, {}, value={})", ox.text, oa.text, ob.text, value.text),
        {ox, oa, ob, value}, false);
  }
  if (which == 0) {  // where(cond, a, b)
    const TensorVar* c =
        pickTensor([](const TensorVar& t) { return t.exact && t.dtype == DataType::Bool; });
    if (c == nullptr) return false;
    const TensorVar* a =
        pickTensor([&](const TensorVar& t) { return broadcastable(*c, t) && tame(t); });
    Operand oc = tensorOperand(*c);
    Operand oa = a ? tensorOperand(*a) : scalarOperand(DataType::Float);
    Operand ob = chance(0.5) && a ? scalarOperand(computeType(a->dtype)) : oa;
    if (chance(0.5)) {
      const TensorVar* b = pickTensor([&](const TensorVar& t) {
        return broadcastable(*c, t) && (!a || broadcastable(*a, t)) && tame(t);
      });
      if (b) ob = tensorOperand(*b);
    }
    return tryTensor(fmt::format("fd.ops.where({}, {}, {})", oc.text, oa.text, ob.text),
                     {oc, oa, ob}, true);
  }
  const TensorVar* x = pickTensor([&](const TensorVar& t) {
    if (which == 2) return isFloatingType(t.dtype) && tame(t);
    if (which == 3) return t.exact && t.dtype != DataType::Bool;
    return tame(t) && t.dtype != DataType::Bool;
  });
  if (x == nullptr) return false;
  Operand ox = tensorOperand(*x);
  DataType ct = computeType(x->dtype);
  if (which == 1) {  // clamp(x, lo, hi) with lo <= hi
    Operand lo = scalarOperand(ct, isIntegralType(ct)), hi = scalarOperand(ct, isIntegralType(ct));
    if (!lo.finite || !hi.finite) return false;
    if (lo.value > hi.value) std::swap(lo, hi);
    return tryTensor(fmt::format("fd.ops.clamp({}, {}, {})", ox.text, lo.text, hi.text),
                     {ox, lo, hi}, true);
  }
  if (which == 2) {  // lerp(start, end, weight)
    const TensorVar* e = pickTensor([&](const TensorVar& t) {
      return isFloatingType(t.dtype) && tame(t) && broadcastable(*x, t);
    });
    Operand oe = e ? tensorOperand(*e) : scalarOperand(ct);
    Operand ow = scalarOperand(ct);
    const TensorVar* w = chance(0.4) ? pickTensor([&](const TensorVar& t) {
      return isFloatingType(t.dtype) && tame(t) && broadcastable(*x, t) &&
             (!e || broadcastable(*e, t));
    })
                                     : nullptr;
    if (w) ow = tensorOperand(*w);
    if (!oe.finite || !ow.finite) return false;
    return tryTensor(fmt::format("fd.ops.lerp({}, {}, {})", ox.text, oe.text, ow.text),
                     {ox, oe, ow}, false);
  }
  // threshold(x, threshold, value)
  Operand th = scalarOperand(ct, isIntegralType(ct), x),
          val = scalarOperand(ct, isIntegralType(ct));
  return tryTensor(fmt::format("fd.ops.threshold({}, {}, {})", ox.text, th.text, val.text),
                   {ox, th, val}, true);
}

bool Generator::genCast() {
  DataType to = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
  const TensorVar* x = pickTensor([&](const TensorVar& t) {
    if (isFloatingType(t.dtype) && !isFloatingType(to)) return t.exact;  // truncation
    return tame(t);
  });
  if (x == nullptr) return false;
  Operand o = tensorOperand(*x);
  bool exact = true;
  if (isIntegralType(x->dtype) && isFloatingType(to) &&
      !intFitsCompute(x->max_abs, computeType(to)))
    exact = false;
  return tryTensor(fmt::format("fd.ops.cast({}, dtype=DataType.{})", x->name, pythonName(to)), {o},
                   exact);
}

bool Generator::genSet() {
  const TensorVar* x = pickTensor();
  if (x == nullptr) return false;
  if (x->rank() > 0 && chance(0.3)) {  // a copy with a layout of its own
    std::vector<int64_t> order(static_cast<size_t>(x->rank()));
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int64_t>(k);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(next()));
    return tryTensor(fmt::format("fd.ops.stride_order({}, {})", x->name,
                                 fmt::format("[{}]", fmt::join(order, ", "))),
                     {tensorOperand(*x)}, true);
  }
  bool segment = chance(0.5);
  return tryTensor(fmt::format("fd.ops.{}({})", segment ? "segment_set" : "set", x->name),
                   {tensorOperand(*x)}, true);
}

bool Generator::genScalarOp() {
  // Extents as scalars, and arithmetic on scalars (a scalar result).
  if (scalars.empty() || chance(0.4)) {
    const TensorVar* t = pickTensor([](const TensorVar& v) { return v.rank() > 0; });
    if (t == nullptr) return false;
    int64_t dim = between(0, t->rank() - 1);
    if (chance(0.3)) dim -= t->rank();
    if (chance(0.25)) {  // the extents as a vector, then one of them
      std::string vec = newName('V');
      result.fuzz_case.body.push_back(
          {fmt::format("{} = {}", vec,
                       chance(0.5) ? fmt::format("{}.shape()", t->name)
                                   : fmt::format("fd.ops.shape({})", t->name)),
           -1});
      std::string rhs = chance(0.5) ? fmt::format("{}[{}]", vec, dim)
                                    : fmt::format("fd.ops.at({}, index={})", vec, dim);
      if (tryStatement({{newName('S'), true, 0}}, rhs)) return true;
      result.fuzz_case.body.pop_back();
      return false;
    }
    std::string rhs = chance(0.5) ? fmt::format("{}.size({})", t->name, dim)
                                  : fmt::format("fd.ops.size({}, dim={})", t->name, dim);
    return tryStatement({{newName('S'), true, 0}}, rhs);
  }
  static const std::vector<const char*> ops = {"add",     "sub",     "mul",     "div",
                                               "maximum", "minimum", "ceilDiv", "eq",
                                               "lt",      "neg",     "abs",     "truediv"};
  const char* op = pick(ops);
  const ScalarVar& a = pick(scalars);
  if (std::string_view(op) == "ceilDiv" && !isIntegralType(a.dtype)) return false;
  bool unary = isOneOf(op, {"neg", "abs"});
  if (unary)
    return tryStatement({{newName('S'), true, 0}}, fmt::format("fd.ops.{}({})", op, a.name));
  std::string b = chance(0.5)
                      ? pick(scalars).name
                      : literal(isFloatingType(a.dtype) ? DataType::Double : DataType::Int64, true);
  return tryStatement({{newName('S'), true, 0}}, fmt::format("fd.ops.{}({}, {})", op, a.name, b));
}

}  // namespace fusebox::fuzz
