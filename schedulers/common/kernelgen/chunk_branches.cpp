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

std::string VectorPlacement::branchCondition(CodeSink& sink, const BranchBounds& bounds,
                                             const std::string& text) {
  if (!uniform_branches || !vectorize_ ||
      !uniformOverChunk({bounds}, dims_.groups, space_.sizes, dims_.vector_width))
    return text;
  return chunkCondition(sink, bounds);
}

// A branch's checks at the chunk's first element, once per chunk (a bool
// above the element loop): the innermost merged dim's index variables are
// the element loop's, so its iteration dims are written from mb.
std::string VectorPlacement::chunkCondition(CodeSink& sink, const BranchBounds& bounds) {
  IterSpace start = space_;
  const size_t last = dims_.groups.size() - 1;
  const std::vector<std::string> texts = iterIndexTexts(dims_, space_, last, "mb");
  const auto& group = dims_.groups[last];
  for (size_t j = 0; j < texts.size(); ++j)
    start.names[static_cast<size_t>(group[group.size() - 1 - j])] = texts[j];
  std::vector<std::string> checks;
  for (const BranchBound& b : bounds) {
    const std::string s = b.index.str(start, b.role);
    if (b.lo) checks.push_back(fmt::format("{} >= {}", s, space_.literal(*b.lo, b.lo_role)));
    if (b.hi) checks.push_back(fmt::format("{} < {}", s, space_.literal(*b.hi, b.hi_role)));
  }
  const std::string text =
      checks.empty() ? std::string("true") : fmt::format("{}", fmt::join(checks, " && "));
  auto it = conditions_.find(text);
  if (it == conditions_.end()) {
    const std::string var = sink.newVar("c");
    pre_chunk.declare(var, kir::boolType(), kir::text(text), {.is_const = true});
    it = conditions_.emplace(text, var).first;
  }
  return it->second;
}

// A load under checks uniform over the chunk: made once for the chunk, under
// the chunk's checks (so a branch the chunk does not take reads nothing and
// never out of bounds); the element code selects from it in its branch.
std::string VectorPlacement::guardedLoad(CodeSink& sink, const ElementRef& ref, bool vector) {
  const std::string ct = computeTypeName(ref.tv->dtype());
  const std::string at = offsetText(ref.offset, "mb", ref.pointer);
  auto element = [&](const std::string& var) {
    return vector ? fmt::format("fusebox::Cast<{}>::from({}[v])", ct, var) : var;
  };
  // The same data loaded unconditionally serves as well.
  if (auto it = hoisted_.find(fmt::format("{}@{}", ref.pointer, at)); it != hoisted_.end())
    return element(it->second);
  std::vector<std::string> guards;
  for (const BranchBounds& b : ref.branches) guards.push_back(chunkCondition(sink, b));
  const std::string guard = fmt::format("{}", fmt::join(guards, " && "));
  const std::string key = fmt::format("{}@{}?{}", ref.pointer, at, guard);
  auto it = hoisted_.find(key);
  if (it == hoisted_.end()) {
    std::string var;
    if (vector) {
      var = guardedVector(sink, ref, guard, at);
    } else {
      var = sink.newVar("hl");
      pre_chunk.declare(
          var, kir::named(ct),
          kir::select(
              kir::text(guard),
              kir::castFrom(kir::named(ct), kir::subscript(kir::var(ref.pointer), kir::text(at))),
              kir::text(ct + "{}")),
          {.is_const = true});
    }
    it = hoisted_.emplace(key, var).first;
  }
  return element(it->second);
}

// The vector a guarded vector load reads: one shared with the loads of the
// same input under the other branches of a cat, where it excludes them all.
std::string VectorPlacement::guardedVector(CodeSink& sink, const ElementRef& ref,
                                           const std::string& guard, const std::string& at) {
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
    std::string address = g.members.back().at;
    for (size_t k = g.members.size() - 1; k-- > 0;)
      address = fmt::format("({} ? {} : {})", g.members[k].guard, g.members[k].at, address);
    std::vector<std::string> any;
    for (const GuardedVector::Member& m : g.members)
      any.push_back(g.members.size() > 1 && m.guard.find("&&") != std::string::npos
                        ? fmt::format("({})", m.guard)
                        : m.guard);
    pre_chunk.declare(g.var, kir::named(g.type),
                      kir::select(kir::text(fmt::format("{}", fmt::join(any, " || "))),
                                  kir::loadVector(vec, kir::var(g.pointer) + kir::text(address)),
                                  kir::text(g.type + "{}")),
                      {.is_const = true});
  }
  guarded_.clear();
}

}  // namespace fusebox::kernelgen
