// The pointwise kernel generator (codegen.h): the kernel around the
// per-element code the shared walker writes (kernelgen/element_writer.h),
// i.e. the parameter prelude, the merged-index arithmetic, the 1-D or 2-D
// loop structure, the vector chunk and its scalar tail.
#include "codegen.h"

#include <fmt/format.h>

#include <functional>
#include <string>

#include "kernelgen/element_writer.h"
#include "kernelgen/merged_dims.h"

namespace fusebox::pointwise {

using kernelgen::Buffer;
using kernelgen::ElementWriter;
using kernelgen::IterSpace;
using kernelgen::kernelSource;
using kernelgen::MergedDims;
using kernelgen::VectorPlacement;

std::vector<kernelgen::Access> collectAccesses(const Fusion& segment, const SegmentFacts& facts,
                                               RuntimeInfo& info) {
  const kernelgen::ParamLayout params(segment);
  ElementWriter w(segment, facts.sizes, params, info, IterSpace::named(facts.iter_sizes));
  if (facts.numel > 0) {
    kernelgen::ScalarPlacement scalar(w.space());
    w.storeOutputs(facts.output_strides, scalar);
  }
  return w.accesses();
}

namespace {

MergedDims mergedDims(const PointwiseParams& p) {
  MergedDims dims;
  dims.groups = p.groups;
  dims.extents = p.group_extents;
  dims.vector_width = p.vector_width;
  dims.row_groups = p.break_point;
  return dims;
}

}  // namespace

GeneratedKernel generateKernel(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& p, RuntimeInfo& info) {
  const kernelgen::ParamLayout params(segment);
  ElementWriter w(segment, facts.sizes, params, info, IterSpace::named(p.iter_sizes));
  const IterSpace& space = w.space();
  const MergedDims dims = mergedDims(p);
  const size_t m = dims.groups.size();
  const int v = p.vector_width;
  const bool tail = dims.tailPossible();

  // The element code twice: vectorized for whole chunks, scalar for a partial one.
  Buffer fast_pre_row, fast_pre, fast_body, fast_post, tail_body;
  if (facts.numel > 0) {
    VectorPlacement fast(dims, space, true);
    w.storeOutputs(facts.output_strides, fast);
    fast_pre_row = fast.pre_row;
    fast_pre = fast.pre_chunk;
    fast_body = w.sink.body;
    fast_post = fast.post_chunk;
    w.sink.body = Buffer{};
    if (tail) {
      VectorPlacement scalar(dims, space, false);
      w.storeOutputs(facts.output_strides, scalar);
      tail_body = w.sink.body;
    }
  }

  // One chunk: vector_width consecutive elements along the innermost merged dim.
  Buffer chunk;
  auto perElement = [&](Buffer& out, const Buffer& element) {
    if (m > 0) {
      out.line(fmt::format("[[maybe_unused]] const idx_t m{} = mb + v;", m - 1));
      kernelgen::declareIterIndices(out, dims, space, m - 1);
    }
    out.append(element);
  };
  if (tail) {
    chunk.line(fmt::format("if (mb + {} <= {}) {{", v, dims.extents.back()));
    ++chunk.indent;
  }
  chunk.append(fast_pre);
  chunk.line("FUSEBOX_UNROLL");
  chunk.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v));
  ++chunk.indent;
  perElement(chunk, fast_body);
  --chunk.indent;
  chunk.line("}");
  chunk.append(fast_post);
  if (tail) {
    --chunk.indent;
    chunk.line("} else {");
    ++chunk.indent;
    chunk.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v));
    ++chunk.indent;
    chunk.line(fmt::format("if (mb + v >= {}) break;", dims.extents.back()));
    perElement(chunk, tail_body);
    --chunk.indent;
    chunk.line("}");
    --chunk.indent;
    chunk.line("}");
  }

  Buffer k;
  k.indent = 1;
  k.line(fmt::format("using idx_t = {};", p.index32 ? "int32_t" : "int64_t"));
  params.declarePointers(k);
  for (size_t d = 0; d < space.rank(); ++d)
    if (space.sizes[d] == 1)
      k.line(fmt::format("[[maybe_unused]] const idx_t {} = 0;", space.names[d]));
  k.append(w.prologue);

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
    kernelgen::declareMergedIndices(k, dims, "s", 0, m);
    for (size_t g = 0; g + 1 < m; ++g) kernelgen::declareIterIndices(k, dims, space, g);
    k.append(chunk);
    --k.indent;
    k.line("}");
  } else {
    const size_t b = static_cast<size_t>(p.break_point);
    k.line(fmt::format(
        "const idx_t s = (static_cast<idx_t>(blockIdx.x) * static_cast<idx_t>(blockDim.x) + "
        "static_cast<idx_t>(threadIdx.x)) * {};",
        v));
    k.line(fmt::format("if (s >= {}) return;", p.innerExtent()));
    kernelgen::declareMergedIndices(k, dims, "s", b, m);
    for (size_t g = b; g + 1 < m; ++g) kernelgen::declareIterIndices(k, dims, space, g);
    k.line("// loads that no row dim moves: once per thread, reused for every row");
    k.append(fast_pre_row);
    k.line(fmt::format("for (idx_t r = 0; r < {}; ++r) {{", p.rows_per_block));
    ++k.indent;
    k.line(
        fmt::format("const idx_t o = static_cast<idx_t>(blockIdx.y) * {} + r;", p.rows_per_block));
    k.line(fmt::format("if (o >= {}) break;", p.outerExtent()));
    kernelgen::declareMergedIndices(k, dims, "o", 0, b);
    for (size_t g = 0; g < b; ++g) kernelgen::declareIterIndices(k, dims, space, g);
    k.append(chunk);
    --k.indent;
    k.line("}");
  }

  GeneratedKernel out;
  out.source = kernelSource("pointwise", p, k.text, /*uses_block_sync=*/false);
  out.bindings = params.bindings();
  return out;
}

}  // namespace fusebox::pointwise
