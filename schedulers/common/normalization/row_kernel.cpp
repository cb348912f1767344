// The row-persistent kernel generator (row_kernel.h).
//
// Thread (x, y) of block b holds row b * block[1] + y and, of that row, the
// chunks q = (k * block[0] + x) * V for k < batch: V consecutive elements
// along the innermost reduced dim (the row's last chunk is whole: V divides
// that dim). Every stage walks the same chunks in a fully unrolled loop, so
// the persistent buffers (fusebox::Array<T, V> pb<n>[batch]) are indexed by
// constants and stay in registers. Rows with a scalar edge
// (PersistentParams::rowEdges) start their chunks at `head`, end them at
// `body_end`, and thread x < edge_count holds element x of the edge (the
// head's, then the tail's: row_edge.h).
#include "normalization/row_kernel.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>
#include <optional>

#include "kernel_ir/combine.h"
#include "kernelgen/layout_choice.h"
#include "kernelgen/plan_outputs.h"
#include "kernelgen/row_edge_code.h"
#include "normalization/column_partials.h"
#include "normalization/persistent_writer.h"
#include "normalization/row_edge.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

// One merged dim per dim: the kept dims, then the reduced ones, the
// innermost reduced dim last (vectorized).
MergedDims rowLoopDims(const PersistentParams& p) {
  MergedDims md;
  for (const auto* dims : {&p.kept_dims, &p.reduced_dims})
    for (int d : *dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  md.vector_width = p.vector_width;
  return md;
}

class RowKernelWriter final : public PersistentWriter {
 public:
  RowKernelWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                  const PersistentParams& p, const RowBufferPlan& buffers, RuntimeInfo& info,
                  const InnerOuterParts* columns, bool shared_column_accumulators = false)
      : PersistentWriter(segment, st, facts, p, buffers, info, rowLoopDims(p), 0),
        columns_(columns) {
    FUSEBOX_CHECK(columns == nullptr || p.row_split == 1,
                  "inner-outer kernel: rows split over clusters of {} blocks", p.row_split);
    if (columns != nullptr) {
      partials_.emplace(*columns, p, shared_column_accumulators);
      if (p.buffer_stages == 1) arrays_.hoistRowInvariant(p.kept_dims);
    }
    pass_.loads_first = p.reload && p.reduced_extent >= p.vector_width;
    if (p.rowEdges()) {
      FUSEBOX_CHECK(columns == nullptr && p.reduced_dims.size() == 1 &&
                        int64_t{p.block[0]} >= 2 * int64_t{p.vector_width} - 2 &&
                        p.reduced_extent >= 2 * int64_t{p.vector_width},
                    "row kernel: a scalar edge for rows of {} over {} threads of chunks of {}",
                    p.reduced_extent, p.block[0], p.vector_width);
      pass_.vectors_allowed = vectorsAlignedBy(p.rowHead(), p.reduced_dims.back());
      edge_ = std::make_unique<RowEdge>(pass_, buffers);
    }
  }

  GeneratedKernel write(const std::string& scheduler);

 private:
  // Chunk k of the row: q = (k * block[0] + x) * V along the reduced dims.
  // With `loads`, the chunks go in groups, each group's loads issued first.
  void chunkLoop(kir::Block& k, const kir::Block& body,
                 const std::vector<VectorPlacement::ChunkLoad>& loads) override;
  // The chunks [begin, end) of the row, the code of each under its range
  // check; with `commit_copies`, each chunk's asynchronous copies a group.
  void chunkRange(kir::Block& k, const kir::Block& body, int begin, int end,
                  bool commit_copies = false);
  // Chunk k's first element along the reduced dims (declared as q).
  kir::Value chunkStart(kir::Block& chunk) const;
  // The chunk's indices (mb, the reduced dims', the m<g>) from `start`;
  // without `row_dims`, those of the reduced dims alone (outside any row).
  void declareChunkIndices(kir::Block& chunk, const std::string& start, bool row_dims = true) const;
  // `body` for each chunk of the thread's columns, outside any row: the
  // reduced dims' indices alone (BufferArrays::invariant_loads).
  void invariantChunks(kir::Block& k, const kir::Block& body) const;
  // The row's threads combine; every thread of the row gets the result.
  void combine(kir::Block& k, const std::vector<kir::CombineState>& states) override;
  void outputPassExtra(CachePlacement& placement) override;
  void afterChunks(kir::Block& k, int stage, bool deviations) override;
  // The row's head, body_end and edge_count (rows with a scalar edge).
  void declareRowEdge(kir::Block& rows) const;
  // row_in_grid, active, row and its kept-dim indices (and its edge).
  void declareRow(kir::Block& rows, const kir::Value& row_in_grid) const;
  // Two buffer stages: the copies of each next row group (declared in
  // `first`, before the loop `rows`; each next one's in it) and the wait
  // for this one's.
  void prefetchRows(kir::Block& first, kir::Block& rows);
  // The copies of the row group at `row_base` (its own row indices, in a
  // scope of `at`), committed as one group; `stage`: the shared stage they
  // go to (two-stage prefetch), or none (staged rows).
  void copyRowGroup(kir::Block& at, const kir::Value& row_base, const kir::Value& stage = {});
  // Staged rows: the first row group's copies in `first`; at the top of
  // each turn of `rows`, this row group into the registers, then the next
  // one's copies.
  void stageRows(kir::Block& first, kir::Block& rows);
  // `body` for the edge element thread x holds, if any.
  void edgeElement(kir::Block& k, const kir::Block& body) const;
  void epilogue(kir::Block& k);

  // Inner-outer kernels: the column part, accumulated in the outputs' pass.
  const InnerOuterParts* columns_ = nullptr;
  int cluster_combines_ = 0;  // combines across the cluster so far
  // The first pass that reads chunks copied asynchronously waits for each
  // chunk's group before its code.
  bool copies_waited_ = false;
  std::optional<ColumnPartials> partials_;
  std::unique_ptr<RowEdge> edge_;  // rows with a scalar edge
};

