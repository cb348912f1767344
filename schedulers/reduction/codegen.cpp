// The reduction kernel generator (codegen.h). One thread block covers
// keptPerBlock() kept elements; x walks the innermost dim in vectors.
//
//   Inner: thread (x, y) reduces row blockIdx.x * block_y + y over the
//          reduced elements x * V, (x + block_x * splits) * V, ...;
//          the row's threads combine (a lanes combine). Rows no vector
//          divides (ReductionParams::rowEdges) start the vectors at `head`
//          and end them at `body_end`; the first block of the row's split
//          takes the edge elements (head and tail), one a thread.
//   Outer: thread (x, y) accumulates columns (blockIdx.x * block_x + x) * V
//          + [0, V) over reduced rows y, y + block_y * splits, ...; the
//          block's rows combine in a fixed order (a rows combine).
// With splits > 1 each block also stores its partials to scratch memory and
// the last block of its column of blocks combines them (a grid combine).
// The combines are kernel IR nodes (kernel_ir/combine.h), lowered once for
// every kernel that combines.
// Every reducing loop runs unrolled steps of `unroll` chunks while whole
// steps fit, then single chunks, so the main loop needs no bounds checks.
#include "codegen.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>

#include "kernel_ir/combine.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/layout_choice.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"
#include "kernelgen/row_edge_code.h"
#include "reduction/accumulator.h"

