// Structural equality and hashing of fusions through one canonical text form:
// values are renumbered in the order a fixed walk first meets them, so two
// fusions built in different orders or with different names compare equal
// exactly when their graphs, attributes, domains and interfaces agree.
#include <fusebox/ir/fusion.h>

#include <fmt/format.h>
#include <optional>
#include <unordered_map>
#include <unordered_set>

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
        } else if constexpr (std::is_same_v<A, CatAttr> || std::is_same_v<A, IndexAttr>) {
          return fmt::format("dim {}", a.dim);
        } else if constexpr (std::is_same_v<A, ScanAttr>) {
          return fmt::format("{} dim {}", scanName(a.op), a.dim);
        } else if constexpr (std::is_same_v<A, SortAttr>) {
          return fmt::format("dim {} descending {} stable {}", a.dim, a.descending, a.stable);
        } else if constexpr (std::is_same_v<A, TopKAttr>) {
          return fmt::format("dim {} largest {} sorted {}", a.dim, a.largest, a.sorted);
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
  // Post-order walk: operands first, then the defining expression. An explicit
  // stack, so a chain of any length fits.
  void visit(Val* root) {
    struct Frame {
      Val* v;
      size_t next_input;
    };
    std::vector<Frame> stack;
    std::unordered_set<const Val*> on_stack;
    auto enter = [&](Val* v) {
      if (ids_.count(v)) return;
      if (v->definition() == nullptr) {
        lines_.push_back("free " + declare(v));
        return;
      }
      FUSEBOX_CHECK(on_stack.insert(v).second, "canonical form: {} depends on itself",
                    v->toString());
      stack.push_back({v, 0});
    };
    enter(root);
    while (!stack.empty()) {
      Frame& top = stack.back();
      Expr* def = top.v->definition();
      if (top.next_input < def->inputs().size()) {
        enter(def->input(top.next_input++));  // may grow the stack: `top` is not used after
        continue;
      }
      Val* v = top.v;
      stack.pop_back();
      on_stack.erase(v);
      if (ids_.count(v)) continue;  // a sibling output already emitted this expression
      std::vector<std::string> outs, ins;
      for (Val* out : def->outputs()) outs.push_back(declare(out));
      for (Val* in : def->inputs()) ins.push_back(ref(in));
      lines_.push_back(fmt::format("{} = {} {}({})", fmt::join(outs, ", "), toString(def->op()),
                                   attrsString(def->attrs()), fmt::join(ins, ", ")));
    }
  }

  std::string ref(Val* v) {
    auto it = ids_.find(v);
    FUSEBOX_CHECK(it != ids_.end(), "canonical form: {} referenced before definition",
                  v->toString());
    return fmt::format("%{}", it->second);  // not "%" + to_string: GCC 12's -Wrestrict
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

  // An extent: a constant, a free symbolic extent (numbered like values), or
  // scalar arithmetic, always compared by its structure (whether the same
  // node is also an operand somewhere does not matter). Each distinct
  // arithmetic structure is written once, as an "extent &k = (op operands)"
  // line, and referred to as &k: equal structures get the same &k whether or
  // not they share nodes, and an extent that reuses a subexpression stays as
  // small as its graph (written inline it would double with every reuse).
  // Operands are visited left to right with an explicit stack, so the
  // numbering is that of the expanded tree.
  std::string extent(Scalar* root) {
    auto known = [&](const Scalar* s) -> const std::string* {
      auto it = extent_refs_.find(s);
      return it == extent_refs_.end() ? nullptr : &it->second;
    };
    auto leaf = [&](Scalar* s) -> std::optional<std::string> {
      if (s->isConst()) return toString(*s->value());
      if (const std::string* r = known(s)) return *r;
      if (s->definition() != nullptr) return std::nullopt;
      if (auto it = ids_.find(s); it != ids_.end()) return "%" + std::to_string(it->second);
      int64_t id = static_cast<int64_t>(ids_.size());
      ids_[s] = id;
      return "%" + std::to_string(id);
    };
    if (auto text = leaf(root)) return *text;
    struct Frame {
      Scalar* s;
      size_t next_input;
      std::vector<std::string> operands;
    };
    std::vector<Frame> stack;
    std::unordered_set<const Scalar*> on_stack;
    auto push = [&](Scalar* s) {
      FUSEBOX_CHECK(on_stack.insert(s).second, "canonical form: extent {} depends on itself",
                    s->toString());
      stack.push_back({s, 0, {}});
    };
    push(root);
    std::string result;
    while (!stack.empty()) {
      Frame& top = stack.back();
      Expr* def = top.s->definition();
      if (top.next_input < def->inputs().size()) {
        Val* in = def->input(top.next_input++);
        if (!in->isScalar()) {
          top.operands.push_back("?");
        } else if (auto text = leaf(in->as<Scalar>())) {
          top.operands.push_back(*text);
        } else {
          push(in->as<Scalar>());  // may grow the stack: `top` is not used after
        }
        continue;
      }
      std::string structure =
          fmt::format("({} {})", attrsString(def->attrs()), fmt::join(top.operands, " "));
      auto [it, added] = extent_numbers_.emplace(std::move(structure), extent_numbers_.size());
      std::string ref = fmt::format("&{}", it->second);
      if (added) lines_.push_back(fmt::format("extent {} = {}", ref, it->first));
      extent_refs_[top.s] = ref;
      on_stack.erase(top.s);
      stack.pop_back();
      if (stack.empty())
        result = ref;
      else
        stack.back().operands.push_back(ref);
    }
    return result;
  }

  const Fusion& fusion_;
  std::unordered_map<const Val*, int64_t> ids_;
  std::unordered_map<const Scalar*, std::string> extent_refs_;  // computed extents seen
  std::unordered_map<std::string, size_t> extent_numbers_;      // structure -> k of &k
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
