// Structural equality and hashing of fusions through one canonical text form:
// values are renumbered in the order a fixed walk first meets them, so two
// fusions built in different orders or with different names compare equal
// exactly when their graphs, attributes, domains and interfaces agree.
#include <fusebox/ir/fusion.h>

#include <fmt/format.h>
#include <functional>
#include <sstream>
#include <unordered_map>

namespace fusebox {
namespace {

std::string attrsString(const ExprAttrs& attrs) {
  return std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<A, UnaryOpType> || std::is_same_v<A, BinaryOpType> ||
                             std::is_same_v<A, TernaryOpType>) {
          return std::string(toString(a));
        } else if constexpr (std::is_same_v<A, BroadcastAttr>) {
          return fmt::format("bcast[{}]", fmt::join(a.is_broadcast_dim, ","));
        } else if constexpr (std::is_same_v<A, SqueezeAttr> || std::is_same_v<A, PermuteAttr>) {
          return fmt::format("dims[{}]", fmt::join(a.dims, ","));
        } else if constexpr (std::is_same_v<A, ReductionAttr>) {
          return fmt::format("{} axes[{}]", toString(a.op), fmt::join(a.axes, ","));
        } else if constexpr (std::is_same_v<A, VarianceAttr>) {
          return fmt::format("axes[{}] correction {}", fmt::join(a.axes, ","), a.correction);
        } else if constexpr (std::is_same_v<A, CatAttr>) {
          return fmt::format("dim {}", a.dim);
        } else {
          static_assert(std::is_same_v<A, RandAttr>);
          return fmt::format("{} seed {}", toString(a.dist), a.has_seed);
        }
      },
      attrs);
}

class CanonicalWriter {
 public:
  explicit CanonicalWriter(const Fusion& f) : fusion_(f) {}

  std::vector<std::string> lines() {
    for (Val* in : fusion_.inputs()) lines_.push_back("input " + declare(in));
    for (Val* out : fusion_.outputs()) visit(out);
    for (Val* out : fusion_.outputs()) {
      std::string line = "output " + ref(out);
      if (out->isTensor())
        if (auto* order = fusion_.requiredStrideOrder(out->as<TensorView>()))
          line += fmt::format(" required_stride_order[{}]", fmt::join(*order, ","));
      if (Val* in = fusion_.aliasedInput(out)) line += " alias " + ref(in);
      lines_.push_back(line);
    }
    return lines_;
  }

 private:
  // Post-order walk: operands first, then the defining expression.
  void visit(Val* v) {
    if (ids_.count(v)) return;
    Expr* def = v->definition();
    if (def == nullptr) {
      lines_.push_back("free " + declare(v));
      return;
    }
    for (Val* in : def->inputs()) visit(in);
    if (ids_.count(v)) return;  // a sibling output already emitted this expression
    std::vector<std::string> outs, ins;
    for (Val* out : def->outputs()) outs.push_back(declare(out));
    for (Val* in : def->inputs()) ins.push_back(ref(in));
    lines_.push_back(fmt::format("{} = {} {}({})", fmt::join(outs, ", "), toString(def->op()),
                                 attrsString(def->attrs()), fmt::join(ins, ", ")));
  }

  std::string ref(Val* v) {
    auto it = ids_.find(v);
    FUSEBOX_CHECK(it != ids_.end(), "canonical form: {} referenced before definition",
                  v->toString());
    return "%" + std::to_string(it->second);
  }

  // Numbers a value and describes it (dtype, constant value, domain).
  std::string declare(Val* v) {
    int64_t id = static_cast<int64_t>(ids_.size());
    ids_[v] = id;
    std::string s = fmt::format("%{}:{}", id, irName(v->dtype()));
    if (auto* sc = dynamic_cast<Scalar*>(v)) {
      if (sc->isConst()) s += "=" + toString(*sc->value());
      return s;
    }
    auto* tv = v->as<TensorView>();
    std::vector<std::string> dims;
    for (IterDomain* d : tv->logical()) {
      std::string dim = fmt::format("{}:{}", toString(d->iterType()), extent(d->extent()));
      if (d->expandedExtent()) dim += " ex " + extent(d->expandedExtent());
      dims.push_back(dim);
    }
    std::vector<std::string> contiguity;
    for (auto& c : tv->contiguity()) contiguity.push_back(c ? (*c ? "t" : "f") : "n");
    s += fmt::format("[{}]", fmt::join(dims, ", "));
    if (tv->hasAllocation()) s += fmt::format(" order[{}]", fmt::join(tv->strideOrder(), ","));
    s += fmt::format(" contig[{}]", fmt::join(contiguity, ""));
    return s;
  }

  // Extents are written inline; free symbolic extents are numbered like values.
  std::string extent(Scalar* s) {
    if (s->isConst()) return toString(*s->value());
    if (auto it = ids_.find(s); it != ids_.end()) return "%" + std::to_string(it->second);
    Expr* def = s->definition();
    if (def == nullptr) {
      int64_t id = static_cast<int64_t>(ids_.size());
      ids_[s] = id;
      return "%" + std::to_string(id);
    }
    std::vector<std::string> ins;
    for (Val* in : def->inputs())
      ins.push_back(in->isScalar() ? extent(in->as<Scalar>()) : "?");
    return fmt::format("({} {})", attrsString(def->attrs()), fmt::join(ins, " "));
  }

  const Fusion& fusion_;
  std::unordered_map<const Val*, int64_t> ids_;
  std::vector<std::string> lines_;
};

}  // namespace

bool Fusion::structurallyEqual(const Fusion& a, const Fusion& b, std::string* why) {
  auto la = CanonicalWriter(a).lines();
  auto lb = CanonicalWriter(b).lines();
  size_t n = std::min(la.size(), lb.size());
  for (size_t i = 0; i < n; ++i)
    if (la[i] != lb[i]) {
      if (why) *why = fmt::format("line {} differs:\n  {}\n  {}", i, la[i], lb[i]);
      return false;
    }
  if (la.size() != lb.size()) {
    if (why)
      *why = fmt::format("one fusion has more lines ({} vs {}); first extra: {}", la.size(),
                         lb.size(), la.size() > n ? la[n] : lb[n]);
    return false;
  }
  return true;
}

uint64_t Fusion::structuralHash() const {
  // FNV-1a over the canonical lines.
  uint64_t h = 1469598103934665603ull;
  for (const auto& line : CanonicalWriter(*this).lines()) {
    for (unsigned char c : line) h = (h ^ c) * 1099511628211ull;
    h = (h ^ '\n') * 1099511628211ull;
  }
  return h;
}

}  // namespace fusebox
