// Merged-index arithmetic and the vector placement (merged_dims.h).
#include "kernelgen/merged_dims.h"

#include <fmt/format.h>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"
#include "kernelgen/branch_bounds.h"
#include "kernelgen/codegen_ops.h"

namespace fusebox::kernelgen {

bool MergedDims::tailPossible() const {
  return vector_width > 1 && !extents.empty() && extents.back() % vector_width != 0;
}

std::string MergedDims::innermostName() const {
  if (groups.empty()) return "mb";
  return fmt::format("m{}", groups.size() - 1);
}

void declareMergedIndices(Buffer& out, const MergedDims& dims, const std::string& lin, size_t begin,
                          size_t end, SizeLiterals* literals) {
  const size_t m = dims.groups.size();
  int64_t inner = 1;
  for (size_t g = end; g-- > begin;) {
    std::string t = lin;
    if (inner != 1)
      t = fmt::format("({} / {})", t, sizeText(literals, inner, fmt::format("{}/m{}", lin, g)));
    if (g != begin)
      t = fmt::format("({} % {})", t, sizeText(literals, dims.extents[g], fmt::format("m{}", g)));
    out.line(fmt::format("[[maybe_unused]] const idx_t {} = {};",
                         g + 1 == m ? std::string("mb") : fmt::format("m{}", g), t));
    inner *= dims.extents[g];
  }
}

void declareDimIndices(Buffer& out, const std::vector<int>& dims, const std::vector<int64_t>& sizes,
                       const std::string& lin, const std::string& innermost,
                       SizeLiterals* literals) {
  int64_t inner = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    const auto d = static_cast<size_t>(dims[j]);
    std::string t = lin;
    if (inner != 1)
      t = fmt::format("({} / {})", t, sizeText(literals, inner, fmt::format("{}/i{}", lin, d)));
    if (j != 0)
      t = fmt::format("({} % {})", t, sizeText(literals, sizes[d], fmt::format("#i{}", d)));
    const std::string name =
        j + 1 == dims.size() && !innermost.empty() ? innermost : fmt::format("i{}", d);
    out.line(fmt::format("[[maybe_unused]] const idx_t {} = {};", name, t));
    inner *= sizes[d];
  }
}

std::vector<std::string> iterIndexTexts(const MergedDims& dims, const IterSpace& space, size_t g,
                                        const std::string& merged) {
  const auto& group = dims.groups[g];
  std::vector<std::string> texts;
  int64_t inner = 1;
  for (size_t j = group.size(); j-- > 0;) {
    const size_t d = static_cast<size_t>(group[j]);
    std::string t = merged;
    if (inner != 1)
      t = fmt::format("({} / {})", t,
                      space.literal(inner, fmt::format("m{}/{}", g, space.names[d])));
    if (j != 0)
      t = fmt::format("({} % {})", t, space.literal(space.sizes[d], "#" + space.names[d]));
    texts.push_back(t);
    inner *= space.sizes[d];
  }
  return texts;
}

void declareIterIndices(Buffer& out, const MergedDims& dims, const IterSpace& space, size_t g) {
  const auto& group = dims.groups[g];
  const std::vector<std::string> texts = iterIndexTexts(dims, space, g, fmt::format("m{}", g));
  for (size_t j = 0; j < texts.size(); ++j)
    out.line(fmt::format("[[maybe_unused]] const idx_t {} = {};",
                         space.names[static_cast<size_t>(group[group.size() - 1 - j])], texts[j]));
}

std::string mergedIndexLines(const MergedDims& dims, const std::string& lin, size_t begin,
                             size_t end, SizeLiterals& literals) {
  Buffer b;
  declareMergedIndices(b, dims, lin, begin, end, &literals);
  return b.text;
}

std::string iterIndexLines(const MergedDims& dims, const IterSpace& space, size_t g) {
  Buffer b;
  declareIterIndices(b, dims, space, g);
  return b.text;
}

void declareChunkElementIndices(kir::Block& out, const MergedDims& dims, const IterSpace& space) {
  const size_t m = dims.groups.size();
  if (m == 0) return;
  out.declare(fmt::format("m{}", m - 1), kir::indexType(),
              kir::var("mb") + kir::var("v", kir::intType()), kir::kConstUnused);
  out.code(iterIndexLines(dims, space, m - 1));
}

bool walksAsOne(const Affine& a, const std::vector<int>& group, const std::vector<int64_t>& sizes) {
  for (size_t j = 0; j + 1 < group.size(); ++j) {
    const auto d = static_cast<size_t>(group[j]), next = static_cast<size_t>(group[j + 1]);
    if (a.coef[d] != a.coef[next] * sizes[next]) return false;
  }
  return true;
}

bool zeroOn(const Affine& a, const std::vector<int>& group) {
  for (int d : group)
    if (a.coef[static_cast<size_t>(d)] != 0) return false;
  return true;
}

bool VectorPlacement::termsPerChunk(const Affine& a) const {
  for (const auto& term : a.terms)
    if (chunk_values_.count(term.first) == 0) return false;
  return true;
}

std::string VectorPlacement::indexVariable(CodeSink& sink, const std::string& index_value,
                                           const std::string& expr) {
  if (!vectorize_ || chunk_values_.count(index_value) == 0)
    return Placement::indexVariable(sink, index_value, expr);
  const std::string var = sink.newVar("x");
  pre_chunk.declare(var, kir::indexType(), kir::text(expr), kir::kConstUnused);
  chunk_values_.insert(var);
  return var;
}

bool VectorPlacement::isVectorAccess(const ElementRef& ref) const {
  const IndexExpr& off = ref.offset;
  if (!off.affine || ref.conditional || dims_.groups.empty() || !termsPerChunk(off.a)) return false;
  const size_t last = dims_.groups.size() - 1;
  return walksAsOne(off.a, last) && off.a.coef[static_cast<size_t>(dims_.groups[last].back())] == 1;
}

