// Merged-index arithmetic and the vector placement (merged_dims.h).
#include "kernelgen/merged_dims.h"

#include <fmt/format.h>

#include <functional>

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

namespace {

// The row-major digits of linear index `lin` over `extents` (outermost
// first): (lin / inner) % extent, without a division by 1 or the outermost
// digit's remainder. `divisor(j, inner)` and `extent(j)` give digit j's
// integers (literals or parameters). Made innermost first, as the kernels
// always declared them.
std::vector<kir::Value> rowMajorDigits(const kir::Value& lin, const std::vector<int64_t>& extents,
                                       const std::function<kir::Value(size_t, int64_t)>& divisor,
                                       const std::function<kir::Value(size_t)>& extent) {
  std::vector<kir::Value> digits(extents.size());
  int64_t inner = 1;
  for (size_t j = extents.size(); j-- > 0;) {
    kir::Value t = lin;
    if (inner != 1) t = t / divisor(j, inner);
    if (j != 0) t = t % extent(j);
    digits[j] = t;
    inner *= extents[j];
  }
  return digits;
}

// Declares names[j] = digits[j], innermost first.
void declareDigits(kir::Block& out, const std::vector<std::string>& names,
                   const std::vector<kir::Value>& digits) {
  for (size_t j = digits.size(); j-- > 0;)
    out.declare(names[j], kir::indexType(), digits[j], kir::kConstUnused);
}

}  // namespace

void declareMergedIndices(kir::Block& out, const MergedDims& dims, const std::string& lin,
                          size_t begin, size_t end, SizeLiterals* literals) {
  const size_t m = dims.groups.size();
  const std::vector<int64_t> extents(dims.extents.begin() + static_cast<std::ptrdiff_t>(begin),
                                     dims.extents.begin() + static_cast<std::ptrdiff_t>(end));
  std::vector<std::string> names;
  for (size_t g = begin; g < end; ++g)
    names.push_back(g + 1 == m ? std::string("mb") : fmt::format("m{}", g));
  declareDigits(out, names,
                rowMajorDigits(
                    indexVariable(lin), extents,
                    [&](size_t j, int64_t inner) {
                      return sizeValue(literals, inner, fmt::format("{}/m{}", lin, begin + j));
                    },
                    [&](size_t j) {
                      return sizeValue(literals, extents[j], fmt::format("m{}", begin + j));
                    }));
}

void declareDimIndices(kir::Block& out, const std::vector<int>& dims,
                       const std::vector<int64_t>& sizes, const std::string& lin,
                       const std::string& innermost, SizeLiterals* literals) {
  std::vector<int64_t> extents;
  std::vector<std::string> names;
  for (size_t j = 0; j < dims.size(); ++j) {
    const auto d = static_cast<size_t>(dims[j]);
    extents.push_back(sizes[d]);
    names.push_back(j + 1 == dims.size() && !innermost.empty() ? innermost : fmt::format("i{}", d));
  }
  declareDigits(
      out, names,
      rowMajorDigits(
          indexVariable(lin), extents,
          [&](size_t j, int64_t inner) {
            return sizeValue(literals, inner, fmt::format("{}/i{}", lin, dims[j]));
          },
          [&](size_t j) { return sizeValue(literals, extents[j], fmt::format("#i{}", dims[j])); }));
}

std::vector<kir::Value> iterIndexValues(const MergedDims& dims, const IterSpace& space, size_t g,
                                        const kir::Value& merged) {
  const auto& group = dims.groups[g];
  auto name = [&](size_t j) { return space.names[static_cast<size_t>(group[j])]; };
  std::vector<int64_t> extents;
  for (int d : group) extents.push_back(space.sizes[static_cast<size_t>(d)]);
  return rowMajorDigits(
      merged, extents,
      [&](size_t j, int64_t inner) {
        return space.literal(inner, fmt::format("m{}/{}", g, name(j)));
      },
      [&](size_t j) { return space.literal(extents[j], fmt::format("#{}", name(j))); });
}

void declareIterIndices(kir::Block& out, const MergedDims& dims, const IterSpace& space, size_t g) {
  std::vector<std::string> names;
  for (int d : dims.groups[g]) names.push_back(space.names[static_cast<size_t>(d)]);
  declareDigits(out, names, iterIndexValues(dims, space, g, indexVariable(fmt::format("m{}", g))));
}

