// The column-persistent kernel generator (column_kernel.h).
//
// Each stage's chunk loops are fully unrolled, as the row kernel's: the
// buffers (pb<n>[batch], one Array of vector_width columns per row the
// thread holds) are indexed by constants and stay in registers, and every
// column state is an Array of vector_width.
#include "normalization/column_kernel.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>

#include "kernel_ir/combine.h"
#include "kernelgen/buffer.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"
#include "normalization/chunk_buffers.h"
#include "normalization/pass_chunk.h"
#include "reduction/accumulator.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

std::string idx(const std::string& s) {
  return fmt::format("static_cast<idx_t>({})", s);
}

// One merged dim per dim: the reduced dims, then the kept ones, the
// innermost kept dim last (vectorized).
MergedDims columnLoopDims(const PersistentParams& p) {
  MergedDims md;
  for (const auto* dims : {&p.reduced_dims, &p.kept_dims})
    for (int d : *dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  md.vector_width = p.vector_width;
  // Loads no reduced dim moves (a weight, a bias) are made once per thread,
  // above the loop over its rows.
  md.row_groups = static_cast<int>(p.reduced_dims.size());
  return md;
}

// A per-column state combined over the block's rows and the grid's bands:
// a reduction's state, or a variance's sum (of values, then of squared
// deviations).
kir::CombineState stateOf(const std::string& var, const Accumulator& a) {
  return {kir::var(var), kir::named(a.stateType()), a.functor, kir::text(a.identity())};
}

kir::CombineState sumOf(const std::string& var, const std::string& scalar) {
  return {kir::var(var), kir::named(scalar), "fusebox::ReduceSum", kir::lit(0)};
}

int64_t scalarBytes(const std::string& scalar) {
  return scalar == "float" ? 4 : 8;
}

// The bytes of each combine over the grid, in kernel order: a reduction's
// state once, a variance's sum and then its squared deviations.
std::vector<int64_t> gridCombineBytes(const NormalizationStructure& st) {
  std::vector<int64_t> out;
  for (int s = 0; s < st.stages; ++s) {
    for (size_t a = 0; a < st.reductions.size(); ++a) {
      if (st.stage[a] != s) continue;
      const Accumulator A = accumulatorFor(st.reductions[a]);
      out.push_back(A.welford ? scalarBytes(A.scalar) : A.state_bytes);
    }
    for (size_t a = 0; a < st.reductions.size(); ++a) {
      if (st.stage[a] != s) continue;
      const Accumulator A = accumulatorFor(st.reductions[a]);
      if (A.welford) out.push_back(scalarBytes(A.scalar));
    }
  }
  return out;
}

class ColumnKernelWriter {
 public:
  ColumnKernelWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                     const PersistentParams& p, const RowBufferPlan& buffers, RuntimeInfo& info)
      : f_(segment),
        st_(st),
        facts_(facts),
        p_(p),
        cached_(buffers.cached),
        layout_(segment),
        w_(segment, facts.sizes, layout_, info, domainSpace(facts)),
        md_(columnLoopDims(p)),
        arrays_(md_, p),
        kept_values_(buffers.kept_values, p, arrays_),
        pass_{f_, st_, facts_, p_, cached_, w_, md_, arrays_, kept_values_, accs_, "[v]"} {
    for (const Expr* r : st.reductions) accs_.push_back(accumulatorFor(r));
  }

  GeneratedKernel write(const std::string& scheduler);

 private:
  int64_t rowsPerBand() const { return int64_t{p_.block[1]} * p_.batch; }
  // The loop over this thread's rows around `body` (a chunk's code, with
  // the row's reduced indices declared).
  void chunkLoop(Buffer& k, const std::string& body) const;
  // A pass (pass_chunk.h): its row-invariant loads, then the loop over
  // the thread's rows.
  void passLoop(Buffer& k, int stage, bool deviations = false);
  void reduceStage(Buffer& k, int stage);
  // Combines the per-column states `var` (an Array of vector_width) over
  // the block's rows, then over the grid's bands; every thread of the
  // strip gets the results.
  void combineColumns(Buffer& k, const kir::CombineState& state);
  void combineBlockRows(kir::Block& k, const kir::CombineState& state) const;
  void epilogue(Buffer& k);

  const Fusion& f_;
  const NormalizationStructure& st_;
  const RowFacts& facts_;
  const PersistentParams& p_;
  const std::set<std::string>& cached_;
  ParamLayout layout_;
  ElementWriter w_;
  MergedDims md_;
  BufferArrays arrays_;
  KeptValues kept_values_;
  std::vector<Accumulator> accs_;
  PassContext pass_;  // what the shared pass code reads (pass_chunk.h)
  // Grid combines: the scratch pointer, the next combine's partial rows.
  std::string scratch_;
  std::vector<int64_t> partial_offsets_;
  size_t next_combine_ = 0;
};

