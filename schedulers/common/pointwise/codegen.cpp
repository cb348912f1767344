// The pointwise kernel generator (codegen.h): the kernel around the
// per-element code the shared walker writes (kernelgen/element_writer.h),
// i.e. the parameter prelude, the merged-index arithmetic, the 1-D or 2-D
// loop structure, the vector chunk and its scalar tail, built through the
// kernel IR (docs/kernel-ir.md).
#include "pointwise/codegen.h"

#include <fmt/format.h>

#include <functional>
#include <string>
#include <tuple>

#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/merged_dims.h"

namespace fusebox::pointwise {

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

// The longest loop over a block's rows that is unrolled (rows_per_block is 2
// unless an option or the grid's y limit asks for more).
constexpr int64_t kMaxUnrolledRows = 8;

MergedDims mergedDims(const PointwiseParams& p) {
  MergedDims dims;
  dims.groups = p.groups;
  dims.extents = p.group_extents;
  dims.vector_width = p.vector_width;
  dims.row_groups = p.break_point;
  return dims;
}

// What the element writer wrote: the element code twice, vectorized for
// whole chunks (with the loads above the row loop and the chunk, and the
// stores after it) and scalar for a partial chunk.
struct ElementCode {
  kir::Block fast_pre_row, fast_pre, fast_body, fast_post, tail_body;
};

// The kernel's shape: its merged dims, iteration space and size literals.
struct KernelShape {
  const MergedDims& dims;
  const IterSpace& space;
  SizeLiterals& lits;
  size_t merged() const { return dims.groups.size(); }
  // The innermost extent's role, as declareMergedIndices names it.
  std::string lastExtent() const {
    return merged() > 0 ? fmt::format("m{}", merged() - 1) : std::string();
  }
};

// One chunk: vector_width consecutive elements along the innermost merged
// dim, vectorized when whole, element by element when a tail may be partial.
kir::Block buildChunk(const KernelShape& shape, const ElementCode& code, int v) {
  const kir::Value vv = kir::var("v", kir::intType());
  const kir::Value mb = kir::var("mb", kir::indexType());
  auto perElement = [&](kir::Block& out, const kir::Block& element) {
    kernelgen::declareChunkElementIndices(out, shape.dims, shape.space);
    out.append(element);
  };
  auto lastExtent = [&] { return shape.lits.value(shape.dims.extents.back(), shape.lastExtent()); };
  const bool tail = shape.dims.tailPossible();
  kir::Block chunk;
  kir::Block fast_chunk = chunk, tail_chunk;
  if (tail) std::tie(fast_chunk, tail_chunk) = chunk.ifElse(mb + kir::lit(v) <= lastExtent());
  fast_chunk.append(code.fast_pre);
  kir::Block fast_element =
      fast_chunk.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v), {}, kir::Unroll::Full);
  perElement(fast_element, code.fast_body);
  fast_chunk.append(code.fast_post);
  if (tail) {
    kir::Block tail_element = tail_chunk.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v));
    tail_element.ifThen(mb + vv >= lastExtent(), kir::BodyStyle::SameLine).breakLoop();
    perElement(tail_element, code.tail_body);
  }
  return chunk;
}

