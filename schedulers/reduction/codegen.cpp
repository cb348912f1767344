// The reduction kernel generator (codegen.h). One thread block covers
// keptPerBlock() kept elements; x walks the innermost dim in vectors.
//
//   Inner: thread (x, y) reduces row blockIdx.x * block_y + y over the
//          reduced elements x * V, (x + block_x * splits) * V, ...;
//          the row's threads combine by warp shuffles or blockReduceX.
//   Outer: thread (x, y) accumulates columns (blockIdx.x * block_x + x) * V
//          + [0, V) over reduced rows y, y + block_y * splits, ...; the
//          block's rows combine in shared memory in a fixed order.
// With splits > 1 each block also stores its partials to scratch memory and
// the last block of its column of blocks combines them (grid_reduce.cuh).
// Every reducing loop runs unrolled steps of `unroll` chunks while whole
// steps fit, then single chunks, so the main loop needs no bounds checks.
#include "codegen.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>
#include <functional>

#include "kernelgen/accumulator.h"
#include "kernelgen/buffer.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"

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
MergedDims loopDims(const ReductionParams& p) {
  MergedDims md;
  const bool inner = p.kind == ReductionKind::Inner;
  for (const auto* dims :
       {inner ? &p.kept_dims : &p.reduced_dims, inner ? &p.reduced_dims : &p.kept_dims})
    for (int d : *dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  md.vector_width = p.vector_width;
  return md;
}

// Every size-derived integer of the kernel prints through lits_: a literal,
// or a parameter when the params ask for a kernel over symbolic sizes.
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
  std::string acc(size_t k) const {
    return inner_ ? fmt::format("acc{}", k) : fmt::format("acc{}[v]", k);
  }
  std::string idx(const std::string& s) const { return fmt::format("static_cast<idx_t>({})", s); }

  // The element loop of one chunk (V elements along the innermost dim).
  std::string chunkText();
  // The reducing loop over the reduced extent (this thread's share).
  void reducingLoop(Buffer& k, const std::string& start, int64_t stride, const std::string& chunk);
  void threadCombine(Buffer& k);
  void gridCombine(Buffer& k);
  void epilogue(Buffer& k);

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

std::string KernelWriter::chunkText() {
  VectorPlacement placement(md_, w_.space(), true);
  w_.sink.body = Buffer{};
  w_.beginElement();
  for (size_t k = 0; k < accs_.size(); ++k) {
    const TensorView* in = inputOf(accs_[k].expr);
    const std::string x = w_.value(in, w_.iterationIndexOf(in), placement);
    w_.sink.body.line(accs_[k].update(acc(k), x));
  }
  for (const TensorView* out : st_.loop_outputs) {
    const auto k = static_cast<size_t>(std::find(f_.outputs().begin(), f_.outputs().end(), out) -
                                       f_.outputs().begin());
    w_.store(k, w_.iterationIndexOf(out), facts_.output_strides[k], placement);
  }
  Buffer c;
  // This chunk's reduced indices (Inner: the innermost as the chunk's start
  // mb); the kept ones are declared once, outside the loop.
  declareDimIndices(c, p_.reduced_dims, p_.sizes, "q", inner_ ? "mb" : "", &lits_);
  const size_t m = md_.groups.size();
  for (size_t g = 0; g + 1 < m; ++g)
    c.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md_.groups[g][0]));
  c.append(placement.pre_chunk);
  c.line("FUSEBOX_UNROLL");
  c.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v_));
  ++c.indent;
  if (m > 0) {
    c.line(fmt::format("const idx_t m{} = mb + v;", m - 1));
    c.line(fmt::format("[[maybe_unused]] const idx_t i{} = m{};", md_.groups[m - 1][0], m - 1));
  }
  c.append(w_.sink.body);
  --c.indent;
  c.line("}");
  c.append(placement.post_chunk);
  return c.text;
}

void KernelWriter::reducingLoop(Buffer& k, const std::string& start, int64_t stride,
                                const std::string& chunk) {
  const std::string extent = lits_.text(p_.reduced_extent, "reduced");
  // The stride has the number of splits in it: a parameter too.
  const std::string step = lits_.text(stride, "stride");
  Buffer body;
  body.text = chunk;
  k.line(fmt::format("idx_t r = {};", start));
  if (p_.unroll > 1) {
    k.line(
        fmt::format("for (; r + {} < {}; r += {}) {{",
                    lits_.text((p_.unroll - 1) * stride, fmt::format("stride*{}", p_.unroll - 1)),
                    extent, lits_.text(p_.unroll * stride, fmt::format("stride*{}", p_.unroll))));
    ++k.indent;
    k.line("FUSEBOX_UNROLL");
    k.line(fmt::format("for (int u = 0; u < {}; ++u) {{", p_.unroll));
    ++k.indent;
    k.line(fmt::format("const idx_t q = r + u * {};", step));
    k.append(body);
    --k.indent;
    k.line("}");
    --k.indent;
    k.line("}");
  }
  k.line(fmt::format("for (; r < {}; r += {}) {{", extent, step));
  ++k.indent;
  k.line("const idx_t q = r;");
  k.append(body);
  --k.indent;
  k.line("}");
}