void ColumnKernelWriter::chunkLoop(Buffer& k, const std::string& body) const {
  k.line("FUSEBOX_UNROLL");
  k.line(fmt::format("for (int k = 0; k < {}; ++k) {{", p_.batch));
  ++k.indent;
  k.line(fmt::format("const idx_t r = band_base + {} * {} + {};", idx("k"), p_.block[1],
                     idx("threadIdx.y")));
  k.line(fmt::format("if (active && r < {}) {{", p_.reduced_extent));
  ++k.indent;
  declareDimIndices(k, p_.reduced_dims, p_.sizes, "r");
  for (size_t g = 0; g < p_.reduced_dims.size(); ++g)
    k.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md_.groups[g][0]));
  Buffer b;
  b.text = body;
  k.append(b);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");
}

void ColumnKernelWriter::passLoop(Buffer& k, int stage, bool deviations) {
  const PassChunk chunk = writePassChunk(pass_, stage, deviations);
  k.append(chunk.pre_row);
  chunkLoop(k, chunk.body);
}

void ColumnKernelWriter::combineBlockRows(kir::Block& k, const kir::CombineState& state) const {
  kir::combineRows(k, {.s = state,
                       .rows = p_.block[1],
                       .columns = p_.block[0],
                       .width = p_.vector_width,
                       .smem = kir::var("fusebox_norm_smem"),
                       .broadcast = true});
}

void ColumnKernelWriter::combineColumns(Buffer& k, const kir::CombineState& state) {
  kir::Block b;
  combineBlockRows(b, state);
  if (p_.grid[1] > 1) {
    const int64_t offset = partial_offsets_.at(next_combine_++);
    kir::Block bands = b.scope();
    bands.comment(fmt::format("the bands' partial rows of {}", kir::printValue(state.state)));
    const kir::Value scratch = kir::var("col_scratch");
    kir::GridCombine grid;
    grid.protocol = kir::GridProtocol::Barrier;
    grid.states.push_back({state, bands.declare("part", kir::constPointerTo(state.type),
                                                kir::reinterpretAs(kir::pointerTo(state.type),
                                                                   scratch + kir::lit(offset)))});
    grid.width = p_.vector_width;
    grid.group = kir::cast(kir::indexType(), kir::blockIdx('y'));
    grid.groups = kir::lit(p_.grid[1]);
    grid.known_groups = p_.grid[1];
    grid.stride = kir::lit(p_.kept_extent);
    grid.own = kir::var("cchunk");
    grid.writes = kir::threadIdx('y') == kir::lit(0) && kir::var("active");
    grid.reads = kir::var("active");
    // Thread row y reduces bands y, y + block[1], ...
    grid.walker = kir::cast(kir::indexType(), kir::threadIdx('y'));
    grid.walkers = p_.block[1];
    grid.sync = kir::reinterpretAs(kir::pointerTo(kir::named("unsigned int")), scratch);
    kir::combineGrid(bands, std::move(grid));
    combineBlockRows(b, state);
  }
  k.append(b);
}

// A variance takes two passes over the registers (a sum, then the squared
// deviations from the mean: no division per element), each combined over
// the whole column, as the row kernel's. (Chan's merge of per-thread Welford
// states needs one grid combine instead of two, but its 16-byte states cost
// shared-memory bank conflicts, registers and divisions: on an H100 batch
// norm 4096x2048 ran 0.169 ms that way against 0.044 ms.)
void ColumnKernelWriter::reduceStage(Buffer& k, int stage) {
  const int V = p_.vector_width;
  auto fill = [&](const std::string& type, const std::string& name, const std::string& value) {
    k.line(fmt::format("fusebox::Array<{}, {}> {};", type, V, name));
    k.line("FUSEBOX_UNROLL");
    k.line(fmt::format("for (int v = 0; v < {}; ++v) {}[v] = {};", V, name, value));
  };
  bool variances = false;
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    variances |= A.welford;
    if (A.welford)
      fill(A.scalar, fmt::format("sum{}", a), "0");
    else
      fill(A.stateType(), fmt::format("acc{}", a), A.identity());
  }
  passLoop(k, stage);
  const int64_t n = p_.reduced_extent;
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    if (!A.welford) {
      combineColumns(k, stateOf(fmt::format("acc{}", a), A));
      continue;
    }
    combineColumns(k, sumOf(fmt::format("sum{}", a), A.scalar));
    // The mean of no elements stays 0, as a Welford state's.
    fill(A.scalar, fmt::format("mean{}", a),
         n > 0 ? fmt::format("sum{}[v] / static_cast<{}>({})", a, A.scalar, n) : std::string("0"));
    fill(A.scalar, fmt::format("sq{}", a), "0");
  }
  if (variances) passLoop(k, stage, true);
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    if (A.welford) {
      combineColumns(k, sumOf(fmt::format("sq{}", a), A.scalar));
      k.line(fmt::format("fusebox::Array<{}, {}> acc{};", A.stateType(), V, a));
      k.line("FUSEBOX_UNROLL");
      k.line(fmt::format("for (int v = 0; v < {}; ++v) {{", V));
      k.line(fmt::format("  acc{}[v].avg = mean{}[v];", a, a));
      k.line(fmt::format("  acc{}[v].m2 = sq{}[v];", a, a));
      k.line(fmt::format("  acc{}[v].n = {};", a, n));
      k.line("}");
    }
    for (size_t o = 0; o < A.expr->outputs().size(); ++o)
      fill(computeTypeName(A.expr->output(o)->dtype()), fmt::format("red{}_{}", a, o),
           A.result(o, fmt::format("acc{}[v]", a)));
  }
}