namespace fusebox::reduction {

using namespace fusebox::kernelgen;

namespace {

const TensorView* inputOf(const Expr* e) {
  return e->input(0)->as<TensorView>();
}

// The space of the epilogue: the kept dims of the reduction input, named as
// in the loop's space (so the loop's kept indices serve both).
IterSpace keptSpace(const SegmentFacts& facts, SizeLiterals* literals) {
  IterSpace s;
  s.literals = literals;
  for (size_t d = 0; d < facts.input_sizes.size(); ++d)
    if (!facts.reduced[d]) {
      s.sizes.push_back(facts.input_sizes[d]);
      s.names.push_back(fmt::format("i{}", d));
    }
  return s;
}

// The space of the reducing loop: the reduction input's domain.
IterSpace loopSpace(const SegmentFacts& facts, SizeLiterals* literals) {
  IterSpace s = IterSpace::named(facts.input_sizes, "i");
  s.literals = literals;
  return s;
}

// One dim per merged dim, with the vectorized innermost dim last: the loop's
// VectorPlacement then names dim g's index m<g> and the chunk's start mb.
// An outer reduction's reduced dims are one merged dim, whose index is the
// loop's position q: an access that walks them as one (a contiguous input)
// reads at q times its stride, and one that does not at its dims' own
// indices. Over symbolic sizes that saves dividing q into the dims' indices
// only to multiply them again (two run-time divisions a row).
MergedDims loopDims(const ReductionParams& p) {
  MergedDims md;
  auto eachDim = [&](const std::vector<int>& dims) {
    for (int d : dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  };
  if (p.kind == ReductionKind::Inner) {
    eachDim(p.kept_dims);
    eachDim(p.reduced_dims);
  } else {
    if (p.reduced_dims.size() > 1) {
      md.groups.push_back(p.reduced_dims);
      md.extents.push_back(p.reduced_extent);
    } else {
      eachDim(p.reduced_dims);
    }
    eachDim(p.kept_dims);
  }
  md.vector_width = p.vector_width;
  return md;
}

// Every size-derived integer of the kernel prints through lits_: a literal,
// or a parameter when the params ask for a kernel over symbolic sizes. The
// kernel is built as kernel IR; the element math is the element writer's
// text, held as such.
class KernelWriter {
 public:
  KernelWriter(const Fusion& segment, const ReductionStructure& st, const SegmentFacts& facts,
               const ReductionParams& p, RuntimeInfo& info)
      : f_(segment),
        st_(st),
        facts_(facts),
        p_(p),
        layout_(segment),
        lits_(p.shape_mode, layout_.intSlots(), p.index32),
        w_(segment, facts.sizes, layout_, info, loopSpace(facts, &lits_)),
        md_(loopDims(p)),
        inner_(p.kind == ReductionKind::Inner),
        v_(p.vector_width) {
    for (const Expr* r : st.reductions) accs_.push_back(accumulatorFor(r));
  }

  // The kernel, or why its parameters do not fit KernelParams.
  GeneratedKernel write(std::string& problem);

 private:
  kir::Value size(int64_t value, const std::string& role,
                  SizeLiterals::Type type = SizeLiterals::Type::Index) {
    return lits_.value(value, role, type);
  }
  kir::Value accVar(size_t k) const { return kir::var(fmt::format("acc{}", k)); }
  // Accumulator k's state of the current element (Outer: of vector lane v).
  kir::Value acc(size_t k) const {
    return inner_ ? accVar(k) : kir::subscript(accVar(k), kir::var("v"));
  }
  kir::CombineState state(size_t k) const {
    const Accumulator& A = accs_[k];
    return {accVar(k), kir::named(A.stateType()), A.functor, A.identity()};
  }
  // The threads that store the block's results: the first of a row (Inner)
  // or of a column (Outer), when their kept element exists.
  kir::Value lead() const {
    return kir::threadIdx(inner_ ? 'x' : 'y') == kir::lit(0) && kir::var("active");
  }

  // The element loop of one chunk (V elements along the innermost dim), or
  // with `edge` of one element of a row's scalar edge.
  kir::Block chunk(bool edge = false);
  // The reducing loop over the reduced extent, up to `end` (this thread's
  // share).
  void reducingLoop(kir::Block& k, const kir::Value& start, const kir::Value& end, int64_t stride,
                    const kir::Block& chunk);
  // A row's edge elements, each by one of its threads (rowEdges).
  void edgeLoop(kir::Block& k, const kir::Block& chunk);
  void threadCombine(kir::Block& k);
  void gridCombine(kir::Block& k);
  void epilogue(kir::Block& k);

  const Fusion& f_;
  const ReductionStructure& st_;
  const SegmentFacts& facts_;
  const ReductionParams& p_;
  ParamLayout layout_;
  SizeLiterals lits_;
  ElementWriter w_;
  MergedDims md_;
  bool inner_;
  int v_;
  std::vector<Accumulator> accs_;
  bool block_sync_ = false;
};

kir::Block KernelWriter::chunk(bool edge) {
  MergedDims md = md_;
  if (edge) md.vector_width = 1;
  VectorPlacement placement(md, w_.space(), !edge);
  placement.stream_reads = p_.streamed_loads;
  if (p_.rowEdges()) {
    // Vectors only where the head aligns them (the lead's and those that
    // agree with it); the rest element by element.
    placement.vectors_allowed = vectorsAlignedBy(p_.rowHead(), p_.reduced_dims.back());
  }
  w_.sink.reset();
  w_.beginElement();
  for (size_t k = 0; k < accs_.size(); ++k) {
    const TensorView* in = inputOf(accs_[k].expr);
    accs_[k].update(w_.sink.at(), acc(k), w_.value(in, w_.iterationIndexOf(in), placement));
  }
  for (const TensorView* out : st_.loop_outputs) {
    const auto k = static_cast<size_t>(std::find(f_.outputs().begin(), f_.outputs().end(), out) -
                                       f_.outputs().begin());
    w_.store(k, w_.iterationIndexOf(out), facts_.output_strides[k], placement);
  }
  kir::Block c;
  // This chunk's reduced indices (Inner: the innermost as the chunk's start
  // mb); the kept ones are declared once, outside the loop.
  declareDimIndices(c, p_.reduced_dims, p_.sizes, "q", inner_ ? "mb" : "", &lits_);
  const size_t m = md_.groups.size();
  for (size_t g = 0; g + 1 < m; ++g)
    c.declare(fmt::format("m{}", g), kir::indexType(),
              md_.groups[g].size() > 1 ? kir::var("q")  // the reduced dims merged (loopDims)
                                       : kir::var(fmt::format("i{}", md_.groups[g][0])),
              kir::kConstUnused);
  c.append(placement.pre_chunk);
  kir::Block element =
      c.forLoop("v", kir::intType(), kir::lit(0), kir::lit(md.vector_width), {}, kir::Unroll::Full);
  if (m > 0) {
    const kir::Value last = element.declare(fmt::format("m{}", m - 1), kir::indexType(),
                                            kir::var("mb") + kir::var("v"), {.is_const = true});
    element.declare(fmt::format("i{}", md_.groups[m - 1][0]), kir::indexType(), last,
                    kir::kConstUnused);
  }
  element.append(w_.sink.body);
  c.append(placement.post_chunk);
  return c;
}

void KernelWriter::reducingLoop(kir::Block& k, const kir::Value& start, const kir::Value& extent,
                                int64_t stride, const kir::Block& chunk) {
  // The stride has the number of splits in it: a parameter too.
  const kir::Value step = size(stride, "stride");
  const kir::Value r = k.declare("r", kir::indexType(), start);
  if (p_.unroll > 1) {
    kir::Block steps = k.forExisting(
        r, r + size((p_.unroll - 1) * stride, fmt::format("stride*{}", p_.unroll - 1)) < extent,
        size(p_.unroll * stride, fmt::format("stride*{}", p_.unroll)));
    kir::Block unrolled =
        steps.forLoop("u", kir::intType(), kir::lit(0), kir::lit(p_.unroll), {}, kir::Unroll::Full);
    unrolled.declare("q", kir::indexType(), r + kir::var("u") * step, {.is_const = true});
    unrolled.append(chunk);
  }
  kir::Block rest = k.forExisting(r, r < extent, step);
  rest.declare("q", kir::indexType(), r, {.is_const = true});
  rest.append(chunk);
}

void KernelWriter::edgeLoop(kir::Block& k, const kir::Block& chunk) {
  kir::Block edge = p_.splits() > 1 ? k.ifThen(kir::blockIdx('y') == kir::lit(0)) : k;
  kir::Block each = edge.forLoop("e", kir::indexType(), kir::asIndex(kir::threadIdx('x')),
                                 kir::var("edge_count", kir::indexType()), kir::lit(p_.block_x));
  each.declare("q", kir::indexType(), edgePosition(kir::var("e", kir::indexType())),
               {.is_const = true});
  each.append(chunk);
}

// The block's threads that share kept elements combine their states: Inner
// across x (the row's lanes), Outer across y (the block's rows, in order).
void KernelWriter::threadCombine(kir::Block& k) {
  const kir::Value smem = kir::var("fusebox_reduction_smem");
  if (inner_) {
    if (p_.block_x == 1) return;
    block_sync_ = true;
    // Every reduction's states at once: one set of barriers for all.
    for (size_t first = 0; first < accs_.size(); first += kir::kMaxLanesStates) {
      kir::LanesCombine c{state(first), p_.block_x, smem};
      for (size_t a = first + 1; a < std::min(accs_.size(), first + kir::kMaxLanesStates); ++a)
        c.more.push_back(state(a));
      kir::combineLanes(k, std::move(c));
    }
    return;
  }
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (p_.block_y == 1) continue;
    block_sync_ = true;
    kir::combineRows(k, {.s = state(a),
                         .rows = p_.block_y,
                         .columns = p_.block_x,
                         .width = v_,
                         .smem = smem,
                         .broadcast = false});
  }
}

// Partials to scratch ([splits][kept] per reduction), then the last block of
// this blockIdx.x combines them; the others are done.
void KernelWriter::gridCombine(kir::Block& k) {
  if (p_.splits() <= 1) return;
  block_sync_ = true;
  const int64_t kept = p_.kept_extent;
  int64_t offset = 0;
  std::vector<int64_t> offsets;
  for (const Accumulator& A : accs_) {
    offsets.push_back(offset);
    offset += (p_.splits() * kept * A.state_bytes + 15) / 16 * 16;
  }
  const int64_t tickets = offset;
  offset += int64_t{p_.grid[0]} * 4;
  const kir::Type bytes = kir::pointerTo(kir::named("unsigned char"));
  const kir::Value partials =
      k.declare("partials", kir::constPointerTo(kir::named("unsigned char")),
                kir::cast(bytes, kir::var(layout_.addScratch(offset))));
  kir::GridCombine grid;
  grid.protocol = kir::GridProtocol::LastBlock;
  for (size_t a = 0; a < accs_.size(); ++a) {
    const kir::Type type = kir::named(accs_[a].stateType());
    const kir::Value own = k.declare(
        fmt::format("partials{}", a), kir::constPointerTo(type),
        kir::reinterpretAs(
            kir::pointerTo(type),
            partials + size(offsets[a], fmt::format("partials{}", a), SizeLiterals::Type::Int64)));
    grid.states.push_back({state(a), own});
  }
  grid.width = inner_ ? 0 : v_;
  grid.group = kir::asIndex(kir::blockIdx('y'));
  grid.groups = size(p_.splits(), "splits");
  // Over symbolic sizes the count is a parameter: the kernel must not hold it.
  if (!lits_.symbolic()) grid.known_groups = p_.splits();
  grid.stride = size(kept, "kept");
  grid.own = kir::var(inner_ ? "row" : "c");
  grid.writes = lead();
  grid.reads = kir::var("active");
  grid.walker = kir::asIndex(kir::threadIdx(inner_ ? 'x' : 'y'));
  grid.walkers = inner_ ? p_.block_x : p_.block_y;
  grid.sync = kir::reinterpretAs(kir::pointerTo(kir::named("unsigned int")),
                                 partials + size(tickets, "tickets", SizeLiterals::Type::Int64)) +
              kir::blockIdx('x');
  grid.blocks = kir::gridDim('y');
  kir::combineGrid(k, std::move(grid));
  threadCombine(k);
}

void KernelWriter::epilogue(kir::Block& k) {
  IterSpace kept = keptSpace(facts_, &lits_);
  w_.setSpace(kept);
  w_.sink.reset();
  w_.beginElement();
  for (size_t a = 0; a < accs_.size(); ++a) {
    const Expr* r = accs_[a].expr;
    for (size_t o = 0; o < r->outputs().size(); ++o) {
      const auto* tv = r->output(o)->as<TensorView>();
      const Index expected = w_.iterationIndexOf(tv);
      const kir::Value value = accs_[a].result(o, acc(a));
      w_.provide(tv, [tv, expected, value, &kept](const Index& at) {
        // The epilogue maps each kept element to itself (structure.cpp
        // refuses ops that move elements after a reduction).
        FUSEBOX_CHECK(indexKey(at, kept) == indexKey(expected, kept),
                      "reduction: the epilogue reads {} at another element", tv->toString());
        return value;
      });
    }
  }
  ScalarPlacement placement(w_.space());
  for (const TensorView* out : st_.reduced_outputs) {
    const auto o = static_cast<size_t>(std::find(f_.outputs().begin(), f_.outputs().end(), out) -
                                       f_.outputs().begin());
    w_.store(o, w_.iterationIndexOf(out), facts_.output_strides[o], placement);
  }
  kir::Block stores = k.ifThen(lead());
  if (inner_) {
    declareDimIndices(stores, p_.kept_dims, p_.sizes, "row", "", &lits_);
    stores.append(w_.sink.body);
    return;
  }
  declareDimIndices(stores, p_.kept_dims, p_.sizes, "c", "cb", &lits_);
  kir::Block lane = stores.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v_));
  if (!p_.kept_dims.empty())
    lane.declare(fmt::format("i{}", p_.kept_dims.back()), kir::indexType(),
                 kir::var("cb") + kir::var("v"), kir::kConstUnused);
  lane.append(w_.sink.body);
}