kir::Value RowKernelWriter::chunkStart(kir::Block& chunk) const {
  // A cluster deals the row's groups of block[0] chunks to its blocks in turn.
  const kir::Value group = p_.row_split > 1 ? kir::asIndex(kir::var("k")) * kir::lit(p_.row_split) +
                                                  kir::asIndex(kir::var("rank"))
                                            : kir::asIndex(kir::var("k"));
  kir::Value q = (group * kir::lit(p_.block[0]) + kir::asIndex(kir::threadIdx('x'))) *
                 kir::lit(p_.vector_width);
  if (p_.rowEdges()) q = kir::var("head", kir::indexType()) + q;
  return chunk.declare("q", kir::indexType(), q, {.is_const = true});
}

// The chunks' end: the row's, or its last whole chunk's past the head.
kir::Value chunksEnd(const PersistentParams& p) {
  return p.rowEdges() ? kir::var("body_end", kir::indexType()) : kir::lit(p.reduced_extent);
}

// The load pass commits each chunk's copies as a group, and the first pass
// that reads them waits for chunk k's group alone (batch - 1 - k groups left
// in flight), so its math starts while the later chunks land. H200, bf16,
// µs with one wait for all against a wait a chunk: softmax forward
// 4096x50264 245.9 / 237.5, 4096x32000 157.0 / 155.4; layernorm forward
// 4096x32000 167.2 / 165.9; the cross-entropy gradient 186.8 / 184.7.
void RowKernelWriter::chunkRange(kir::Block& k, const kir::Block& body, int begin, int end,
                                 bool commit_copies) {
  kir::Block chunk =
      k.forLoop("k", kir::intType(), kir::lit(begin), kir::lit(end), {}, kir::Unroll::Full);
  if (!commit_copies && !copies_waited_ && arrays_.asyncCopies()) {
    kir::asyncWaitPending(chunk, p_.batch - 1,
                          kir::lit(p_.batch - 1) - kir::var("k", kir::intType()));
    copies_waited_ = true;
  }
  const kir::Value q = chunkStart(chunk);
  kir::Block in = chunk.ifThen(kir::var("active") && q < chunksEnd(p_));
  declareChunkIndices(in, "q");
  in.append(body);
  if (commit_copies) kir::asyncCommit(chunk);
}