// The loops around the chunk: one dimension unrolled over `unroll` chunks per
// thread, or rows (blockIdx.y) over a thread's position in the inner dims.
kir::Block buildLoops(const PointwiseParams& p, const SegmentFacts& facts, const KernelShape& shape,
                      const ElementCode& code, const kir::Block& chunk) {
  const size_t m = shape.merged();
  const int v = p.vector_width;
  const kir::Type idx = kir::indexType();
  const kir::Value block_x = kir::cast(idx, kir::blockIdx('x'));
  const kir::Value threads = kir::cast(idx, kir::blockDim('x'));
  const kir::Value thread = kir::cast(idx, kir::threadIdx('x'));
  kir::Block k;
  if (facts.numel == 0) {
    k.comment("no elements: nothing to do");
  } else if (p.break_point == 0) {
    kir::Block unrolled =
        k.forLoop("u", kir::intType(), kir::lit(0), kir::lit(p.unroll), {}, kir::Unroll::Full);
    const kir::Value s = unrolled.declare(
        "s", idx, ((block_x * kir::lit(p.unroll) + kir::var("u")) * threads + thread) * kir::lit(v),
        {.is_const = true});
    unrolled.ifThen(s >= shape.lits.value(facts.numel, "numel"), kir::BodyStyle::SameLine)
        .breakLoop();
    if (m == 0) unrolled.declare("mb", idx, s, kir::kConstUnused);
    kernelgen::declareMergedIndices(unrolled, shape.dims, "s", 0, m, &shape.lits);
    for (size_t g = 0; g + 1 < m; ++g)
      kernelgen::declareIterIndices(unrolled, shape.dims, shape.space, g);
    unrolled.append(chunk);
  } else {
    const size_t b = static_cast<size_t>(p.break_point);
    const kir::Value s =
        k.declare("s", idx, (block_x * threads + thread) * kir::lit(v), {.is_const = true});
    k.ifThen(s >= shape.lits.value(p.innerExtent(), "inner"), kir::BodyStyle::SameLine).ret();
    kernelgen::declareMergedIndices(k, shape.dims, "s", b, m, &shape.lits);
    for (size_t g = b; g + 1 < m; ++g) kernelgen::declareIterIndices(k, shape.dims, shape.space, g);
    k.comment(p.rows_per_block == 1 ? "loads that no row dim moves"
                                    : "loads that no row dim moves: once per thread, reused for "
                                      "every row");
    k.append(code.fast_pre_row);
    const kir::Value outer = shape.lits.value(p.outerExtent(), "outer");
    kir::Block row = k;
    if (p.rows_per_block == 1) {  // a block a row (the structure says so: no parameter)
      const kir::Value o =
          row.declare("o", idx, kir::cast(idx, kir::blockIdx('y')), {.is_const = true});
      row.ifThen(o >= outer, kir::BodyStyle::SameLine).ret();
    } else {
      // Rows per block is a size-derived choice no code depends on: a parameter too.
      const kir::Value rows = shape.lits.value(p.rows_per_block, "rows");
      // Rows that fill every block exactly need no bound check, and a short
      // loop without one unrolls: each row's loads issue before the first
      // row's math, more bytes in flight per thread.
      const bool exact = !shape.lits.symbolic() && p.outerExtent() % p.rows_per_block == 0;
      row = k.forLoop(
          "r", idx, kir::lit(0), rows, {},
          exact && p.rows_per_block <= kMaxUnrolledRows ? kir::Unroll::Full : kir::Unroll::None);
      const kir::Value o = row.declare(
          "o", idx, kir::cast(idx, kir::blockIdx('y')) * rows + kir::var("r"), {.is_const = true});
      if (!exact) row.ifThen(o >= outer, kir::BodyStyle::SameLine).breakLoop();
    }
    kernelgen::declareMergedIndices(row, shape.dims, "o", 0, b, &shape.lits);
    for (size_t g = 0; g < b; ++g) kernelgen::declareIterIndices(row, shape.dims, shape.space, g);
    row.append(chunk);
  }
  return k;
}

// The kernel, or why its parameters do not fit KernelParams.
struct Generated {
  GeneratedKernel kernel;
  std::string problem;
};

Generated generate(const Fusion& segment, const SegmentFacts& facts, const PointwiseParams& p,
                   RuntimeInfo& info) {
  kernelgen::ParamLayout params(segment);
  for (const InPlaceRequest& r : p.in_place) params.shareMemory(r.input, r.output);
  // Sizes, strides and extents print through `lits`: literals, or parameters
  // when the params ask for a kernel over symbolic sizes.
  SizeLiterals lits(p.shape_mode, params.intSlots(), p.index32);
  IterSpace iter_space = IterSpace::named(p.iter_sizes);
  iter_space.literals = &lits;
  ElementWriter w(segment, facts.sizes, params, info, std::move(iter_space));
  for (const InPlaceRequest& r : p.in_place)
    w.readFirst(segment.inputs()[r.input]->as<TensorView>());
  const IterSpace& space = w.space();
  const MergedDims dims = mergedDims(p);

  ElementCode code;
  if (facts.numel > 0) {
    VectorPlacement fast(dims, space, true);
    // Chunks start on multiples of the width (heuristics.cpp): pad / cat
    // checks that hold alike over one are made, and read under, once per chunk.
    fast.uniform_branches = true;
    w.storeOutputs(facts.output_strides, fast);
    fast.finishChunk();
    code.fast_pre_row = fast.pre_row;
    code.fast_pre = fast.pre_chunk;
    code.fast_body = w.sink.body;
    code.fast_post = fast.post_chunk;
    w.sink.reset();
    if (dims.tailPossible()) {
      VectorPlacement scalar(dims, space, false);
      w.storeOutputs(facts.output_strides, scalar);
      code.tail_body = w.sink.body;
    }
  }

  // Literals are named in the order the kernel text meets them: the chunk's
  // first (the loops hold it), and the declarations above the loops (size
  // parameters included) once every size has been printed.
  const KernelShape shape{dims, space, lits};
  const kir::Block chunk = buildChunk(shape, code, p.vector_width);
  const kir::Block k = buildLoops(p, facts, shape, code, chunk);
  kir::Block top;
  params.declareKernelTop(top, p.index32, lits);
  for (size_t d = 0; d < space.rank(); ++d)
    if (space.sizes[d] == 1)
      top.declare(space.names[d], kir::indexType(), kir::lit(0), kir::kConstUnused);
  top.append(w.prologue);
  top.append(k);

  Generated out;
  out.problem = kernelgen::paramLimitProblem(segment, 0, lits.count());
  if (!out.problem.empty()) return out;
  out.kernel.source = kernelSource("pointwise", p.structure(), kir::printCuda(top),
                                   /*uses_block_sync=*/false);
  out.kernel.kernel_ir = kir::printIr(top);
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
