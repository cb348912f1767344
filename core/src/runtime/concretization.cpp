// Concretization (concretization.h): the facts a call's inputs fix about a
// symbolic fusion, their key, and the concretized copy.
#include <fusebox/concretization.h>
#include <fusebox/ir/printer.h>
#include <fusebox/runtime.h>
#include <fusebox/segmenter.h>

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "eval/eval_internal.h"

namespace fusebox {

namespace {

using eval_detail::normalizeSliceIndex;

bool isConstant(const Scalar* s) {
  return s != nullptr && s->isConst();
}

// Whether a resize of `in` to `out` is already static (nothing to key).
bool alreadyStatic(const IterDomain* in, const IterDomain* out) {
  return isConstant(in->logicalExtent()) && isConstant(out->extent());
}

const char* typeName(IterType t) {
  return t == IterType::Broadcast ? "Broadcast" : "Iteration";
}

// Groups of input and output dims with equal element counts (a reshape as
// merges and splits); size-1 dims stand alone (squeezed or broadcast).
std::vector<Concretization::ReshapeGroup> reshapeGroups(const std::vector<int64_t>& in,
                                                        const std::vector<int64_t>& out) {
  std::vector<Concretization::ReshapeGroup> groups;
  auto count = [](const std::vector<int64_t>& s) {
    return std::find(s.begin(), s.end(), 0) != s.end();
  };
  if (count(in) || count(out)) return groups;  // no elements: nothing to split or merge
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    if (i < in.size() && in[i] == 1) {
      groups.push_back({{static_cast<int64_t>(i++)}, {}});
      continue;
    }
    if (j < out.size() && out[j] == 1) {
      groups.push_back({{}, {static_cast<int64_t>(j++)}});
      continue;
    }
    FUSEBOX_CHECK(i < in.size() && j < out.size(), "reshape of [{}] to [{}]: element counts differ",
                  fmt::join(in, ", "), fmt::join(out, ", "));
    Concretization::ReshapeGroup g{{static_cast<int64_t>(i)}, {static_cast<int64_t>(j)}};
    // Products stay below the element count, which fits int64.
    int64_t pi = in[i++], po = out[j++];
    while (pi != po) {
      if (pi < po) {
        FUSEBOX_CHECK(i < in.size(), "reshape of [{}] to [{}]: element counts differ",
                      fmt::join(in, ", "), fmt::join(out, ", "));
        g.in_dims.push_back(static_cast<int64_t>(i));
        pi *= in[i++];
      } else {
        FUSEBOX_CHECK(j < out.size(), "reshape of [{}] to [{}]: element counts differ",
                      fmt::join(in, ", "), fmt::join(out, ", "));
        g.out_dims.push_back(static_cast<int64_t>(j));
        po *= out[j++];
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

std::string groupText(const Concretization::ReshapeGroup& g) {
  const char* kind = g.in_dims.empty()                               ? "broadcast"
                     : g.out_dims.empty()                            ? "squeeze"
                     : g.in_dims.size() > 1 && g.out_dims.size() > 1 ? "merge+split"
                     : g.in_dims.size() > 1                          ? "merge"
                     : g.out_dims.size() > 1                         ? "split"
                                                                     : "keep";
  return fmt::format("{} {{{}}}->{{{}}}", kind, fmt::join(g.in_dims, ", "),
                     fmt::join(g.out_dims, ", "));
}

std::string reshapeText(const Concretization::Reshape& r) {
  std::vector<std::string> g;
  for (const auto& group : r.groups) g.push_back(groupText(group));
  return fmt::format("view {}: {}", r.op->output(0)->toString(),
                     g.empty() ? "empty" : fmt::format("{}", fmt::join(g, ", ")));
}

std::string resizeText(const Concretization::Resize& r) {
  std::string s = fmt::format("{} {} d{}", r.op->opName(), r.op->output(0)->toString(), r.dim);
  if (r.op->op() == OpType::Cat) s += fmt::format(" (operand {})", r.input);
  return s + fmt::format(": {} by {} and {}", r.input_extent, r.left, r.right);
}

// The tensor of `fusion` named as `like` (of the symbolic fusion; clone keeps
// names).
TensorView* tensorNamed(const Fusion& fusion, const Val* like) {
  for (TensorView* tv : fusion.allTensors())
    if (tv->name() == like->name()) return tv;
  FUSEBOX_CHECK(false, "the concretized fusion has no tensor {}", like->toString());
  return nullptr;
}

}  // namespace

std::string Concretization::key() const {
  std::vector<std::string> parts;
  for (const Resize& r : resizes) parts.push_back(resizeText(r));
  for (const DimType& d : dim_types)
    parts.push_back(fmt::format("{} d{}: {}", d.tv->toString(), d.dim, typeName(d.type)));
  for (const Reshape& r : reshapes) parts.push_back(reshapeText(r));
  return fmt::format("{}{}", resize_extents ? "" : "symbolic resize extents; ",
                     fmt::join(parts, "; "));
}

Concretization analyzeConcretization(const Fusion& symbolic, const std::vector<Argument>& inputs,
                                     const ConcretizationOptions& options) {
  std::vector<ArgumentInfo> infos;
  infos.reserve(inputs.size());
  for (const Argument& a : inputs) infos.push_back(argumentInfo(a));
  FusionRuntimeFacts facts(symbolic, std::move(infos), DeviceProperties{});
  auto value = [&](const Val* v) { return toInt(facts.scalarValue(v)); };

  Concretization c;
  c.resize_extents = options.resize_extents;
  for (const Expr* e : symbolic.exprs()) {
    if (e->op() == OpType::Reshape) {
      std::vector<int64_t> in, out;
      for (const IterDomain* id : e->input(0)->as<TensorView>()->logicalNoReductions())
        in.push_back(value(id->logicalExtent()));
      for (const IterDomain* id : e->output(0)->as<TensorView>()->logicalNoReductions())
        out.push_back(value(id->logicalExtent()));
      c.reshapes.push_back({e, reshapeGroups(in, out)});
      continue;
    }
    if (!options.resize_extents || !e->isTensorOp()) continue;
    const auto* out_tv = e->output(0)->as<TensorView>();
    const auto out = out_tv->logicalNoReductions();
    if (e->op() == OpType::Slice) {
      const auto in = e->input(0)->as<TensorView>()->logicalNoReductions();
      const size_t rank = in.size();
      for (size_t d = 0; d < rank; ++d) {
        if (out[d]->extent() == in[d]->logicalExtent() || alreadyStatic(in[d], out[d])) continue;
        const int64_t extent = value(in[d]->logicalExtent());
        const int64_t begin = normalizeSliceIndex(value(e->input(1 + d)), extent);
        const int64_t end = normalizeSliceIndex(value(e->input(1 + rank + d)), extent);
        c.resizes.push_back({e, static_cast<int64_t>(d), 0, extent, -begin, end - extent});
      }
    } else if (e->op() == OpType::Pad) {
      const auto in = e->input(0)->as<TensorView>()->logicalNoReductions();
      const int64_t rank = static_cast<int64_t>(in.size());
      const int64_t pairs = static_cast<int64_t>(e->inputs().size() - 2) / 2;
      for (int64_t k = 0; k < pairs; ++k) {
        const int64_t d = rank - 1 - k;
        if (out[d]->extent() == in[d]->logicalExtent() || alreadyStatic(in[d], out[d])) continue;
        c.resizes.push_back({e, d, 0, value(in[d]->logicalExtent()), value(e->input(2 + 2 * k)),
                             value(e->input(3 + 2 * k))});
      }
    } else if (e->op() == OpType::Cat) {
      const int64_t d = e->attr<CatAttr>().dim;
      bool all_static = isConstant(out[d]->extent());
      std::vector<int64_t> extents;
      for (const Val* in : e->inputs()) {
        const IterDomain* id = in->as<TensorView>()->logicalNoReductions()[d];
        all_static = all_static && isConstant(id->logicalExtent());
        extents.push_back(value(id->logicalExtent()));
      }
      if (all_static) continue;
      int64_t total = 0;
      for (int64_t x : extents) total += x;  // the output's extent: fits int64
      int64_t before = 0;
      for (size_t i = 0; i < extents.size(); ++i) {
        c.resizes.push_back(
            {e, d, static_cast<int64_t>(i), extents[i], before, total - before - extents[i]});
        before += extents[i];
      }
    }
  }
  std::unordered_set<const IterDomain*> seen;
  for (const TensorView* tv : symbolic.usedTensors()) {
    const auto& logical = tv->logical();
    for (size_t d = 0; d < logical.size(); ++d)
      if (logical[d]->isSymbolic() && seen.insert(logical[d]).second)
        c.dim_types.push_back(
            {logical[d], tv, static_cast<int64_t>(d),
             value(logical[d]->logicalExtent()) == 1 ? IterType::Broadcast : IterType::Iteration});
  }
  return c;
}

namespace {

// Operand `index` of `e` (a pad width or slice bound) becomes the constant
// `v`. By position: one scalar may be several operands whose normalized
// values differ (a slice end past one dim's extent but not another's).
void replaceWidth(Fusion& f, Expr* e, size_t index, int64_t v) {
  const auto* s = e->input(index)->as<Scalar>();
  if (s->isConst() && toInt(*s->value()) == v) return;
  f.replaceInputAt(e, index, f.constantInt(v));
}

// A dim that became Broadcast has no contiguity (nvFuser's None).
void dropBroadcastContiguity(Fusion& f) {
  for (TensorView* tv : f.allTensors()) {
    auto contiguity = tv->contiguity();
    const auto alloc = tv->allocation();
    bool changed = false;
    for (size_t k = 0; k < alloc.size() && k < contiguity.size(); ++k)
      if (alloc[k]->isBroadcast() && contiguity[k].has_value()) {
        contiguity[k].reset();
        changed = true;
      }
    if (changed) tv->setContiguity(std::move(contiguity));
  }
}

}  // namespace

std::unique_ptr<Fusion> concretizeFusion(const Fusion& symbolic, const Concretization& facts) {
  std::unordered_map<const Val*, Val*> map;
  std::unique_ptr<Fusion> out = symbolic.clone(&map);
  Fusion& f = *out;
  auto mappedExpr = [&](const Expr* e) { return map.at(e->output(0))->definition(); };

  // Scalars that become constants: resized inputs' extents (everywhere they
  // are used), and the output extents of the resizes.
  std::unordered_map<Scalar*, Scalar*> constant_extent;
  std::unordered_map<IterDomain*, int64_t> resized_output;
  auto fix = [&](IterDomain* id, int64_t v) {
    if (id->hasExpandedExtent() || id->extent()->isConst()) return;
    constant_extent.emplace(id->extent(), f.constantInt(v));
  };
  for (const auto& r : facts.resizes) {
    Expr* e = mappedExpr(r.op);
    TensorView* out_tv = e->output(0)->as<TensorView>();
    IterDomain* out_id = out_tv->logicalNoReductions()[r.dim];
    TensorView* in_tv = e->input(r.op->op() == OpType::Cat ? r.input : 0)->as<TensorView>();
    fix(in_tv->logicalNoReductions()[r.dim], r.input_extent);
    if (r.op->op() == OpType::Cat) {
      resized_output[out_id] = r.left + r.input_extent + r.right;
    } else if (r.op->op() == OpType::Slice) {
      const size_t rank = out_tv->logicalNoReductions().size();
      const size_t d = static_cast<size_t>(r.dim);
      const int64_t begin = -r.left, end = r.input_extent + r.right;
      Val* step = e->input(1 + 2 * rank + d);
      const int64_t step_value = toInt(*step->as<Scalar>()->value());  // a constant (slice checks)
      resized_output[out_id] = std::max<int64_t>(0, (end - begin + step_value - 1) / step_value);
      for (auto [index, v] : {std::pair{1 + d, begin}, {1 + rank + d, end}})
        replaceWidth(f, e, index, v);
    } else {  // Pad: widths of dim d at 2 + 2k, k = rank - 1 - d
      resized_output[out_id] = r.input_extent + r.left + r.right;
      const int64_t rank = static_cast<int64_t>(out_tv->logicalNoReductions().size());
      const size_t k = static_cast<size_t>(rank - 1 - r.dim);
      for (auto [index, v] : {std::pair{2 + 2 * k, r.left}, {3 + 2 * k, r.right}})
        replaceWidth(f, e, index, v);
    }
  }
  for (auto [from, to] : constant_extent) f.replaceAllUsesWith(from, to);

  // Every dim gets its final extent and type: substituted, resized or folded
  // extents; the type of a Symbolic dim from the facts.
  std::unordered_map<const IterDomain*, IterType> types;
  for (const auto& d : facts.dim_types) types[map.at(d.id)->as<IterDomain>()] = d.type;
  ExpressionEvaluator constants_only;  // binds nothing: folds what constants fix
  for (Val* v : f.allVals()) {
    auto* id = dynamic_cast<IterDomain*>(v);
    if (id == nullptr) continue;
    Scalar* extent = id->extent();
    if (auto it = constant_extent.find(extent); it != constant_extent.end()) extent = it->second;
    Scalar* expanded = id->expandedExtent();
    if (auto it = constant_extent.find(expanded); it != constant_extent.end())
      expanded = it->second;
    if (auto it = resized_output.find(id); it != resized_output.end())
      extent = f.constantInt(it->second);
    else if (!extent->isConst() && extent->definition() != nullptr)
      if (auto folded = constants_only.evaluate(extent)) extent = f.constantInt(toInt(*folded));
    IterType type = id->iterType();
    if (auto it = types.find(id); it != types.end()) type = it->second;
    if (type == IterType::Symbolic) {
      if (!extent->isConst()) continue;  // a dim no live tensor has: left as it is
      type = toInt(*extent->value()) == 1 ? IterType::Broadcast : IterType::Iteration;
    }
    if (type == IterType::Broadcast && expanded == nullptr) extent = f.one();
    if (extent != id->extent() || type != id->iterType() || expanded != id->expandedExtent())
      f.concretizeDomain(id, extent, type, type == IterType::Broadcast ? expanded : nullptr);
  }
  dropBroadcastContiguity(f);
  return out;
}

std::string printConcretizedFusion(const Fusion& concretized, const Concretization& facts) {
  IrPrintOptions options;
  options.transforms = true;
  std::string s = printFusion(concretized, options);
  s += "\n%concretization {\n";
  for (const auto& r : facts.resizes) {
    const TensorView* out = tensorNamed(concretized, r.op->output(0));
    const Expr* e = out->definition();
    const TensorView* in = e->input(r.op->op() == OpType::Cat ? r.input : 0)->as<TensorView>();
    const std::string what = resizeText(r);
    s += fmt::format("  {}: {} by {} and {} -> {}\n", what.substr(0, what.find(':')),
                     in->logicalNoReductions()[r.dim]->toString(), r.left, r.right,
                     out->logicalNoReductions()[r.dim]->toString());
  }
  for (const auto& d : facts.dim_types)
    s += fmt::format("  {} d{}: {}\n", d.tv->toString(), d.dim,
                     tensorNamed(concretized, d.tv)->logical()[d.dim]->toString());
  for (const auto& r : facts.reshapes) s += "  " + reshapeText(r) + "\n";
  if (!facts.resize_extents) s += "  (resize extents symbolic: concretize_resize_extents off)\n";
  s += "}\n";
  return s;
}

}  // namespace fusebox
