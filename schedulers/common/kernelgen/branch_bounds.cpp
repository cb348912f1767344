// Pad and cat bound checks over vector chunks (branch_bounds.h).
#include "kernelgen/branch_bounds.h"

#include "kernel_ir/print_cuda.h"
#include "kernelgen/merged_dims.h"

namespace fusebox::kernelgen {

namespace {

// Whether a - b is a multiple of w (w a power of two; no overflow).
bool congruent(int64_t a, int64_t b, int w) {
  return (a % w - b % w) % w == 0;
}

int64_t coefOf(const Affine& a, int d) {
  return a.coef[static_cast<size_t>(d)];
}

bool uniformCheck(const BranchBound& b, int inner, int width) {
  if (b.never || !b.index.affine) return false;
  const Affine& a = b.index.a;
  const int64_t k = coefOf(a, inner);
  if (k == 0) return true;  // the chunk does not move it
  if (k != 1) return false;
  // index = c + i<inner> + sum of other dims' terms, i<inner> = start + v with
  // start a multiple of the width: the bounds are crossed only at chunk
  // starts when c, the bounds and every other term are multiples too.
  for (size_t d = 0; d < a.coef.size(); ++d)
    if (static_cast<int>(d) != inner && a.coef[d] % width != 0) return false;
  if (b.lo && !congruent(*b.lo, a.c, width)) return false;
  if (b.hi && !congruent(*b.hi, a.c, width)) return false;
  return true;
}

}  // namespace

bool uniformOverChunk(const std::vector<BranchBounds>& branches,
                      const std::vector<std::vector<int>>& groups,
                      const std::vector<int64_t>& sizes, int width) {
  if (groups.empty() || width <= 1) return false;
  const std::vector<int>& last = groups.back();
  const int inner = last.back();
  // A chunk starts on a multiple of the width along the innermost merged dim
  // (its extent is one when other merged dims are chunked); its innermost
  // iteration dim's index too, and the chunk stays within one run of it,
  // where that dim's extent is a multiple of the width.
  if (last.size() > 1 && sizes[static_cast<size_t>(inner)] % width != 0) return false;
  for (const BranchBounds& branch : branches)
    for (const BranchBound& b : branch)
      if (!uniformCheck(b, inner, width)) return false;
  return true;
}

namespace {

bool sameIndex(const IndexExpr& x, const IndexExpr& y) {
  if (x.affine != y.affine) return false;
  if (!x.affine) return kir::printValue(x.opaque_value) == kir::printValue(y.opaque_value);
  return x.a.c == y.a.c && x.a.c_param == y.a.c_param && x.a.coef == y.a.coef;
}

}  // namespace

bool exclusiveBranches(const std::vector<BranchBounds>& a, const std::vector<BranchBounds>& b) {
  // One cat's checks share its role (its output and dim); its inputs' ranges
  // are consecutive, told apart by the roles of their bounds.
  for (const BranchBounds& x : a)
    for (const BranchBound& p : x)
      for (const BranchBounds& y : b)
        for (const BranchBound& q : y)
          if (p.role == q.role && sameIndex(p.index, q.index) &&
              (p.lo_role != q.lo_role || p.hi_role != q.hi_role))
            return true;
  return false;
}

bool vectorAligned(const Affine& a, int64_t alignment, int64_t element_size,
                   const std::vector<std::vector<int>>& groups, int width) {
  if (alignment <= 0 || alignment % (width * element_size) != 0 || a.c % width != 0) return false;
  for (size_t g = 0; g + 1 < groups.size(); ++g)
    if (coefOf(a, groups[g].back()) % width != 0) return false;
  for (const auto& term : a.terms)
    if (term.second % width != 0) return false;
  return true;
}

ChunkRead boundedRead(const IndexExpr& offset, const std::vector<BranchBounds>& branches,
                      int64_t alignment, int64_t element_size,
                      const std::vector<std::vector<int>>& groups,
                      const std::vector<int64_t>& sizes, int width) {
  if (!offset.affine || !uniformOverChunk(branches, groups, sizes, width))
    return ChunkRead::PerElement;
  const Affine& a = offset.a;
  const std::vector<int>& last = groups.back();
  if (zeroOn(a, last)) return ChunkRead::Hoisted;
  if (walksAsOne(a, last, sizes) && coefOf(a, last.back()) == 1 && width * element_size <= 16 &&
      vectorAligned(a, alignment, element_size, groups, width))
    return ChunkRead::Vector;
  return ChunkRead::PerElement;
}

const char* chunkReadName(ChunkRead r) {
  switch (r) {
    case ChunkRead::Vector:
      return "vector";
    case ChunkRead::Hoisted:
      return "hoisted";
    case ChunkRead::PerElement:
      break;
  }
  return "per element";
}

}  // namespace fusebox::kernelgen