GeneratedKernel KernelWriter::write(std::string& problem) {
  kir::Block main;
  const kir::Block element_chunk = chunk();
  const kir::Block edge_chunk = p_.rowEdges() ? chunk(true) : kir::Block();
  const kir::Value kept = size(p_.kept_extent, "kept");

  // Thread and block position; `active`: this thread's kept element exists.
  if (inner_) {
    const kir::Value row = main.declare(
        "row", kir::indexType(),
        kir::asIndex(kir::blockIdx('x')) * kir::lit(p_.block_y) + kir::asIndex(kir::threadIdx('y')),
        {.is_const = true});
    main.declare("active", kir::boolType(), row < kept, {.is_const = true});
    for (size_t a = 0; a < accs_.size(); ++a)
      main.declare(fmt::format("acc{}", a), kir::named(accs_[a].stateType()), accs_[a].identity());
  } else {
    const kir::Value c = main.declare("c", kir::indexType(),
                                      (kir::asIndex(kir::blockIdx('x')) * kir::lit(p_.block_x) +
                                       kir::asIndex(kir::threadIdx('x'))) *
                                          kir::lit(v_),
                                      {.is_const = true});
    main.declare("active", kir::boolType(), c < kept, {.is_const = true});
    for (size_t a = 0; a < accs_.size(); ++a) {
      main.declareArray(fmt::format("acc{}", a), kir::named(accs_[a].stateType()), v_);
      main.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v_), {}, kir::Unroll::None,
                   kir::BodyStyle::SameLine)
          .assign(acc(a), accs_[a].identity());
    }
  }
  kir::Block reducing = main.ifThen(kir::var("active"));
  if (inner_) {
    declareDimIndices(reducing, p_.kept_dims, p_.sizes, "row", "", &lits_);
    kir::Value start = (kir::asIndex(kir::blockIdx('y')) * kir::lit(p_.block_x) +
                        kir::asIndex(kir::threadIdx('x'))) *
                       kir::lit(v_);
    kir::Value end = size(p_.reduced_extent, "reduced");
    if (p_.rowEdges()) {
      declareRowEdge(reducing, p_.kept_dims, p_.rowHead(), p_.reduced_extent);
      start = kir::var("head", kir::indexType()) + start;
      end = kir::var("body_end", kir::indexType());
    }
    reducingLoop(reducing, start, end, int64_t{p_.block_x} * v_ * p_.splits(), element_chunk);
    if (p_.rowEdges()) edgeLoop(reducing, edge_chunk);
  } else {
    declareDimIndices(reducing, p_.kept_dims, p_.sizes, "c", "mb", &lits_);
    reducingLoop(
        reducing,
        kir::asIndex(kir::blockIdx('y')) * kir::lit(p_.block_y) + kir::asIndex(kir::threadIdx('y')),
        size(p_.reduced_extent, "reduced"), int64_t{p_.block_y} * p_.splits(), element_chunk);
  }
  threadCombine(main);
  gridCombine(main);
  epilogue(main);

  // Pointers and size parameters last: gridCombine may have added a scratch
  // buffer, and every part may have printed sizes.
  kir::Block k;
  layout_.declareKernelTop(k, p_.index32, lits_);
  for (size_t d = 0; d < p_.sizes.size(); ++d)
    if (p_.sizes[d] == 1)
      k.declare(fmt::format("i{}", d), kir::indexType(), kir::lit(0), kir::kConstUnused);
  k.append(w_.prologue);
  const int64_t smem = sharedMemoryBytes(st_, p_);
  if (smem > 0 && block_sync_)
    k.declareArray("fusebox_reduction_smem", kir::named("unsigned char"), smem,
                   {.shared = true, .align = 16});
  k.append(main);

  GeneratedKernel out;
  problem = paramLimitProblem(f_, p_.splits() > 1 ? 1 : 0, lits_.count());
  if (!problem.empty()) return out;
  out.source =
      kernelSource("reduction", p_.structure(), kir::printCuda(k), block_sync_,
                   {p_.min_blocks_per_sm > 0 ? p_.block_x * p_.block_y : 0, p_.min_blocks_per_sm});
  out.kernel_ir = kir::printIr(k);
  out.bindings = layout_.bindings();
  lits_.addBindings(out.bindings);
  out.index_checks = w_.indexChecks();
  return out;
}

}  // namespace