// The block's threads that share kept elements combine their states: Inner
// across x (shuffles within a power-of-two group of lanes, or blockReduceX),
// Outer across y (through shared memory, in order of y).
void KernelWriter::threadCombine(Buffer& k) {
  for (size_t a = 0; a < accs_.size(); ++a) {
    const Accumulator& A = accs_[a];
    const std::string state = A.stateType();
    if (inner_) {
      if (p_.block_x == 1) continue;
      block_sync_ = true;
      if (p_.block_x <= 32)
        k.line(fmt::format("acc{} = fusebox::warpGroupReduce<{}>(acc{}, {}{{}});", a, p_.block_x, a,
                           A.functor));
      else
        k.line(
            fmt::format("acc{} = fusebox::blockReduceX(acc{}, {}{{}}, reinterpret_cast<{}*>("
                        "fusebox_reduction_smem));",
                        a, a, A.functor, state));
      continue;
    }
    if (p_.block_y == 1) continue;
    block_sync_ = true;
    k.line("{");
    ++k.indent;
    k.line(fmt::format("{}* sm = reinterpret_cast<{}*>(fusebox_reduction_smem);", state, state));
    k.line(
        fmt::format("for (int v = 0; v < {}; ++v) sm[(threadIdx.y * {} + threadIdx.x) * {} + v] "
                    "= acc{}[v];",
                    v_, p_.block_x, v_, a));
    k.line("__syncthreads();");
    k.line("if (threadIdx.y == 0)");
    k.line(fmt::format("  for (int y = 1; y < {}; ++y)", p_.block_y));
    k.line(fmt::format(
        "    for (int v = 0; v < {}; ++v) acc{}[v] = {};", v_, a,
        A.combined(fmt::format("acc{}[v]", a),
                   fmt::format("sm[(y * {} + threadIdx.x) * {} + v]", p_.block_x, v_))));
    k.line("__syncthreads();");
    --k.indent;
    k.line("}");
  }
}

// Partials to scratch ([splits][kept] per reduction), then the last block of
// this blockIdx.x combines them; the others are done.
void KernelWriter::gridCombine(Buffer& k) {
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
  const std::string scratch = layout_.addScratch(offset);
  const std::string kept_text = lits_.text(kept, "kept");
  const std::string splits = lits_.text(p_.splits(), "splits");
  const std::string own = inner_ ? "row" : "c + v";
  const std::string lead = inner_ ? "threadIdx.x == 0" : "threadIdx.y == 0";
  k.line(fmt::format("unsigned char* const partials = static_cast<unsigned char*>({});", scratch));
  for (size_t a = 0; a < accs_.size(); ++a) {
    const std::string state = accs_[a].stateType();
    k.line(fmt::format(
        "{}* const partials{} = reinterpret_cast<{}*>(partials + {});", state, a, state,
        lits_.text(offsets[a], fmt::format("partials{}", a), SizeLiterals::Type::Int64)));
    const std::string store = fmt::format(
        "partials{}[static_cast<idx_t>(blockIdx.y) * {} + {}] = {};", a, kept_text, own, acc(a));
    k.line(inner_
               ? fmt::format("if ({} && active) {}", lead, store)
               : fmt::format("if ({} && active) for (int v = 0; v < {}; ++v) {}", lead, v_, store));
  }
  k.line(fmt::format(
      "if (!fusebox::arriveLastOfBlocks(reinterpret_cast<unsigned int*>(partials + {}) + "
      "blockIdx.x, gridDim.y)) return;",
      lits_.text(tickets, "tickets", SizeLiterals::Type::Int64)));
  const std::string walker = inner_ ? "threadIdx.x" : "threadIdx.y";
  const int step = inner_ ? p_.block_x : p_.block_y;
  for (size_t a = 0; a < accs_.size(); ++a) {
    const Accumulator& A = accs_[a];
    const std::string read =
        fmt::format("fusebox::loadFromOtherBlock(&partials{}[s * {} + {}])", a, kept_text, own);
    if (inner_) {
      k.line(fmt::format("acc{} = {};", a, A.identity()));
      k.line(fmt::format("if (active) for (idx_t s = {}; s < {}; s += {}) acc{} = {};", idx(walker),
                         splits, step, a, A.combined(acc(a), read)));
    } else {
      k.line(fmt::format("for (int v = 0; v < {}; ++v) acc{}[v] = {};", v_, a, A.identity()));
      k.line(fmt::format("if (active) for (idx_t s = {}; s < {}; s += {})", idx(walker), splits,
                         step));
      k.line(fmt::format("  for (int v = 0; v < {}; ++v) acc{}[v] = {};", v_, a,
                         A.combined(acc(a), read)));
    }
  }
  threadCombine(k);
}