void RowKernelWriter::invariantChunks(kir::Block& k, const kir::Block& body) const {
  kir::Block chunk =
      k.forLoop("k", kir::intType(), kir::lit(0), kir::lit(p_.batch), {}, kir::Unroll::Full);
  const kir::Value q = chunkStart(chunk);
  kir::Block in = chunk.ifThen(q < chunksEnd(p_));
  declareChunkIndices(in, "q", false);
  in.append(body);
}

void RowKernelWriter::declareChunkIndices(kir::Block& chunk, const std::string& start,
                                          bool row_dims) const {
  declareDimIndices(chunk, p_.reduced_dims, p_.sizes, start, "mb");
  for (size_t g = 0; g + 1 < md_.groups.size(); ++g)
    if (row_dims ||
        std::count(p_.reduced_dims.begin(), p_.reduced_dims.end(), md_.groups[g][0]) > 0)
      chunk.declare(fmt::format("m{}", g), kir::indexType(),
                    kir::var(fmt::format("i{}", md_.groups[g][0])), kir::kConstUnused);
}

// A reloaded row's pass that reads two or more vectors a chunk (the
// placement leaves a pass of one in the chunk's code) issues the loads of a
// group of chunks, then does their math. Chunk by chunk under its range
// check, ptxas kept softmax backward's two 16-byte loads in flight a
// thread, and a 4096x32000 bf16 row ran 226 us; with a group's eight loads
// first, 206 us (H200; docs/perf.md). A chunk past the row's end loads the
// row's last chunk instead of branching around its loads, which would keep
// them from issuing together; its math is still skipped. Eight loads a
// group hold 32 registers, within the 64 a thread of 1024 may have. With
// one vector a chunk, ptxas overlaps the next chunk's load with this one's
// math by itself, and grouping made the exp-bound cross-entropy rows slower
// (2048x131072: 184 -> 201 us, its gradient 430 -> 465 us).
void RowKernelWriter::chunkLoop(kir::Block& k, const kir::Block& body,
                                const std::vector<VectorPlacement::ChunkLoad>& loads) {
  if (loads.empty()) {
    chunkRange(k, body, 0, p_.batch);
    return;
  }
  FUSEBOX_CHECK(p_.reduced_extent >= p_.vector_width,
                "row kernel: loads issued ahead of chunks of {} in a row of {}", p_.vector_width,
                p_.reduced_extent);
  constexpr int kLoadsInFlight = 8;
  const int group =
      std::min(p_.batch, std::max(1, kLoadsInFlight / static_cast<int>(loads.size())));
  for (const VectorPlacement::ChunkLoad& load : loads)
    k.declareArray(load.var + "s", load.type, p_.batch);
  for (int begin = 0; begin < p_.batch; begin += group) {
    const int end = std::min(p_.batch, begin + group);
    kir::Block issue =
        k.forLoop("k", kir::intType(), kir::lit(begin), kir::lit(end), {}, kir::Unroll::Full);
    const kir::Value q = chunkStart(issue);
    const kir::Value last_chunk =
        p_.rowEdges() ? kir::var("body_end", kir::indexType()) - kir::lit(p_.vector_width)
                      : kir::lit(p_.reduced_extent - p_.vector_width);
    issue.declare("qc", kir::indexType(), kir::select(q < chunksEnd(p_), q, last_chunk),
                  {.is_const = true});
    declareChunkIndices(issue, "qc");
    for (const VectorPlacement::ChunkLoad& load : loads)
      issue.assign(kir::subscript(kir::var(load.var + "s"), kir::var("k", kir::intType())),
                   load.load);
    chunkRange(k, body, begin, end);
  }
}

void RowKernelWriter::declareRow(kir::Block& rows, const kir::Value& row_in_grid) const {
  const kir::Value in_grid =
      rows.declare("row_in_grid", kir::indexType(), row_in_grid, {.is_const = true});
  const kir::Value active = rows.declare("active", kir::boolType(),
                                         in_grid < kir::lit(p_.kept_extent), {.is_const = true});
  // Inactive threads take part in the combines; their indices stay in range.
  rows.declare("row", kir::indexType(), kir::select(active, in_grid, kir::lit(0)),
               kir::kConstUnused);
  declareDimIndices(rows, p_.kept_dims, p_.sizes, "row");
  if (p_.rowEdges()) declareRowEdge(rows);
}

