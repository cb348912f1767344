#include <fusebox/ir/fusion.h>
#include <fusebox/ir/ir.h>

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace fusebox {

bool Val::isFusionInput() const {
  const auto& in = fusion_->inputs();
  return std::find(in.begin(), in.end(), this) != in.end();
}

bool Val::isFusionOutput() const {
  const auto& out = fusion_->outputs();
  return std::find(out.begin(), out.end(), this) != out.end();
}

namespace {

char scalarPrefix(DataType t) {
  switch (t) {
    case DataType::Bool: return 'b';
    case DataType::Int32:
    case DataType::Int64: return 'i';
    case DataType::Double: return 'd';
    default: return 'f';
  }
}

// Infix spelling of the binary ops that read naturally that way.
const char* infixSymbol(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::Add: return "+";
    case BinaryOpType::Sub: return "-";
    case BinaryOpType::Mul: return "*";
    case BinaryOpType::Div: return "/";
    case BinaryOpType::Fmod: return "%";
    case BinaryOpType::Eq: return "==";
    case BinaryOpType::Ne: return "!=";
    case BinaryOpType::Lt: return "<";
    case BinaryOpType::Le: return "<=";
    case BinaryOpType::Gt: return ">";
    case BinaryOpType::Ge: return ">=";
    case BinaryOpType::LogicalAnd: return "&&";
    case BinaryOpType::LogicalOr: return "||";
    default: return nullptr;
  }
}

}  // namespace

std::string Scalar::toString() const {
  if (value_) {
    switch (dtype()) {
      case DataType::Bool:
      case DataType::Int64: return fusebox::toString(*value_);
      default: return fmt::format("{}({})", irName(dtype()), fusebox::toString(*value_));
    }
  }
  return fmt::format("{}{}", scalarPrefix(dtype()), name());
}

namespace {

// Scalars that inlineString writes as their expression: the results of scalar
// arithmetic.
bool writtenInline(const Scalar* s) {
  const Expr* def = s->definition();
  if (s->isConst() || def == nullptr) return false;
  switch (def->op()) {
    case OpType::Unary:
    case OpType::Cast:
    case OpType::Binary:
    case OpType::Ternary:
      return true;
    default:
      return false;
  }
}

// One piece of an expression's inline form: literal text, or an operand.
struct InlinePart {
  std::string text;
  const Scalar* operand = nullptr;
};

std::vector<InlinePart> inlineParts(const Scalar* s) {
  const Expr* def = s->definition();
  auto operand = [&](size_t i) { return InlinePart{{}, def->input(i)->as<Scalar>()}; };
  switch (def->op()) {
    case OpType::Unary:
      return {{fmt::format("{}(", fusebox::toString(def->attr<UnaryOpType>()))}, operand(0), {")"}};
    case OpType::Cast:
      return {{fmt::format("{}(", irName(s->dtype()))}, operand(0), {")"}};
    case OpType::Binary: {
      auto op = def->attr<BinaryOpType>();
      if (const char* sym = infixSymbol(op))
        return {{"( "}, operand(0), {fmt::format(" {} ", sym)}, operand(1), {" )"}};
      const std::string fn = op == BinaryOpType::Maximum   ? "max"
                             : op == BinaryOpType::Minimum ? "min"
                                                           : std::string(fusebox::toString(op));
      return {{fn + "("}, operand(0), {", "}, operand(1), {")"}};
    }
    case OpType::Ternary: {
      const std::string fn(fusebox::toString(def->attr<TernaryOpType>()));
      return {{fn + "("}, operand(0), {", "}, operand(1), {", "}, operand(2), {")"}};
    }
    default:
      return {{s->toString()}};
  }
}

// Past this many characters, or this many levels of nesting, operands print
// by name: an extent that reuses a subexpression would otherwise double in
// length with every reuse, and a chain of scalar ops is as long as the chain.
constexpr size_t kInlineMaxChars = 1000;
constexpr size_t kInlineMaxDepth = 100;

}  // namespace