void declareChunkElementIndices(kir::Block& out, const MergedDims& dims, const IterSpace& space) {
  const size_t m = dims.groups.size();
  if (m == 0) return;
  out.declare(fmt::format("m{}", m - 1), kir::indexType(),
              kir::var("mb") + kir::var("v", kir::intType()), kir::kConstUnused);
  declareIterIndices(out, dims, space, m - 1);
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

bool VectorPlacement::readOnce(const Affine& a) const {
  if (!a.terms.empty()) return false;
  for (size_t d = 0; d < space_.sizes.size(); ++d)
    if (a.coef[d] == 0 && space_.sizes[d] != 1) return false;
  return true;
}

bool VectorPlacement::termsPerChunk(const Affine& a) const {
  for (const auto& term : a.terms)
    if (chunk_values_.count(term.first) == 0) return false;
  return true;
}

std::string VectorPlacement::indexVariable(CodeSink& sink, const kir::Value& index_value,
                                           const kir::Value& expr) {
  if (!vectorize_ || chunk_values_.count(kir::printValue(index_value)) == 0)
    return Placement::indexVariable(sink, index_value, expr);
  const std::string var = sink.newVar("x");
  pre_chunk.declare(var, kir::indexType(), expr, kir::kConstUnused);
  chunk_values_.insert(var);
  return var;
}

bool VectorPlacement::isVectorAccess(const ElementRef& ref) const {
  const IndexExpr& off = ref.offset;
  if (!off.affine || ref.conditional || dims_.groups.empty() || !termsPerChunk(off.a)) return false;
  const size_t last = dims_.groups.size() - 1;
  return walksAsOne(off.a, last) &&
         off.a.coef[static_cast<size_t>(dims_.groups[last].back())] == 1 &&
         (!vectors_allowed || vectors_allowed(ref));
}

kir::Value VectorPlacement::offsetValue(const IndexExpr& off, const std::string& last,
                                        const std::string& role) const {
  if (!off.affine) return off.value(space_, role);
  std::vector<kir::Value> terms;
  // var * k, the coefficient named as IndexExpr::value names it (after `name`).
  auto term = [&](const std::string& var, const std::string& name, int64_t k) {
    if (k == 1)
      terms.push_back(kernelgen::indexVariable(var));
    else if (k != 0)
      terms.push_back(kernelgen::indexVariable(var) * space_.literal(k, role + "*" + name));
  };
  const size_t m = dims_.groups.size();
  for (size_t g = 0; g < m; ++g) {
    const auto& group = dims_.groups[g];
    if (walksAsOne(off.a, g)) {
      const auto inner = static_cast<size_t>(group.back());
      term(g + 1 == m ? last : fmt::format("m{}", g), space_.names[inner], off.a.coef[inner]);
    } else {
      for (int d : group) {
        const std::string& name = space_.names[static_cast<size_t>(d)];
        term(name, name, off.a.coef[static_cast<size_t>(d)]);
      }
    }
  }
  for (const auto& [var, k] : off.a.terms) term(var, var, k);
  if (off.a.c_param)  // a parameter even where 0 (Affine::c_param)
    terms.push_back(space_.parameter(off.a.c, role + "+"));
  else if (off.a.c != 0 || terms.empty())
    terms.push_back(space_.literal(off.a.c, role + "+"));
  return kir::sumOf(terms);
}

kir::Value VectorPlacement::load(CodeSink& sink, const ElementRef& ref) {
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
    const kir::Type ct = kir::computeTypeFor(ref.tv->dtype());
    // A load no row dim moves is made once per thread, above the row loop;
    // not with a partial last chunk, whose threads leave the chunk code early,
    // nor through a run-time index (declared per chunk).
    bool row_invariant = dims_.row_groups > 0 && !dims_.tailPossible() && off.a.terms.empty();
    for (size_t g = 0; g < static_cast<size_t>(dims_.row_groups); ++g)
      row_invariant &= zeroOn(off.a, g);
    kir::Block& target = row_invariant ? pre_row : pre_chunk;
    const kir::Value at = offsetValue(off, "mb", ref.pointer);
    const std::string key = fmt::format("{}@{}", ref.pointer, kir::printValue(at));
    if (vec > 1 && isVectorAccess(ref)) {
      auto it = hoisted_.find(key);
      if (it == hoisted_.end()) {
        const std::string var = sink.newVar("vl");
        const kir::Type type =
            kir::named(fmt::format("fusebox::Array<{}, {}>", storageType(ref.tv->dtype()), vec));
        kir::Value load =
            kir::loadVector(vec, kir::var(ref.pointer) + at,
                            load_hint == kir::LoadHint::None && stream_reads && readOnce(off.a)
                                ? kir::LoadHint::Streamed
                                : load_hint);
        if (loads_first && !row_invariant && off.a.terms.empty()) {
          chunk_loads.push_back({var, type, load});
          load = kir::subscript(kir::var(var + "s"), kir::var("k", kir::intType()));
        }
        target.declare(var, type, load, {.is_const = true});
        it = hoisted_.emplace(key, var).first;
        chunk_values_.insert(var);
      }
      return vectorElement(ref.tv, it->second);
    }
    // The same element for the whole chunk: one load above the element loop.
    if (zeroOn(off.a, dims_.groups.size() - 1)) {
      auto it = hoisted_.find(key);
      if (it == hoisted_.end()) {
        const std::string var = sink.newVar("hl");
        target.declare(var, ct, kir::castFrom(ct, kir::subscript(kir::var(ref.pointer), at)),
                       {.is_const = true});
        it = hoisted_.emplace(key, var).first;
        chunk_values_.insert(var);
      }
      return kir::var(it->second, ct);
    }
  }
  return scalarLoad(sink, ref, offsetValue(off, dims_.innermostName(), ref.pointer));
}

void VectorPlacement::loadInChunk() {
  for (const ChunkLoad& load : chunk_loads)
    for (const kir::Stmt& s : pre_chunk.stmt()->body)
      if (s->kind == kir::StmtKind::Declare && s->name == load.var) s->init = load.load;
  chunk_loads.clear();
}

void VectorPlacement::store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) {
  const int vec = dims_.vector_width;
  if (vectorize_ && vec > 1 && isVectorAccess(ref)) {
    const kir::Type st = kir::storageTypeFor(ref.tv->dtype());
    const kir::Value arr =
        pre_chunk.declare(fmt::format("so{}", ref.index),
                          kir::named(fmt::format("fusebox::Array<{}, {}>", st.spelling, vec)), {});
    sink.at().assign(kir::subscript(arr, kir::var("v", kir::intType())),
                     kir::storedAs(ref.tv->dtype(), value));
    kir::storeVector(post_chunk, vec,
                     kir::var(ref.pointer) + offsetValue(ref.offset, "mb", ref.pointer), arr);
    return;
  }
  scalarStore(sink, ref, offsetValue(ref.offset, dims_.innermostName(), ref.pointer), value);
}

}  // namespace fusebox::kernelgen