void RowKernelWriter::copyRowGroup(kir::Block& at, const kir::Value& row_base,
                                   const kir::Value& stage) {
  kir::Block group = at.scope();
  if (stage.defined())
    group.declare("fusebox_load_stage", kir::intType(), stage, {.is_const = true});
  declareRow(group, kir::asIndex(row_base) + kir::asIndex(kir::threadIdx('y')));
  if (!arrays_.loads.empty()) chunkRange(group, arrays_.loads, 0, p_.batch);
  kir::asyncCommit(at);
}

// The grid-stride row loop of inner-outer kernels: a block's first row
// group, and the stride to its next.
kir::Value firstRowBase(const PersistentParams& p) {
  return kir::cast(kir::named("int64_t"), kir::blockIdx('x')) * kir::lit(p.block[1]);
}
kir::Value rowStride(const PersistentParams& p) {
  return kir::cast(kir::named("int64_t"), kir::gridDim('x')) * kir::lit(p.block[1]);
}
kir::Value nextRowBase(const PersistentParams& p) {
  return kir::var("row_base", kir::named("int64_t")) + rowStride(p);
}

// Before the loop, the first row group's copies go into stage 0. Each turn
// of the loop copies the next row group (the block's rows a grid's stride
// on) into the other stage, commits them as one group, and waits for all
// but that group: this row group's, committed a turn earlier, whose copies
// landed while the previous row group was computed. Each thread reads back
// only the slots it copied, so its wait suffices, and its reads of a stage
// precede its copies into it a turn later. The loads of a pass then come
// from shared memory, never from a DRAM latency the block waits out.
void RowKernelWriter::prefetchRows(kir::Block& first, kir::Block& rows) {
  FUSEBOX_CHECK(columns_ != nullptr && p_.register_batch == 0 && p_.shared_buffer_bytes > 0,
                "row kernel: prefetched rows outside an inner-outer kernel with shared buffers");
  first.comment("the first row group's copies, into stage 0");
  copyRowGroup(first, firstRowBase(p_), kir::lit(0));
  rows.comment("the next row group's copies, into the other stage; then wait for this one's");
  copyRowGroup(rows, nextRowBase(p_), kir::lit(1) - kir::var("fusebox_stage", kir::intType()));
  kir::asyncWait(rows, 1);
}

// Staged rows keep a row group in registers and the next one in flight to
// the staging slots of shared memory (cp.async: no registers held on the
// way), twice the bytes in flight of a block that loads each row group when
// it gets to it. The next row group's copies issue at the top of the turn,
// right after this one is moved into the registers, so they land while it
// is combined and written. A thread reads back only the slots it copied, so
// its own wait suffices, without a block barrier; the __syncwarp between
// its reads of the slots and the copies that overwrite them is the memory
// ordering that makes the reads performed first (PTX orders an asynchronous
// copy after nothing else by itself).
void RowKernelWriter::stageRows(kir::Block& first, kir::Block& rows) {
  FUSEBOX_CHECK(columns_ != nullptr, "row kernel: staged rows outside an inner-outer kernel");
  first.comment("the first row group's copies, into the staging slots");
  copyRowGroup(first, firstRowBase(p_));
  rows.comment(
      "this row group, from the staging slots into the registers; then the next one's "
      "copies");
  kir::asyncWait(rows, 0);
  chunkRange(rows, arrays_.restore, 0, p_.batch);
  rows.evaluate(kir::call("__syncwarp", {}));
  copyRowGroup(rows, nextRowBase(p_));
}

void RowKernelWriter::declareRowEdge(kir::Block& rows) const {
  kernelgen::declareRowEdge(rows, p_.kept_dims, p_.rowHead(), p_.reduced_extent);
}

void RowKernelWriter::edgeElement(kir::Block& k, const kir::Block& body) const {
  const kir::Value x = kir::asIndex(kir::threadIdx('x'));
  kir::Value holds = kir::var("active") && x < kir::var("edge_count", kir::indexType());
  if (p_.row_split > 1) holds = holds && kir::var("rank") == kir::lit(0);
  kir::Block in = k.ifThen(holds);
  in.declare("k", kir::intType(), kir::lit(0), kir::kConstUnused);
  in.declare("qe", kir::indexType(), edgePosition(x), {.is_const = true});
  declareChunkIndices(in, "qe");
  in.append(body);
}