std::string Scalar::inlineString() const {
  if (!writtenInline(this)) return toString();
  struct Frame {
    std::vector<InlinePart> parts;
    size_t next = 0;
  };
  std::string out;
  std::vector<Frame> stack;
  stack.push_back({inlineParts(this), 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.parts.size()) {
      stack.pop_back();
      continue;
    }
    const InlinePart& part = top.parts[top.next++];
    const Scalar* operand = part.operand;
    if (operand == nullptr)
      out += part.text;
    else if (writtenInline(operand) && out.size() < kInlineMaxChars &&
             stack.size() < kInlineMaxDepth)
      stack.push_back({inlineParts(operand), 0});  // `top` and `part` are not used after
    else
      out += operand->toString();
  }
  return out;
}

std::string_view toString(IterType t) {
  switch (t) {
    case IterType::Iteration: return "Iteration";
    case IterType::Reduction: return "Reduction";
    case IterType::Broadcast: return "Broadcast";
    case IterType::Symbolic: return "Symbolic";
  }
  return "?";
}

std::string IterDomain::toString() const {
  char prefix = 'i';
  switch (iter_type_) {
    case IterType::Iteration: prefix = 'i'; break;
    case IterType::Reduction: prefix = 'r'; break;
    case IterType::Broadcast: prefix = 'b'; break;
    case IterType::Symbolic: prefix = '?'; break;
  }
  std::string s = fmt::format("{}S{}{{{}", prefix, name(), extent_->inlineString());
  if (expanded_extent_) s += " ex " + expanded_extent_->inlineString();
  return s + "}";
}

TensorView::TensorView(Fusion* f, int64_t name, std::vector<IterDomain*> logical, DataType t)
    : Val(f, ValKind::TensorView, t, name), logical_(std::move(logical)) {
  setContiguous();
}

std::vector<IterDomain*> TensorView::logicalNoReductions() const {
  std::vector<IterDomain*> out;
  for (auto* id : logical_)
    if (!id->isReduction()) out.push_back(id);
  return out;
}

int64_t TensorView::nDims() const {
  return std::count_if(logical_.begin(), logical_.end(),
                       [](IterDomain* id) { return !id->isReduction(); });
}

IterDomain* TensorView::axis(int64_t i) const {
  auto dims = logicalNoReductions();
  int64_t n = static_cast<int64_t>(dims.size());
  if (i < 0) i += n;
  FUSEBOX_CHECK(i >= 0 && i < n, "axis {} out of range for {}", i, domainString());
  return dims[i];
}

bool TensorView::hasReduction() const {
  return std::any_of(logical_.begin(), logical_.end(),
                     [](IterDomain* id) { return id->isReduction(); });
}

std::vector<IterDomain*> TensorView::allocation() const {
  return allocation_.empty() ? logicalNoReductions() : allocation_;
}

void TensorView::setAllocation(std::vector<IterDomain*> alloc) {
  auto logical = logicalNoReductions();
  auto sorted_alloc = alloc;
  auto sorted_logical = logical;
  std::sort(sorted_alloc.begin(), sorted_alloc.end());
  std::sort(sorted_logical.begin(), sorted_logical.end());
  FUSEBOX_CHECK(sorted_alloc == sorted_logical,
                "allocation domain of {} must be a permutation of its logical domain",
                toString());
  allocation_ = alloc == logical ? std::vector<IterDomain*>{} : std::move(alloc);
  setContiguous();
}

std::vector<int64_t> TensorView::strideOrder() const {
  auto logical = logicalNoReductions();
  auto alloc = allocation();
  std::vector<int64_t> permutation;
  for (auto* id : alloc)
    permutation.push_back(std::find(logical.begin(), logical.end(), id) - logical.begin());
  return allocationPermutationToStrideOrder(permutation);
}