std::string VectorPlacement::offsetText(const IndexExpr& off, const std::string& last,
                                        const std::string& role) const {
  if (!off.affine) return off.str(space_, role);
  std::vector<std::string> terms;
  const size_t m = dims_.groups.size();
  for (size_t g = 0; g < m; ++g) {
    const auto& group = dims_.groups[g];
    const std::string var = g + 1 == m ? last : fmt::format("m{}", g);
    if (walksAsOne(off.a, g)) {
      // The coefficient of the group's innermost dim: named as IndexExpr::str names it.
      const std::string& name = space_.names[static_cast<size_t>(group.back())];
      const int64_t k = off.a.coef[static_cast<size_t>(group.back())];
      if (k == 1)
        terms.push_back(var);
      else if (k != 0)
        terms.push_back(fmt::format("{} * {}", var, space_.literal(k, role + "*" + name)));
    } else {
      for (int d : group) {
        const std::string& name = space_.names[static_cast<size_t>(d)];
        const int64_t k = off.a.coef[static_cast<size_t>(d)];
        if (k != 0)
          terms.push_back(fmt::format("{} * {}", name, space_.literal(k, role + "*" + name)));
      }
    }
  }
  for (const auto& [var, k] : off.a.terms)
    if (k != 0)
      terms.push_back(k == 1 ? var
                             : fmt::format("{} * {}", var, space_.literal(k, role + "*" + var)));
  if (off.a.c_param)  // a parameter even where 0 (Affine::c_param)
    terms.push_back(space_.parameter(off.a.c, role + "+"));
  else if (off.a.c != 0 || terms.empty())
    terms.push_back(space_.literal(off.a.c, role + "+"));
  return fmt::format("({})", fmt::join(terms, " + "));
}

std::string VectorPlacement::load(CodeSink& sink, const ElementRef& ref) {
  const IndexExpr& off = ref.offset;
  if (ref.conditional && uniform_branches && vectorize_) {
    const ChunkRead read =
        boundedRead(off, ref.branches, ref.alignment, dataTypeSize(ref.tv->dtype()), dims_.groups,
                    space_.sizes, dims_.vector_width);
    if (read != ChunkRead::PerElement) return guardedLoad(sink, ref, read == ChunkRead::Vector);
  }
  // A run-time index the placement declared per chunk may take part in
  // chunk-level loads; one computed per element makes the load a scalar one.
  if (vectorize_ && !ref.conditional && off.affine && !dims_.groups.empty() &&
      termsPerChunk(off.a)) {
    const int vec = dims_.vector_width;
    const std::string st = storageType(ref.tv->dtype()), ct = computeTypeName(ref.tv->dtype());
    // A load no row dim moves is made once per thread, above the row loop;
    // not with a partial last chunk, whose threads leave the chunk code early,
    // nor through a run-time index (declared per chunk).
    bool row_invariant = dims_.row_groups > 0 && !dims_.tailPossible() && off.a.terms.empty();
    for (size_t g = 0; g < static_cast<size_t>(dims_.row_groups); ++g)
      row_invariant &= zeroOn(off.a, g);
    kir::Block& target = row_invariant ? pre_row : pre_chunk;
    const std::string at = offsetText(off, "mb", ref.pointer);
    const std::string key = fmt::format("{}@{}", ref.pointer, at);
    if (vec > 1 && isVectorAccess(ref)) {
      auto it = hoisted_.find(key);
      if (it == hoisted_.end()) {
        const std::string var = sink.newVar("vl");
        target.declare(var, kir::named(fmt::format("fusebox::Array<{}, {}>", st, vec)),
                       kir::loadVector(vec, kir::var(ref.pointer) + kir::text(at)),
                       {.is_const = true});
        it = hoisted_.emplace(key, var).first;
        chunk_values_.insert(var);
      }
      return fmt::format("fusebox::Cast<{}>::from({}[v])", ct, it->second);
    }
    // The same element for the whole chunk: one load above the element loop.
    if (zeroOn(off.a, dims_.groups.size() - 1)) {
      auto it = hoisted_.find(key);
      if (it == hoisted_.end()) {
        const std::string var = sink.newVar("hl");
        target.declare(
            var, kir::named(ct),
            kir::castFrom(kir::named(ct), kir::subscript(kir::var(ref.pointer), kir::text(at))),
            {.is_const = true});
        it = hoisted_.emplace(key, var).first;
        chunk_values_.insert(var);
      }
      return it->second;
    }
  }
  return scalarLoad(sink, ref, offsetText(off, dims_.innermostName(), ref.pointer));
}

void VectorPlacement::store(CodeSink& sink, const ElementRef& ref, const std::string& value) {
  const int vec = dims_.vector_width;
  if (vectorize_ && vec > 1 && isVectorAccess(ref)) {
    const std::string st = storageType(ref.tv->dtype());
    const std::string arr = fmt::format("so{}", ref.index);
    pre_chunk.declare(arr, kir::named(fmt::format("fusebox::Array<{}, {}>", st, vec)), {});
    sink.at().assign(kir::subscript(kir::var(arr), kir::var("v")),
                     kir::castFrom(kir::named(st), kir::text(value)));
    kir::storeVector(post_chunk, vec,
                     kir::var(ref.pointer) + kir::text(offsetText(ref.offset, "mb", ref.pointer)),
                     kir::var(arr));
    return;
  }
  scalarStore(sink, ref, offsetText(ref.offset, dims_.innermostName(), ref.pointer), value);
}

}  // namespace fusebox::kernelgen
