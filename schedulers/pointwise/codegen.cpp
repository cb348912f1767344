// The pointwise kernel generator (codegen.h): the kernel around the
// per-element code of element_writer.h, i.e. the parameter prelude, the
// merged-index arithmetic, the 1-D or 2-D loop structure, the vector chunk and
// its scalar tail.
#include "codegen.h"

#include <fmt/format.h>

#include <functional>
#include <string>

#include "codegen_ops.h"
#include "element_writer.h"

namespace fusebox::pointwise {

using detail::Buffer;
using detail::Writer;

std::vector<Access> collectAccesses(const Fusion& segment, const SegmentFacts& facts,
                                    RuntimeInfo& info) {
  Writer w(segment, facts, nullptr, info);
  if (facts.numel > 0) w.elementCode(false);
  return std::move(w.accesses());
}

namespace {

// Merged indices of groups [begin, end) from the linear position `lin` over
// them; the innermost merged index of the whole space is named `mb`.
void decompose(Buffer& out, const PointwiseParams& p, const std::string& lin, size_t begin,
               size_t end) {
  const size_t m = p.groups.size();
  int64_t inner = 1;
  for (size_t g = end; g-- > begin;) {
    std::string t = lin;
    if (inner != 1) t = fmt::format("({} / {})", t, inner);
    if (g != begin) t = fmt::format("({} % {})", t, p.group_extents[g]);
    out.line(fmt::format("[[maybe_unused]] const idx_t {} = {};",
                         g + 1 == m ? std::string("mb") : fmt::format("m{}", g), t));
    inner *= p.group_extents[g];
  }
}

// Iteration indices i<d> of the dims of group g from its merged index.
void iterIndices(Buffer& out, const PointwiseParams& p, size_t g) {
  const auto& dims = p.groups[g];
  int64_t inner = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    const size_t d = static_cast<size_t>(dims[j]);
    std::string t = fmt::format("m{}", g);
    if (inner != 1) t = fmt::format("({} / {})", t, inner);
    if (j != 0) t = fmt::format("({} % {})", t, p.iter_sizes[d]);
    out.line(fmt::format("[[maybe_unused]] const idx_t i{} = {};", d, t));
    inner *= p.iter_sizes[d];
  }
}

void append(Buffer& out, const Buffer& in) {
  const std::string pad(static_cast<size_t>(out.indent) * 2, ' ');
  size_t start = 0;
  while (start < in.text.size()) {
    const size_t end = in.text.find('\n', start);
    out.text += pad + in.text.substr(start, end - start) + "\n";
    start = end + 1;
  }
}

}  // namespace