void RowKernelWriter::afterChunks(kir::Block& k, int stage, bool deviations) {
  if (edge_ == nullptr) return;
  k.comment("the row's scalar edge");
  const PassChunk chunk = edge_->pass(stage, deviations, pass_.load_hint);
  k.append(chunk.pre_row);
  edgeElement(k, chunk.body);
}

void RowKernelWriter::outputPassExtra(CachePlacement& placement) {
  if (columns_ == nullptr) return;
  partials_->beginChunk(placement.vec.pre_chunk, placement.vec.post_chunk);
  for (size_t k = 0; k < columns_->column_reductions.size(); ++k) {
    const auto* in = columns_->column_reductions[k]->input(0)->as<TensorView>();
    partials_->accumulate(w_.sink.at(), k, w_.value(in, w_.iterationIndexOf(in), placement));
  }
}

void RowKernelWriter::combine(kir::Block& k, const std::vector<kir::CombineState>& states) {
  for (size_t first = 0; first < states.size(); first += kir::kMaxLanesStates) {
    const size_t last = std::min(states.size(), first + kir::kMaxLanesStates);
    kir::combineLanes(k, {states[first],
                          p_.block[0],
                          kir::var("fusebox_norm_smem"),
                          {states.begin() + static_cast<std::ptrdiff_t>(first) + 1,
                           states.begin() + static_cast<std::ptrdiff_t>(last)}});
  }
  if (p_.row_split == 1) return;
  // Then across the cluster, through the exchange slots after the buffers'
  // shared memory: one of two regions, in turn (ClusterCombine).
  const int64_t region = int64_t{p_.block[1]} * widestCombinedStateBytes(st_, p_.reload);
  for (const kir::CombineState& state : states) {
    const kir::Value base =
        kir::call("fusebox::dynamicSharedMemory", {}, {kir::named("unsigned char")}) +
        kir::lit(p_.shared_buffer_bytes + (cluster_combines_++ % 2) * region);
    kir::combineCluster(k,
                        {state, p_.row_split, kir::reinterpretAs(kir::pointerTo(state.type), base),
                         kir::asIndex(kir::threadIdx('y')), kir::threadIdx('x') == kir::lit(0)});
  }
}

void RowKernelWriter::epilogue(kir::Block& k) {
  if (st_.reduced_outputs.empty()) return;
  kir::Value writes = kir::threadIdx('x') == kir::lit(0) && kir::var("active");
  if (p_.row_split > 1) writes = writes && kir::var("rank") == kir::lit(0);
  k.ifThen(writes).append(writeReducedOutputs(pass_));
}

