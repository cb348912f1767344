// Shape scalars: see shape_scalars.h.
#include <fusebox/ir/shape_scalars.h>

#include <fmt/format.h>

#include <algorithm>

namespace fusebox {

std::vector<const Val*> shapeOperands(const Expr* e) {
  const auto& in = e->inputs();
  auto from = [&](size_t first, size_t last) {
    std::vector<const Val*> out;
    for (size_t i = first; i < std::min(last, in.size()); ++i) out.push_back(in[i]);
    return out;
  };
  switch (e->op()) {
    case OpType::Reshape:
    case OpType::Expand:
    case OpType::Full:   // fill, then the shape: the fill only gives values
    case OpType::Slice:  // starts, stops and steps
      return from(1, in.size());
    case OpType::Iota:
      return from(0, 1);  // the length; start and step only give values
    case OpType::Pad:
      return from(2, in.size());  // the widths, not the pad value
    case OpType::Rand: {
      const auto* out = e->output(0)->as<TensorView>();
      return from(0, static_cast<size_t>(out->nDims()));
    }
    default:
      return {};
  }
}

std::unordered_map<const Val*, ShapeUse> shapeScalarUses(const Fusion& fusion) {
  std::unordered_map<const Val*, ShapeUse> uses;
  std::vector<const Val*> pending;
  auto reach = [&](const Val* v, ShapeUse use) {
    if (v == nullptr || !v->isScalar()) return;
    if (use.root == nullptr) use.root = v;
    if (uses.emplace(v, use).second) pending.push_back(v);
  };
  for (const Expr* e : fusion.allExprs()) {
    if (!e->isTensorOp()) continue;
    for (const Val* out : e->outputs()) {
      if (!out->isTensor()) continue;
      for (const IterDomain* id : out->as<TensorView>()->logical()) {
        reach(id->extent(), ShapeUse{e, nullptr, true});
        reach(id->expandedExtent(), ShapeUse{e, nullptr, true});
      }
    }
    for (const Val* v : shapeOperands(e)) reach(v, ShapeUse{e, nullptr, false});
  }
  // Everything a shape scalar is computed from gives that shape too.
  while (!pending.empty()) {
    const Val* v = pending.back();
    pending.pop_back();
    if (const Expr* def = v->definition())
      for (const Val* operand : def->inputs()) reach(operand, uses.at(v));
  }
  return uses;
}

std::string describeShapeOp(const Expr* op) {
  std::vector<std::string> tensors;
  for (const Val* v : op->inputs())
    if (v->isTensor()) tensors.push_back(v->toString());
  if (tensors.empty()) return op->opName();
  return fmt::format("{} of {}", op->opName(), fmt::join(tensors, ", "));
}

}  // namespace fusebox