int64_t sharedMemoryBytes(const ReductionStructure& st, const ReductionParams& p) {
  int64_t widest = 0;
  for (const Expr* r : st.reductions) widest = std::max(widest, accumulatorFor(r).state_bytes);
  const int64_t threads = int64_t{p.block_x} * p.block_y;
  if (p.kind == ReductionKind::Inner)
    return kir::lanesCombineSharedBytes(p.block_x, threads, widest);
  return p.block_y > 1 ? threads * p.vector_width * widest : 0;
}

LoopAccesses collectAccesses(const Fusion& segment, const ReductionStructure& st,
                             const SegmentFacts& facts, RuntimeInfo& info) {
  ParamLayout layout(segment);
  // Over symbolic sizes the walk marks the offsets' constants that are
  // parameters (Affine::c_param: kernelgen::shapeClasses reads them).
  SizeLiterals lits(info.shapeMode(), layout.intSlots(), true);
  ElementWriter w(segment, facts.sizes, layout, info, loopSpace(facts, &lits));
  ScalarPlacement loop_placement(w.space());
  for (const Expr* r : st.reductions) {
    const TensorView* in = inputOf(r);
    w.value(in, w.iterationIndexOf(in), loop_placement);
  }
  for (size_t k = 0; k < segment.outputs().size(); ++k) {
    const auto* tv = segment.outputs()[k]->as<TensorView>();
    if (st.after.count(tv) == 0)
      w.store(k, w.iterationIndexOf(tv), facts.output_strides[k], loop_placement);
  }
  LoopAccesses out;
  out.loop = w.accesses();
  const size_t loop_count = out.loop.size();
  w.setSpace(keptSpace(facts, &lits));
  w.beginElement();
  for (const Expr* r : st.reductions)
    for (const Val* o : r->outputs())
      w.provide(o->as<TensorView>(), [](const Index&) { return kir::lit(0); });
  ScalarPlacement epilogue_placement(w.space());
  for (size_t k = 0; k < segment.outputs().size(); ++k) {
    const auto* tv = segment.outputs()[k]->as<TensorView>();
    if (st.after.count(tv) > 0)
      w.store(k, w.iterationIndexOf(tv), facts.output_strides[k], epilogue_placement);
  }
  for (size_t a = loop_count; a < w.accesses().size(); ++a)
    out.epilogue_max_offset = std::max(out.epilogue_max_offset, w.accesses()[a].max_offset);
  return out;
}

GeneratedKernel generateKernel(const Fusion& segment, const ReductionStructure& st,
                               const SegmentFacts& facts, const ReductionParams& params,
                               RuntimeInfo& info) {
  std::string problem;
  GeneratedKernel out = KernelWriter(segment, st, facts, params, info).write(problem);
  FUSEBOX_USER_CHECK(problem.empty(), "reduction: {}", problem);
  return out;
}

std::string kernelParamProblem(const Fusion& segment, const ReductionStructure& st,
                               const SegmentFacts& facts, const ReductionParams& params,
                               RuntimeInfo& info) {
  std::string problem;
  (void)KernelWriter(segment, st, facts, params, info).write(problem);
  return problem;
}

}  // namespace fusebox::reduction
