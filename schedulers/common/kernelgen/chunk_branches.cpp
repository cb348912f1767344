// VectorPlacement under pad and cat branches (merged_dims.h,
// branch_bounds.h): checks that hold alike over a chunk as one bool per
// chunk, and loads under them once per chunk, guarded by those bools.
#include <fmt/format.h>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"
#include "kernelgen/branch_bounds.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/merged_dims.h"

namespace fusebox::kernelgen {

kir::Value VectorPlacement::branchCondition(CodeSink& sink, const BranchBounds& bounds,
                                            const kir::Value& checks) {
  if (!uniform_branches || !vectorize_ ||
      !uniformOverChunk({bounds}, dims_.groups, space_.sizes, dims_.vector_width))
    return checks;
  return chunkCondition(sink, bounds);
}

// A branch's checks at the chunk's first element, once per chunk (a bool
// above the element loop): the innermost merged dim's index variables are
// the element loop's, so its iteration dims are written from mb.
kir::Value VectorPlacement::chunkCondition(CodeSink& sink, const BranchBounds& bounds) {
  IterSpace start = space_;
  const size_t last = dims_.groups.size() - 1;
  const std::vector<kir::Value> first =
      iterIndexValues(dims_, space_, last, kir::var("mb", kir::indexType()));
  const auto& group = dims_.groups[last];
  start.values.resize(start.rank());
  for (size_t j = 0; j < group.size(); ++j) start.values[static_cast<size_t>(group[j])] = first[j];
  std::vector<kir::Value> each;
  for (const BranchBound& b : bounds) {
    const kir::Value s = b.index.value(start, b.role);
    if (b.lo) each.push_back(s >= space_.literal(*b.lo, b.lo_role));
    if (b.hi) each.push_back(s < space_.literal(*b.hi, b.hi_role));
  }
  const kir::Value checks = each.empty() ? kir::text("true") : kir::allOf(each);
  const std::string key = kir::printValue(checks);
  auto it = conditions_.find(key);
  if (it == conditions_.end()) {
    const std::string var = sink.newVar("c");
    pre_chunk.declare(var, kir::boolType(), checks, {.is_const = true});
    it = conditions_.emplace(key, var).first;
  }
  return kir::var(it->second, kir::boolType());
}

kir::Value VectorPlacement::vectorElement(const TensorView* tv, const std::string& var) {
  return kir::vectorElement(tv->dtype(), kir::var(var), kir::var("v", kir::intType()));
}

// A load under checks uniform over the chunk: made once for the chunk, under
// the chunk's checks (so a branch the chunk does not take reads nothing and
// never out of bounds); the element code selects from it in its branch.
kir::Value VectorPlacement::guardedLoad(CodeSink& sink, const ElementRef& ref, bool vector) {
  const kir::Type ct = kir::computeTypeFor(ref.tv->dtype());
  const kir::Value at = offsetValue(ref.offset, "mb", ref.pointer);
  auto element = [&](const std::string& var) {
    return vector ? vectorElement(ref.tv, var) : kir::var(var, ct);
  };
  const std::string at_key = fmt::format("{}@{}", ref.pointer, kir::printValue(at));
  // The same data loaded unconditionally serves as well.
  if (auto it = hoisted_.find(at_key); it != hoisted_.end()) return element(it->second);
  std::vector<kir::Value> guards;
  for (const BranchBounds& b : ref.branches) guards.push_back(chunkCondition(sink, b));
  const kir::Value guard = kir::allOf(guards);
  const std::string key = fmt::format("{}?{}", at_key, kir::printValue(guard));
  auto it = hoisted_.find(key);
  if (it == hoisted_.end()) {
    std::string var;
    if (vector) {
      var = guardedVector(sink, ref, guard, at);
    } else {
      var = sink.newVar("hl");
      pre_chunk.declare(
          var, ct,
          kir::select(guard, kir::castFrom(ct, kir::subscript(kir::var(ref.pointer), at)),
                      kir::text(ct.spelling + "{}")),
          {.is_const = true});
    }
    it = hoisted_.emplace(key, var).first;
  }
  return element(it->second);
}

// The vector a guarded vector load reads: one shared with the loads of the
// same input under the other branches of a cat, where it excludes them all.
std::string VectorPlacement::guardedVector(CodeSink& sink, const ElementRef& ref,
                                           const kir::Value& guard, const kir::Value& at) {
  const std::string type =
      fmt::format("fusebox::Array<{}, {}>", storageType(ref.tv->dtype()), dims_.vector_width);
  for (GuardedVector& g : guarded_) {
    if (g.pointer != ref.pointer || g.type != type) continue;
    bool exclusive = true;
    for (const GuardedVector::Member& m : g.members)
      exclusive &= exclusiveBranches(m.branches, ref.branches);
    if (!exclusive) continue;
    g.members.push_back({guard, at, ref.branches});
    return g.var;
  }
  guarded_.push_back({sink.newVar("vl"), type, ref.pointer, {{guard, at, ref.branches}}});
  return guarded_.back().var;
}

void VectorPlacement::finishChunk() {
  const int vec = dims_.vector_width;
  for (const GuardedVector& g : guarded_) {
    // Any member's guard loads; the first that holds says from where.
    kir::Value address = g.members.back().at;
    for (size_t k = g.members.size() - 1; k-- > 0;)
      address = kir::select(g.members[k].guard, g.members[k].at, address);
    std::vector<kir::Value> guards;
    for (const GuardedVector::Member& m : g.members) guards.push_back(m.guard);
    const kir::Value any = kir::anyOf(guards);
    pre_chunk.declare(g.var, kir::named(g.type),
                      kir::select(any, kir::loadVector(vec, kir::var(g.pointer) + address),
                                  kir::text(g.type + "{}")),
                      {.is_const = true});
  }
  guarded_.clear();
}

}  // namespace fusebox::kernelgen