GeneratedKernel RowKernelWriter::write(const std::string& scheduler) {
  kir::Block main;
  kir::Block rows = main, first_copies;
  kir::Value row_in_grid;
  const bool prefetch = p_.buffer_stages > 1;
  if (columns_ != nullptr) {
    partials_->declare(main);
    if (prefetch) main.declare("fusebox_stage", kir::intType(), kir::lit(0));
    if (prefetch || p_.staged_rows) first_copies = main.scope();
    // Inner-outer: the blocks walk the rows grid-stride, so each block's
    // column sums cover its share of the rows. The loop is placed once its
    // body is written: the buffers loaded once go before it.
    rows = kir::Block();
    row_in_grid = kir::asIndex(kir::var("row_base")) + kir::asIndex(kir::threadIdx('y'));
  } else if (p_.row_split > 1) {
    // Blocks rank 0 .. row_split - 1 of a cluster share its rows.
    FUSEBOX_CHECK(p_.grid[0] % static_cast<uint32_t>(p_.row_split) == 0,
                  "row kernel: a grid of {} blocks for clusters of {}", p_.grid[0], p_.row_split);
    const kir::Value split = kir::lit(p_.row_split);
    main.declare("rank", kir::intType(), kir::cast(kir::intType(), kir::blockIdx('x') % split),
                 {.is_const = true});
    row_in_grid = kir::asIndex(kir::blockIdx('x') / split) * kir::lit(p_.block[1]) +
                  kir::asIndex(kir::threadIdx('y'));
  } else {
    row_in_grid = kir::asIndex(kir::blockIdx('x')) * kir::lit(p_.block[1]) +
                  kir::asIndex(kir::threadIdx('y'));
  }
  declareRow(rows, row_in_grid);

  // Two stages: the passes wait for this row group's copies at the top,
  // none chunk by chunk.
  copies_waited_ = prefetch;
  kir::Block stages;
  writeStages(stages);
  epilogue(stages);
  if (prefetch) {
    prefetchRows(first_copies, rows);
  } else if (p_.staged_rows) {
    stageRows(first_copies, rows);
  } else if (!arrays_.loads.empty()) {
    rows.comment("load the persistent buffers");
    chunkRange(rows, arrays_.loads, 0, p_.batch, arrays_.asyncCopies());
  }
  if (edge_ != nullptr && !edge_->loads().empty()) edgeElement(rows, edge_->loads());
  rows.append(stages);
  if (prefetch)
    rows.assign(kir::var("fusebox_stage", kir::intType()),
                kir::lit(1) - kir::var("fusebox_stage", kir::intType()));
  if (columns_ != nullptr) {
    if (!arrays_.invariant_loads.empty()) {
      main.comment("the buffers no row moves, loaded once");
      invariantChunks(main, arrays_.invariant_loads);
    }
    main.forLoop("row_base", kir::named("int64_t"), firstRowBase(p_), kir::lit(p_.kept_extent),
                 rowStride(p_))
        .append(rows);
  }
  if (cluster_combines_ > 0) {
    main.comment("no block leaves while the cluster may read its exchange slots");
    main.evaluate(kir::call("fusebox::clusterSync", {}));
  }

  kir::Block before;
  if (edge_ != nullptr) before.append(edge_->decls());
  if (columns_ != nullptr) {
    main.comment("the column part");
    w_.sink.reset();
    partials_->finish(main, w_, layout_, f_, facts_);
    before.declareArray("fusebox_col_smem", kir::named("unsigned char"), partials_->sharedBytes(),
                        {.shared = true, .align = 16});
  }
  return finish(before, main, rowKernelSharedMemoryBytes(st_, p_), scheduler,
                p_.block[0] > 1 || partials_.has_value());
}

}  // namespace

int64_t rowKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p) {
  return kir::lanesCombineSharedBytes(p.block[0], p.threads(),
                                      widestCombinedStateBytes(st, p.reload));
}

std::unique_ptr<KernelPlan> rowKernelPlan(GeneratedKernel gen, const PersistentParams& p,
                                          bool cooperative, const Fusion& segment,
                                          RuntimeInfo& info, const RowFacts& facts) {
  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = std::move(gen.source);
  plan->kernel_ir = std::move(gen.kernel_ir);
  plan->bindings = std::move(gen.bindings);
  plan->launch.grid = p.grid;
  plan->launch.block = {static_cast<uint32_t>(p.block[0]), static_cast<uint32_t>(p.block[1]), 1};
  plan->launch.cooperative = cooperative;
  plan->launch.cluster = static_cast<uint32_t>(p.row_split);
  plan->launch.dynamic_shared_memory =
      static_cast<uint32_t>(p.shared_buffer_bytes + p.cluster_exchange_bytes);
  describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
  return plan;
}

GeneratedKernel generateRowKernel(const Fusion& segment, const NormalizationStructure& st,
                                  const RowFacts& facts, const PersistentParams& params,
                                  const RowBufferPlan& buffers, RuntimeInfo& info,
                                  const std::string& scheduler) {
  return RowKernelWriter(segment, st, facts, params, buffers, info, nullptr).write(scheduler);
}

GeneratedKernel generateInnerOuterKernel(const Fusion& segment, const InnerOuterParts& parts,
                                         const RowFacts& facts, const PersistentParams& params,
                                         const RowBufferPlan& buffers, RuntimeInfo& info,
                                         const std::string& scheduler,
                                         bool shared_column_accumulators) {
  return RowKernelWriter(segment, parts.rows, facts, params, buffers, info, &parts,
                         shared_column_accumulators)
      .write(scheduler);
}

}  // namespace fusebox::normalization