std::string paramsComment(const PointwiseParams& p) {
  std::string out;
  const std::string text = p.toString();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "//   " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

GeneratedKernel generateKernel(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& p, RuntimeInfo& info) {
  Writer w(segment, facts, &p, info);
  const size_t m = p.groups.size();
  const int v = p.vector_width;
  const bool tail = v > 1 && m > 0 && p.group_extents.back() % v != 0;

  Buffer fast_pre_row, fast_pre, fast_body, fast_post, tail_body;
  if (facts.numel > 0) {
    w.elementCode(true);
    fast_pre_row = w.pre_row;
    fast_pre = w.pre_chunk;
    fast_body = w.body;
    fast_post = w.post_chunk;
    w.pre_row = w.pre_chunk = w.body = w.post_chunk = Buffer{};
    if (tail) {
      w.elementCode(false);
      tail_body = w.body;
    }
  }

  // One chunk: vector_width consecutive elements along the innermost merged dim.
  Buffer chunk;
  auto perElement = [&](Buffer& out, const Buffer& element) {
    if (m > 0) {
      out.line(fmt::format("[[maybe_unused]] const idx_t m{} = mb + v;", m - 1));
      iterIndices(out, p, m - 1);
    }
    append(out, element);
  };
  if (tail) {
    chunk.line(fmt::format("if (mb + {} <= {}) {{", v, p.group_extents.back()));
    ++chunk.indent;
  }
  append(chunk, fast_pre);
  chunk.line("FUSEBOX_UNROLL");
  chunk.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v));
  ++chunk.indent;
  perElement(chunk, fast_body);
  --chunk.indent;
  chunk.line("}");
  append(chunk, fast_post);
  if (tail) {
    --chunk.indent;
    chunk.line("} else {");
    ++chunk.indent;
    chunk.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v));
    ++chunk.indent;
    chunk.line(fmt::format("if (mb + v >= {}) break;", p.group_extents.back()));
    perElement(chunk, tail_body);
    --chunk.indent;
    chunk.line("}");
    --chunk.indent;
    chunk.line("}");
  }

  Buffer k;
  k.indent = 1;
  k.line(fmt::format("using idx_t = {};", p.index32 ? "int32_t" : "int64_t"));
  for (size_t i = 0; i < segment.inputs().size(); ++i) {
    const Val* in = segment.inputs()[i];
    if (!in->isTensor()) continue;
    const std::string st = storageType(in->dtype());
    const int slot = w.bindings()[i].slot;
    k.line(fmt::format(
        "[[maybe_unused]] const {}* __restrict__ in{} = static_cast<const {}*>(p.ptr[{}]);", st,
        slot, st, slot));
  }
  for (size_t o = 0; o < segment.outputs().size(); ++o) {
    const std::string st = storageType(segment.outputs()[o]->dtype());
    const int slot = w.bindings()[segment.inputs().size() + o].slot;
    k.line(fmt::format("[[maybe_unused]] {}* __restrict__ out{} = static_cast<{}*>(p.ptr[{}]);", st,
                       o, st, slot));
  }
  for (size_t d = 0; d < p.iter_sizes.size(); ++d)
    if (p.iter_sizes[d] == 1) k.line(fmt::format("[[maybe_unused]] const idx_t i{} = 0;", d));
  append(k, w.prologue);

  if (facts.numel == 0) {
    k.line("// no elements: nothing to do");
  } else if (p.break_point == 0) {
    k.line("FUSEBOX_UNROLL");
    k.line(fmt::format("for (int u = 0; u < {}; ++u) {{", p.unroll));
    ++k.indent;
    k.line(
        fmt::format("const idx_t s = ((static_cast<idx_t>(blockIdx.x) * {} + u) * "
                    "static_cast<idx_t>(blockDim.x) "
                    "+ static_cast<idx_t>(threadIdx.x)) * {};",
                    p.unroll, v));
    k.line(fmt::format("if (s >= {}) break;", facts.numel));
    if (m == 0) k.line("[[maybe_unused]] const idx_t mb = s;");
    decompose(k, p, "s", 0, m);
    for (size_t g = 0; g + 1 < m; ++g) iterIndices(k, p, g);
    append(k, chunk);
    --k.indent;
    k.line("}");
  } else {
    const size_t b = static_cast<size_t>(p.break_point);
    k.line(fmt::format(
        "const idx_t s = (static_cast<idx_t>(blockIdx.x) * static_cast<idx_t>(blockDim.x) + "
        "static_cast<idx_t>(threadIdx.x)) * {};",
        v));
    k.line(fmt::format("if (s >= {}) return;", p.innerExtent()));
    decompose(k, p, "s", b, m);
    for (size_t g = b; g + 1 < m; ++g) iterIndices(k, p, g);
    k.line("// loads that no row dim moves: once per thread, reused for every row");
    append(k, fast_pre_row);
    k.line(fmt::format("for (idx_t r = 0; r < {}; ++r) {{", p.rows_per_block));
    ++k.indent;
    k.line(
        fmt::format("const idx_t o = static_cast<idx_t>(blockIdx.y) * {} + r;", p.rows_per_block));
    k.line(fmt::format("if (o >= {}) break;", p.outerExtent()));
    decompose(k, p, "o", 0, b);
    for (size_t g = 0; g < b; ++g) iterIndices(k, p, g);
    append(k, chunk);
    --k.indent;
    k.line("}");
  }

  const std::string body = k.text;
  const std::string name =
      fmt::format("fusebox_pointwise_{:016x}", std::hash<std::string>()(body) & 0xffffffffffffull);
  GeneratedKernel out;
  out.source.name = name;
  out.source.source = fmt::format(
      "// Generated by the fusebox pointwise scheduler.\n"
      "{}"
      "#include <fusebox_runtime.cuh>\n\n"
      "extern \"C\" __global__ void {}([[maybe_unused]] fusebox::KernelParams p) {{\n{}}}\n",
      paramsComment(p), name, body);
  out.source.uses_block_sync = false;
  out.bindings = w.bindings();
  return out;
}

}  // namespace fusebox::pointwise