// The per-column outputs (batch-norm's mean and invstd): written once, by
// the first band's first row of threads.
void ColumnKernelWriter::epilogue(Buffer& k) {
  if (st_.reduced_outputs.empty()) return;
  const Buffer stores = writeReducedOutputs(pass_);
  k.line("if (blockIdx.y == 0 && threadIdx.y == 0 && active) {");
  ++k.indent;
  k.line("FUSEBOX_UNROLL");
  k.line(fmt::format("for (int v = 0; v < {}; ++v) {{", p_.vector_width));
  ++k.indent;
  k.line(fmt::format("[[maybe_unused]] const idx_t i{} = mb + v;", p_.kept_dims.back()));
  k.append(stores);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");
}

GeneratedKernel ColumnKernelWriter::write(const std::string& scheduler) {
  if (p_.grid[1] > 1) {
    // Scratch: the barrier word, then each grid combine's partial rows.
    int64_t bytes = 16;
    for (int64_t state : gridCombineBytes(st_)) {
      partial_offsets_.push_back(bytes);
      const int64_t part = checked::orThrow(
          checked::product(std::vector<int64_t>{p_.grid[1], p_.kept_extent, state}),
          "outer persistent: the partial rows' size");
      bytes = checked::orThrow(checked::add(bytes, (part + 15) / 16 * 16),
                               "outer persistent: the partial rows' size");
    }
    scratch_ = layout_.addScratch(bytes);
  }
  Buffer main;
  main.indent = 1;
  main.line(fmt::format("const idx_t col_chunk = ({} * {} + {}) * {};", idx("blockIdx.x"),
                        p_.block[0], idx("threadIdx.x"), p_.vector_width));
  main.line(fmt::format("const bool active = col_chunk < {};", p_.kept_extent));
  // Inactive threads take part in the combines; their indices stay in range.
  main.line("const idx_t cchunk = active ? col_chunk : 0;");
  declareDimIndices(main, p_.kept_dims, p_.sizes, "cchunk", "mb");
  for (size_t g = p_.reduced_dims.size(); g + 1 < md_.groups.size(); ++g)
    main.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md_.groups[g][0]));
  main.line(fmt::format("const idx_t band_base = {} * {};", idx("blockIdx.y"), rowsPerBand()));
  if (!scratch_.empty())
    main.line(fmt::format("unsigned char* const col_scratch = static_cast<unsigned char*>({});",
                          scratch_));

  Buffer stages;
  stages.indent = main.indent;
  for (int s = 0; s < st_.stages; ++s) {
    provideStageResults(pass_, s);
    stages.line(fmt::format("// stage {}", s));
    reduceStage(stages, s);
  }
  provideStageResults(pass_, st_.stages);
  stages.line("// the full-domain outputs");
  passLoop(stages, st_.stages);
  epilogue(stages);

  if (!arrays_.loads.text.empty()) {
    main.line("// load the persistent buffers");
    chunkLoop(main, arrays_.loads.text);
  }
  main.text += stages.text;

  Buffer k;
  k.indent = 1;
  writeKernelTop(k, p_, layout_, w_, columnKernelSharedMemoryBytes(st_, p_));
  k.append(arrays_.decls);
  k.text += main.text;

  GeneratedKernel out;
  out.source =
      kernelSource(scheduler, p_, k.text, true, {p_.threads(), std::max(1, p_.min_blocks_per_sm)});
  out.bindings = layout_.bindings();
  return out;
}

}  // namespace

int64_t columnKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p) {
  if (p.block[1] <= 1) return 0;
  int64_t widest = 0;
  for (const Expr* r : st.reductions) {
    const Accumulator a = accumulatorFor(r);
    widest = std::max<int64_t>(widest, a.welford ? scalarBytes(a.scalar) : a.state_bytes);
  }
  return int64_t{p.threads()} * p.vector_width * widest;
}

GeneratedKernel generateColumnKernel(const Fusion& segment, const NormalizationStructure& st,
                                     const RowFacts& facts, const PersistentParams& params,
                                     const RowBufferPlan& buffers, RuntimeInfo& info,
                                     const std::string& scheduler) {
  return ColumnKernelWriter(segment, st, facts, params, buffers, info).write(scheduler);
}

}  // namespace fusebox::normalization