void KernelWriter::epilogue(Buffer& k) {
  IterSpace kept = keptSpace(facts_, &lits_);
  w_.setSpace(kept);
  w_.sink.body = Buffer{};
  w_.beginElement();
  for (size_t a = 0; a < accs_.size(); ++a) {
    const Expr* r = accs_[a].expr;
    for (size_t o = 0; o < r->outputs().size(); ++o) {
      const auto* tv = r->output(o)->as<TensorView>();
      const Index expected = w_.iterationIndexOf(tv);
      const std::string value = accs_[a].result(o, acc(a));
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
  const std::string lead = inner_ ? "threadIdx.x == 0" : "threadIdx.y == 0";
  k.line(fmt::format("if ({} && active) {{", lead));
  ++k.indent;
  if (inner_) {
    declareDimIndices(k, p_.kept_dims, p_.sizes, "row", "", &lits_);
    k.append(w_.sink.body);
  } else {
    declareDimIndices(k, p_.kept_dims, p_.sizes, "c", "cb", &lits_);
    k.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v_));
    ++k.indent;
    if (!p_.kept_dims.empty())
      k.line(fmt::format("[[maybe_unused]] const idx_t i{} = cb + v;", p_.kept_dims.back()));
    k.append(w_.sink.body);
    --k.indent;
    k.line("}");
  }
  --k.indent;
  k.line("}");
}

GeneratedKernel KernelWriter::write(std::string& problem) {
  Buffer k;
  k.indent = 1;
  Buffer main;
  main.indent = 1;
  const std::string chunk = chunkText();
  const std::string kept = lits_.text(p_.kept_extent, "kept");

  // Thread and block position; `active`: this thread's kept element exists.
  if (inner_) {
    main.line(fmt::format("const idx_t row = {} * {} + {};", idx("blockIdx.x"), p_.block_y,
                          idx("threadIdx.y")));
    main.line(fmt::format("const bool active = row < {};", kept));
    for (size_t a = 0; a < accs_.size(); ++a)
      main.line(fmt::format("{} acc{} = {};", accs_[a].stateType(), a, accs_[a].identity()));
  } else {
    main.line(fmt::format("const idx_t c = ({} * {} + {}) * {};", idx("blockIdx.x"), p_.block_x,
                          idx("threadIdx.x"), v_));
    main.line(fmt::format("const bool active = c < {};", kept));
    for (size_t a = 0; a < accs_.size(); ++a) {
      main.line(fmt::format("{} acc{}[{}];", accs_[a].stateType(), a, v_));
      main.line(
          fmt::format("for (int v = 0; v < {}; ++v) acc{}[v] = {};", v_, a, accs_[a].identity()));
    }
  }
  main.line("if (active) {");
  ++main.indent;
  if (inner_) {
    declareDimIndices(main, p_.kept_dims, p_.sizes, "row", "", &lits_);
    reducingLoop(
        main,
        fmt::format("({} * {} + {}) * {}", idx("blockIdx.y"), p_.block_x, idx("threadIdx.x"), v_),
        int64_t{p_.block_x} * v_ * p_.splits(), chunk);
  } else {
    declareDimIndices(main, p_.kept_dims, p_.sizes, "c", "mb", &lits_);
    reducingLoop(main,
                 fmt::format("{} * {} + {}", idx("blockIdx.y"), p_.block_y, idx("threadIdx.y")),
                 int64_t{p_.block_y} * p_.splits(), chunk);
  }
  --main.indent;
  main.line("}");
  threadCombine(main);
  gridCombine(main);
  epilogue(main);

  // Pointers and size parameters last: gridCombine may have added a scratch
  // buffer, and every part may have printed sizes.
  layout_.declareKernelTop(k, p_.index32, lits_);
  for (size_t d = 0; d < p_.sizes.size(); ++d)
    if (p_.sizes[d] == 1) k.line(fmt::format("[[maybe_unused]] const idx_t i{} = 0;", d));
  k.append(w_.prologue);
  const int64_t smem = sharedMemoryBytes(st_, p_);
  if (smem > 0 && block_sync_)
    k.line(fmt::format("alignas(16) __shared__ unsigned char fusebox_reduction_smem[{}];", smem));
  k.text += main.text;

  GeneratedKernel out;
  problem = paramLimitProblem(f_, p_.splits() > 1 ? 1 : 0, lits_.count());
  if (!problem.empty()) return out;
  out.source =
      kernelSource("reduction", p_.structure(), k.text, block_sync_,
                   {p_.min_blocks_per_sm > 0 ? p_.block_x * p_.block_y : 0, p_.min_blocks_per_sm});
  out.bindings = layout_.bindings();
  lits_.addBindings(out.bindings);
  return out;
}

}  // namespace

int64_t sharedMemoryBytes(const ReductionStructure& st, const ReductionParams& p) {
  int64_t widest = 0;
  for (const Expr* r : st.reductions) widest = std::max(widest, accumulatorFor(r).state_bytes);
  const int64_t threads = int64_t{p.block_x} * p.block_y;
  if (p.kind == ReductionKind::Inner) return p.block_x > 32 ? threads * widest : 0;
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
      w.provide(o->as<TensorView>(), [](const Index&) { return "0"; });
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
