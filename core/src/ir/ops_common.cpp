// Shared helpers of the builder ops: see ops_internal.h.
#include "ir/ops_internal.h"

#include <fusebox/checked_math.h>

#include <fmt/format.h>
#include <algorithm>
#include <climits>

namespace fusebox {

int64_t normalizeDim(int64_t dim, int64_t rank, const char* what) {
  FUSEBOX_USER_CHECK(dim >= -rank && dim < rank,
                     "{}: dim {} is out of range for a tensor of rank {} (expected {}..{})", what,
                     dim, rank, -rank, rank - 1);
  return dim < 0 ? dim + rank : dim;
}

namespace ops_detail {

std::string pyOp(std::string_view name) {
  return fmt::format("fd.ops.{}", name);
}

std::optional<int64_t> constInt(const Val* v) {
  if (v == nullptr || !v->isScalar() || !isIntegralType(v->dtype())) return std::nullopt;
  const auto& value = v->as<Scalar>()->value();
  if (!value) return std::nullopt;
  return toInt(*value);
}

bool isConstInt(const Val* v, int64_t value) {
  auto c = constInt(v);
  return c && *c == value;
}

bool sameInt(const Scalar* a, const Scalar* b) {
  if (a == b) return true;
  auto ca = constInt(a), cb = constInt(b);
  return ca && cb && *ca == *cb;
}

std::string describe(const Scalar* s) {
  return s->inlineString();
}

std::string describeVals(const std::vector<Val*>& vals) {
  std::vector<std::string> s;
  for (Val* v : vals)
    s.push_back(v == nullptr ? "null" : v->isScalar() ? describe(v->as<Scalar>()) : v->toString());
  return fmt::format("[{}]", fmt::join(s, ", "));
}

std::string shapeString(const TensorView* tv) {
  std::vector<std::string> sizes;
  for (auto* id : tv->logicalNoReductions()) sizes.push_back(describe(id->logicalExtent()));
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

std::string describe(const TensorView* tv) {
  return tv->toString() + shapeString(tv);
}

void requirePresent(const Val* v, const std::string& op, std::string_view role) {
  FUSEBOX_USER_CHECK(v != nullptr, "{}: {} is missing (null)", op, role);
}

Scalar* requireIntScalar(Val* v, const std::string& op, std::string_view role) {
  requirePresent(v, op, role);
  FUSEBOX_USER_CHECK(v->isScalar(), "{}: {} must be an integer scalar, got tensor {}", op, role,
                     v->toString());
  auto* s = v->as<Scalar>();
  FUSEBOX_USER_CHECK(isIntegralType(s->dtype()), "{}: {} must be an integer scalar, got {} {}", op,
                     role, pythonName(s->dtype()), describe(s));
  return s;
}

TensorView* requireIndexTensor(TensorView* v, const std::string& op, std::string_view role) {
  requirePresent(v, op, role);
  FUSEBOX_USER_CHECK(isIntegralType(v->dtype()), "{}: {} must be an Int or Int32 tensor, got {} {}",
                     op, role, pythonName(v->dtype()), describe(v));
  return v;
}

Fusion& fusionOf(const std::vector<Val*>& operands, const std::string& op) {
  Fusion* f = nullptr;
  for (Val* v : operands) {
    if (v == nullptr) continue;
    if (f == nullptr) f = v->fusion();
    FUSEBOX_USER_CHECK(v->fusion() == f, "{}: operands belong to different fusions", op);
  }
  FUSEBOX_USER_CHECK(f != nullptr, "{}: no operands", op);
  return *f;
}

namespace {

// Exact integer folding; nullopt where the result would overflow, divide by
// zero, or where C and Python semantics could disagree (negative ceilDiv).
std::optional<ScalarValue> foldIntegral(BinaryOpType op, int64_t a, int64_t b) {
  int64_t r = 0;
  auto exact = [](std::optional<int64_t> v) -> std::optional<ScalarValue> {
    if (!v) return std::nullopt;
    return *v;
  };
  switch (op) {
    case BinaryOpType::Add:
      return exact(checked::add(a, b));
    case BinaryOpType::Sub:
      return exact(checked::sub(a, b));
    case BinaryOpType::Mul:
      return exact(checked::mul(a, b));
    case BinaryOpType::Div:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return a / b;
    case BinaryOpType::CeilDiv:
      if (a < 0 || b <= 0) return std::nullopt;
      return a / b + (a % b != 0 ? 1 : 0);
    case BinaryOpType::Fmod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      return a % b;
    case BinaryOpType::Remainder:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    case BinaryOpType::Maximum:
      return std::max(a, b);
    case BinaryOpType::Minimum:
      return std::min(a, b);
    case BinaryOpType::Eq:
      return a == b;
    case BinaryOpType::Ne:
      return a != b;
    case BinaryOpType::Lt:
      return a < b;
    case BinaryOpType::Le:
      return a <= b;
    case BinaryOpType::Gt:
      return a > b;
    case BinaryOpType::Ge:
      return a >= b;
    default:
      return std::nullopt;
  }
}

}  // namespace

Scalar* scalarBinary(BinaryOpType op, Scalar* a, Scalar* b, DataType out_type) {
  Fusion* f = a->fusion();
  auto ca = constInt(a), cb = constInt(b);
  if (ca && cb) {
    auto folded = foldIntegral(op, *ca, *cb);
    bool fits = folded.has_value();
    if (fits && out_type == DataType::Int32) {
      int64_t v = toInt(*folded);
      fits = v >= INT32_MIN && v <= INT32_MAX;
    }
    bool kind_matches = fits && (std::holds_alternative<bool>(*folded) == isBoolType(out_type));
    if (kind_matches) return f->constant(*folded, out_type);
  }
  auto* out = f->newScalar(out_type);
  f->newExpr(OpType::Binary, {a, b}, {out}, op);
  return out;
}

namespace {

// Extent arithmetic on two constants must fit: a size that overflows int64 is
// an error now, not a wrapped value at run time.
Scalar* checkedExtent(BinaryOpType op, Scalar* a, Scalar* b) {
  auto ca = constInt(a), cb = constInt(b);
  if (ca && cb) {
    std::optional<int64_t> r = op == BinaryOpType::Add   ? checked::add(*ca, *cb)
                               : op == BinaryOpType::Sub ? checked::sub(*ca, *cb)
                                                         : checked::mul(*ca, *cb);
    const char* symbol = op == BinaryOpType::Add ? "+" : op == BinaryOpType::Sub ? "-" : "*";
    FUSEBOX_USER_CHECK(r.has_value(), "the size {} {} {} overflows int64", *ca, symbol, *cb);
  }
  return scalarBinary(op, a, b, DataType::Int64);
}

}  // namespace

Scalar* addExtent(Scalar* a, Scalar* b) {
  if (isConstInt(a, 0)) return b;
  if (isConstInt(b, 0)) return a;
  return checkedExtent(BinaryOpType::Add, a, b);
}

Scalar* subExtent(Scalar* a, Scalar* b) {
  if (isConstInt(b, 0)) return a;
  if (sameInt(a, b)) return a->fusion()->zero();
  return checkedExtent(BinaryOpType::Sub, a, b);
}

Scalar* mulExtent(Scalar* a, Scalar* b) {
  if (isConstInt(a, 1)) return b;
  if (isConstInt(b, 1)) return a;
  if (isConstInt(a, 0) || isConstInt(b, 0)) return a->fusion()->zero();
  return checkedExtent(BinaryOpType::Mul, a, b);
}

Scalar* divExtent(Scalar* a, Scalar* b) {
  if (isConstInt(b, 1)) return a;
  return scalarBinary(BinaryOpType::Div, a, b, DataType::Int64);
}

Scalar* ceilDivExtent(Scalar* a, Scalar* b) {
  if (isConstInt(b, 1)) return a;
  return scalarBinary(BinaryOpType::CeilDiv, a, b, DataType::Int64);
}

Scalar* maxExtent(Scalar* a, Scalar* b) {
  if (sameInt(a, b)) return a;
  return scalarBinary(BinaryOpType::Maximum, a, b, DataType::Int64);
}

Scalar* minExtent(Scalar* a, Scalar* b) {
  if (sameInt(a, b)) return a;
  return scalarBinary(BinaryOpType::Minimum, a, b, DataType::Int64);
}

Scalar* productExtent(Fusion& f, const std::vector<Scalar*>& factors) {
  Scalar* symbolic = f.one();
  int64_t constant = 1;
  bool exact = true;
  for (Scalar* s : factors) {
    auto c = constInt(s);
    auto next = c && exact ? checked::mul(constant, *c) : std::nullopt;
    if (next) {
      constant = *next;
      continue;
    }
    if (c) exact = false;  // on overflow, leave the rest to the scalar ops
    symbolic = mulExtent(symbolic, s);
  }
  return mulExtent(symbolic, f.constantInt(constant));
}

IterDomain* cloneDomain(const IterDomain* id) {
  return id->fusion()->newIterDomain(id->extent(), id->iterType(), id->expandedExtent());
}

IterDomain* materializedDomain(const IterDomain* id) {
  if (!id->isBroadcast() || !id->hasExpandedExtent()) return cloneDomain(id);
  return domainForExtent(id->expandedExtent(), IterType::Iteration);
}

std::vector<IterDomain*> cloneDomains(const TensorView* tv) {
  std::vector<IterDomain*> out;
  for (auto* id : tv->logicalNoReductions()) out.push_back(cloneDomain(id));
  return out;
}

IterDomain* domainForExtent(Scalar* extent, IterType symbolic_type) {
  Fusion* f = extent->fusion();
  auto c = constInt(extent);
  if (!c) return f->newIterDomain(extent, symbolic_type);
  return f->newIterDomain(extent, *c == 1 ? IterType::Broadcast : IterType::Iteration);
}

void checkDimsAgree(const std::vector<IterDomain*>& ids, const std::vector<std::string>& names,
                    const std::string& op, int64_t out_dim, bool broadcasting) {
  // Constant sizes must agree; a plain broadcast (and, when broadcasting, a
  // size-1 dim) stretches to anything.
  std::optional<int64_t> fixed;
  size_t fixed_at = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    IterDomain* id = ids[i];
    if (id == nullptr || (broadcasting && id->isBroadcast() && !id->hasExpandedExtent())) continue;
    auto c = constInt(id->logicalExtent());
    if (!c || (broadcasting && *c == 1)) continue;
    if (!fixed) {
      fixed = c;
      fixed_at = i;
    } else {
      FUSEBOX_USER_CHECK(*fixed == *c,
                         "{}: operands have incompatible sizes at dim {}: {} has size {} but {} "
                         "has size {}",
                         op, out_dim, names[fixed_at], *fixed, names[i], *c);
    }
  }
}

IterDomain* unifyDims(const std::vector<IterDomain*>& ids, const std::vector<std::string>& names,
                      const std::string& op, int64_t out_dim, bool broadcasting) {
  checkDimsAgree(ids, names, op, out_dim, broadcasting);

  IterDomain* first = nullptr;
  IterDomain* expanded = nullptr;  // a broadcast with an expanded extent, constant preferred
  IterDomain* best = nullptr;      // the non-broadcast dim whose extent the output takes
  int best_score = -1;
  bool any_iteration = false;
  for (IterDomain* id : ids) {
    if (id == nullptr) continue;
    if (first == nullptr) first = id;
    if (id->isBroadcast()) {
      if (id->hasExpandedExtent() &&
          (expanded == nullptr ||
           (!constInt(expanded->expandedExtent()) && constInt(id->expandedExtent()))))
        expanded = id;
      continue;
    }
    any_iteration |= id->isIteration();
    // Prefer a dim that does not stretch, then a constant (a symbolic dim
    // beside a constant other than 1 can only be 1 or that constant, so the
    // constant is the output's size either way), then Iteration over Symbolic.
    int score = (broadcasting && isConstInt(id->extent(), 1) ? 0 : 4) +
                (constInt(id->extent()) ? 2 : 0) + (id->isIteration() ? 1 : 0);
    if (score > best_score) {
      best = id;
      best_score = score;
    }
  }
  FUSEBOX_CHECK(first != nullptr, "unifyDims needs at least one dim");
  Fusion* f = first->fusion();
  if (best == nullptr) {
    if (expanded != nullptr)
      return f->newIterDomain(expanded->extent(), IterType::Broadcast, expanded->expandedExtent());
    return cloneDomain(first);
  }
  Scalar* extent = best->extent();
  if (broadcasting && isConstInt(extent, 1) && expanded != nullptr &&
      !isConstInt(expanded->expandedExtent(), 1))
    extent = expanded->expandedExtent();
  return f->newIterDomain(extent, any_iteration ? IterType::Iteration : IterType::Symbolic);
}

std::vector<int64_t> normalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                   const std::string& op) {
  std::vector<int64_t> out;
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : axes) {
    int64_t n = normalizeDim(a, rank, op.c_str());
    FUSEBOX_USER_CHECK(std::find(out.begin(), out.end(), n) == out.end(),
                       "{}: dim {} appears more than once in dims [{}]", op, n,
                       fmt::join(axes, ", "));
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<IterDomain*> reductionDomain(const TensorView* x, const std::vector<int64_t>& axes) {
  std::vector<IterDomain*> out;
  auto dims = x->logicalNoReductions();
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    IterDomain* id = dims[i];
    if (std::binary_search(axes.begin(), axes.end(), i))
      out.push_back(x->fusion()->newIterDomain(id->logicalExtent(), IterType::Reduction));
    else
      out.push_back(cloneDomain(id));
  }
  return out;
}

}  // namespace ops_detail
}  // namespace fusebox