void TensorView::setStrideOrder(const std::vector<int64_t>& stride_order) {
  auto logical = logicalNoReductions();
  FUSEBOX_USER_CHECK(stride_order.size() == logical.size() && isPermutation(stride_order),
                     "stride_order of {} must be a permutation of 0..{}, got [{}]", toString(),
                     static_cast<int64_t>(logical.size()) - 1, fmt::join(stride_order, ", "));
  std::vector<IterDomain*> alloc;
  for (int64_t d : strideOrderToAllocationPermutation(stride_order)) alloc.push_back(logical[d]);
  setAllocation(std::move(alloc));
}

void TensorView::setContiguity(std::vector<std::optional<bool>> contiguity) {
  auto alloc = allocation();
  FUSEBOX_USER_CHECK(contiguity.size() == alloc.size(),
                     "contiguity of {} needs {} entries, got {}", toString(), alloc.size(),
                     contiguity.size());
  for (size_t i = 0; i < alloc.size(); ++i) {
    FUSEBOX_USER_CHECK(alloc[i]->isBroadcast() != contiguity[i].has_value(),
                       "contiguity of {} entry {}: expected {} for a {} dimension", toString(), i,
                       alloc[i]->isBroadcast() ? "None" : "True or False",
                       alloc[i]->isBroadcast() ? "broadcast" : "non-broadcast");
  }
  contiguity_ = std::move(contiguity);
}

void TensorView::setContiguous() {
  contiguity_.clear();
  for (auto* id : allocation())
    contiguity_.push_back(id->isBroadcast() ? std::nullopt : std::optional<bool>(true));
}

std::string TensorView::toString() const { return fmt::format("T{}_g", name()); }

std::string TensorView::domainString() const {
  std::vector<std::string> ids;
  for (auto* id : logical_) ids.push_back(id->toString());
  if (ids.empty()) return toString() + "[ ]";
  return fmt::format("{}[ {} ]", toString(), fmt::join(ids, ", "));
}

bool isPermutation(const std::vector<int64_t>& v) {
  std::vector<bool> seen(v.size(), false);
  for (int64_t x : v) {
    if (x < 0 || x >= static_cast<int64_t>(v.size()) || seen[x]) return false;
    seen[x] = true;
  }
  return true;
}

std::vector<int64_t> strideOrderToAllocationPermutation(const std::vector<int64_t>& stride_order) {
  // stride_order[d] = n-1 means d is outermost, i.e. position 0 of the permutation.
  int64_t n = static_cast<int64_t>(stride_order.size());
  std::vector<int64_t> permutation(n);
  for (int64_t d = 0; d < n; ++d) permutation[n - 1 - stride_order[d]] = d;
  return permutation;
}

std::vector<int64_t> allocationPermutationToStrideOrder(const std::vector<int64_t>& permutation) {
  int64_t n = static_cast<int64_t>(permutation.size());
  std::vector<int64_t> stride_order(n);
  for (int64_t p = 0; p < n; ++p) stride_order[permutation[p]] = n - 1 - p;
  return stride_order;
}

bool Expr::isTensorOp() const {
  return std::any_of(outputs_.begin(), outputs_.end(), [](Val* v) { return v->isTensor(); });
}

std::string Expr::opName() const {
  switch (op_) {
    case OpType::Unary: return std::string(fusebox::toString(attr<UnaryOpType>()));
    case OpType::Binary: return std::string(fusebox::toString(attr<BinaryOpType>()));
    case OpType::Ternary: return std::string(fusebox::toString(attr<TernaryOpType>()));
    case OpType::Reduction: return std::string(fusebox::toString(attr<ReductionAttr>().op));
    case OpType::Rand: return std::string(fusebox::toString(attr<RandAttr>().dist));
    case OpType::Scan: return std::string(scanName(attr<ScanAttr>().op));
    default: return std::string(fusebox::toString(op_));
  }
}

}  // namespace fusebox
