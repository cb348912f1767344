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
using kernelgen::SizeLiterals;
using kernelgen::VectorPlacement;

std::vector<kernelgen::Access> collectAccesses(const Fusion& segment, const SegmentFacts& facts,
                                               RuntimeInfo& info) {
  const kernelgen::ParamLayout params(segment);
  // Over symbolic sizes the walk marks the offsets' constants that are
  // parameters (Affine::c_param: kernelgen::shapeClasses reads them).
  SizeLiterals lits(info.shapeMode(), params.intSlots(), true);
  IterSpace space = IterSpace::named(facts.iter_sizes);
  space.literals = &lits;
  ElementWriter w(segment, facts.sizes, params, info, std::move(space));
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

// The kernel, or why its parameters do not fit KernelParams.
struct Generated {
  GeneratedKernel kernel;
  std::string problem;
};

Generated generate(const Fusion& segment, const SegmentFacts& facts, const PointwiseParams& p,
                   RuntimeInfo& info) {
  const kernelgen::ParamLayout params(segment);
  // Sizes, strides and extents print through `lits`: literals, or parameters
  // when the params ask for a kernel over symbolic sizes.
  SizeLiterals lits(p.shape_mode, params.intSlots(), p.index32);
  IterSpace iter_space = IterSpace::named(p.iter_sizes);
  iter_space.literals = &lits;
  ElementWriter w(segment, facts.sizes, params, info, std::move(iter_space));
  const IterSpace& space = w.space();
  const MergedDims dims = mergedDims(p);
  const size_t m = dims.groups.size();
  const int v = p.vector_width;
  const bool tail = dims.tailPossible();
  // The innermost extent's role, as declareMergedIndices names it.
  const std::string last_extent = m > 0 ? fmt::format("m{}", m - 1) : std::string();

  // The element code twice: vectorized for whole chunks, scalar for a partial one.
  Buffer fast_pre_row, fast_pre, fast_body, fast_post, tail_body;
  if (facts.numel > 0) {
    VectorPlacement fast(dims, space, true);
    // Chunks start on multiples of the width (heuristics.cpp): pad / cat
    // checks that hold alike over one are made, and read under, once per chunk.
    fast.uniform_branches = true;
    w.storeOutputs(facts.output_strides, fast);
    fast.finishChunk();
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
    chunk.line(
        fmt::format("if (mb + {} <= {}) {{", v, lits.text(dims.extents.back(), last_extent)));
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
    chunk.line(
        fmt::format("if (mb + v >= {}) break;", lits.text(dims.extents.back(), last_extent)));
    perElement(chunk, tail_body);
    --chunk.indent;
    chunk.line("}");
    --chunk.indent;
    chunk.line("}");
  }

  // The loops; the declarations above them (size parameters included) follow
  // once every size has been printed.
  Buffer k;
  k.indent = 1;

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
    k.line(fmt::format("if (s >= {}) break;", lits.text(facts.numel, "numel")));
    if (m == 0) k.line("[[maybe_unused]] const idx_t mb = s;");
    kernelgen::declareMergedIndices(k, dims, "s", 0, m, &lits);
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
    k.line(fmt::format("if (s >= {}) return;", lits.text(p.innerExtent(), "inner")));
    kernelgen::declareMergedIndices(k, dims, "s", b, m, &lits);
    for (size_t g = b; g + 1 < m; ++g) kernelgen::declareIterIndices(k, dims, space, g);
    k.line("// loads that no row dim moves: once per thread, reused for every row");
    k.append(fast_pre_row);
    // Rows per block is a size-derived choice no code depends on: a parameter too.
    const std::string rows = lits.text(p.rows_per_block, "rows");
    k.line(fmt::format("for (idx_t r = 0; r < {}; ++r) {{", rows));
    ++k.indent;
    k.line(fmt::format("const idx_t o = static_cast<idx_t>(blockIdx.y) * {} + r;", rows));
    k.line(fmt::format("if (o >= {}) break;", lits.text(p.outerExtent(), "outer")));
    kernelgen::declareMergedIndices(k, dims, "o", 0, b, &lits);
    for (size_t g = 0; g < b; ++g) kernelgen::declareIterIndices(k, dims, space, g);
    k.append(chunk);
    --k.indent;
    k.line("}");
  }

  Buffer top;
  top.indent = 1;
  top.line(fmt::format("using idx_t = {};", p.index32 ? "int32_t" : "int64_t"));
  params.declarePointers(top);
  lits.declare(top);
  for (size_t d = 0; d < space.rank(); ++d)
    if (space.sizes[d] == 1)
      top.line(fmt::format("[[maybe_unused]] const idx_t {} = 0;", space.names[d]));
  top.append(w.prologue);

  Generated out;
  out.problem = kernelgen::paramLimitProblem(segment, 0, lits.count());
  if (!out.problem.empty()) return out;
  out.kernel.source = kernelSource("pointwise", p.structure(), top.text + k.text,
                                   /*uses_block_sync=*/false);
  out.kernel.bindings = params.bindings();
  lits.addBindings(out.kernel.bindings);
  out.kernel.index_checks = w.indexChecks();
  return out;
}

}  // namespace

GeneratedKernel generateKernel(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& p, RuntimeInfo& info) {
  Generated g = generate(segment, facts, p, info);
  FUSEBOX_USER_CHECK(g.problem.empty(), "pointwise: {}", g.problem);
  return std::move(g.kernel);
}

std::string kernelParamProblem(const Fusion& segment, const SegmentFacts& facts,
                               const PointwiseParams& p, RuntimeInfo& info) {
  return generate(segment, facts, p, info).problem;
}

}  // namespace fusebox::pointwise
