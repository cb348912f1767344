// The column-persistent kernel generator (column_kernel.h).
//
// Each stage's chunk loops are fully unrolled, as the row kernel's: the
// buffers (pb<n>[batch], one Array of vector_width columns per row the
// thread holds) are indexed by constants and stay in registers, and every
// column state is an Array of vector_width.
#include "normalization/column_kernel.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/error.h>

#include <algorithm>

#include "kernel_ir/combine.h"
#include "kernel_ir/print_cuda.h"
#include "normalization/persistent_writer.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

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

// The bytes of each combine over the grid, in kernel order: a reduction's
// state once, a variance's sum and then its squared deviations.
std::vector<int64_t> gridCombineBytes(const NormalizationStructure& st) {
  std::vector<int64_t> out;
  for (int s = 0; s < st.stages; ++s) {
    for (size_t a = 0; a < st.reductions.size(); ++a) {
      if (st.stage[a] != s) continue;
      const Accumulator A = accumulatorFor(st.reductions[a]);
      out.push_back(combinedStateBytes(A));
    }
    for (size_t a = 0; a < st.reductions.size(); ++a) {
      if (st.stage[a] != s) continue;
      const Accumulator A = accumulatorFor(st.reductions[a]);
      if (A.welford) out.push_back(combinedStateBytes(A));
    }
  }
  return out;
}

class ColumnKernelWriter final : public PersistentWriter {
 public:
  ColumnKernelWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                     const PersistentParams& p, const RowBufferPlan& buffers, RuntimeInfo& info)
      : PersistentWriter(segment, st, facts, p, buffers, info, columnLoopDims(p), p.vector_width) {}

  GeneratedKernel write(const std::string& scheduler);

 private:
  int64_t rowsPerBand() const { return int64_t{p_.block[1]} * p_.batch; }
  // Row r = band_base + k * block[1] + y of the band, for k < batch.
  void chunkLoop(kir::Block& k, const kir::Block& body,
                 const std::vector<VectorPlacement::ChunkLoad>& loads) override;
  // The per-column states (Arrays of vector_width) over the block's rows,
  // then over the grid's bands; every thread of the strip gets the results.
  void combine(kir::Block& k, const std::vector<kir::CombineState>& states) override;
  void combineOne(kir::Block& k, const kir::CombineState& state);
  void combineBlockRows(kir::Block& k, const kir::CombineState& state) const;
  void epilogue(kir::Block& k);

  // Grid combines: the scratch pointer, the next combine's partial rows.
  std::string scratch_;
  std::vector<int64_t> partial_offsets_;
  size_t next_combine_ = 0;
};

void ColumnKernelWriter::chunkLoop(kir::Block& k, const kir::Block& body,
                                   const std::vector<VectorPlacement::ChunkLoad>& loads) {
  FUSEBOX_CHECK(loads.empty(), "column kernel: {} loads issued ahead of the chunks", loads.size());
  kir::Block chunk =
      k.forLoop("k", kir::intType(), kir::lit(0), kir::lit(p_.batch), {}, kir::Unroll::Full);
  const kir::Value r =
      chunk.declare("r", kir::indexType(),
                    kir::var("band_base") + kir::asIndex(kir::var("k")) * kir::lit(p_.block[1]) +
                        kir::asIndex(kir::threadIdx('y')),
                    {.is_const = true});
  kir::Block in = chunk.ifThen(kir::var("active") && r < kir::lit(p_.reduced_extent));
  declareDimIndices(in, p_.reduced_dims, p_.sizes, "r");
  for (size_t g = 0; g < p_.reduced_dims.size(); ++g)
    in.declare(fmt::format("m{}", g), kir::indexType(),
               kir::var(fmt::format("i{}", md_.groups[g][0])), kir::kConstUnused);
  in.append(body);
}

void ColumnKernelWriter::combineBlockRows(kir::Block& k, const kir::CombineState& state) const {
  kir::combineRows(k, {.s = state,
                       .rows = p_.block[1],
                       .columns = p_.block[0],
                       .width = p_.vector_width,
                       .smem = kir::var("fusebox_norm_smem"),
                       .broadcast = true});
}

void ColumnKernelWriter::combine(kir::Block& k, const std::vector<kir::CombineState>& states) {
  for (const kir::CombineState& state : states) combineOne(k, state);
}

void ColumnKernelWriter::combineOne(kir::Block& k, const kir::CombineState& state) {
  combineBlockRows(k, state);
  if (p_.grid[1] <= 1) return;
  const int64_t offset = partial_offsets_.at(next_combine_++);
  kir::Block bands = k.scope();
  bands.comment(fmt::format("the bands' partial rows of {}", kir::printValue(state.state)));
  const kir::Value scratch = kir::var("col_scratch");
  kir::GridCombine grid;
  grid.protocol = kir::GridProtocol::Barrier;
  grid.states.push_back({state, bands.declare("part", kir::constPointerTo(state.type),
                                              kir::reinterpretAs(kir::pointerTo(state.type),
                                                                 scratch + kir::lit(offset)))});
  grid.width = p_.vector_width;
  grid.group = kir::asIndex(kir::blockIdx('y'));
  grid.groups = kir::lit(p_.grid[1]);
  grid.known_groups = p_.grid[1];
  grid.stride = kir::lit(p_.kept_extent);
  grid.own = kir::var("cchunk");
  grid.writes = kir::threadIdx('y') == kir::lit(0) && kir::var("active");
  grid.reads = kir::var("active");
  // Thread row y reduces bands y, y + block[1], ...
  grid.walker = kir::asIndex(kir::threadIdx('y'));
  grid.walkers = p_.block[1];
  grid.sync = kir::reinterpretAs(kir::pointerTo(kir::named("unsigned int")), scratch);
  kir::combineGrid(bands, std::move(grid));
  combineBlockRows(k, state);
}

// The per-column outputs (batch-norm's mean and invstd): written once, by
// the first band's first row of threads.
void ColumnKernelWriter::epilogue(kir::Block& k) {
  if (st_.reduced_outputs.empty()) return;
  kir::Block v = k.ifThen(kir::blockIdx('y') == kir::lit(0) && kir::threadIdx('y') == kir::lit(0) &&
                          kir::var("active"))
                     .forLoop("v", kir::intType(), kir::lit(0), kir::lit(p_.vector_width), {},
                              kir::Unroll::Full);
  v.declare(fmt::format("i{}", p_.kept_dims.back()), kir::indexType(),
            kir::var("mb") + kir::var("v"), kir::kConstUnused);
  v.append(writeReducedOutputs(pass_));
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
  kir::Block main;
  const kir::Type index = kir::indexType();
  const kir::Value col_chunk =
      main.declare("col_chunk", index,
                   (kir::asIndex(kir::blockIdx('x')) * kir::lit(p_.block[0]) +
                    kir::asIndex(kir::threadIdx('x'))) *
                       kir::lit(p_.vector_width),
                   {.is_const = true});
  const kir::Value active = main.declare("active", kir::boolType(),
                                         col_chunk < kir::lit(p_.kept_extent), {.is_const = true});
  // Inactive threads take part in the combines; their indices stay in range.
  main.declare("cchunk", index, kir::select(active, col_chunk, kir::lit(0)), {.is_const = true});
  declareDimIndices(main, p_.kept_dims, p_.sizes, "cchunk", "mb");
  for (size_t g = p_.reduced_dims.size(); g + 1 < md_.groups.size(); ++g)
    main.declare(fmt::format("m{}", g), index, kir::var(fmt::format("i{}", md_.groups[g][0])),
                 kir::kConstUnused);
  main.declare("band_base", index, kir::asIndex(kir::blockIdx('y')) * kir::lit(rowsPerBand()),
               {.is_const = true});
  if (!scratch_.empty())
    main.declare("col_scratch", kir::constPointerTo(kir::named("unsigned char")),
                 kir::cast(kir::pointerTo(kir::named("unsigned char")), kir::var(scratch_)));

  kir::Block stages;
  writeStages(stages);
  epilogue(stages);
  if (!arrays_.loads.empty()) {
    main.comment("load the persistent buffers");
    chunkLoop(main, arrays_.loads, {});
    // Column buffers live in registers: nothing copied asynchronously to wait for.
    FUSEBOX_CHECK(!arrays_.asyncCopies(), "column kernel: buffers copied into shared memory");
  }
  main.append(stages);
  return finish({}, main, columnKernelSharedMemoryBytes(st_, p_), scheduler, true);
}

}  // namespace

int64_t columnKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p) {
  if (p.block[1] <= 1) return 0;
  return int64_t{p.threads()} * p.vector_width * widestCombinedStateBytes(st);
}

GeneratedKernel generateColumnKernel(const Fusion& segment, const NormalizationStructure& st,
                                     const RowFacts& facts, const PersistentParams& params,
                                     const RowBufferPlan& buffers, RuntimeInfo& info,
                                     const std::string& scheduler) {
  return ColumnKernelWriter(segment, st, facts, params, buffers, info).write(scheduler);
}

}  // namespace fusebox::normalization
