// The reduction heuristics (params.h): memory order and kind, vector width,
// block shape, unroll, and whether the reduced extent is split across blocks.
//
// The targets come from what a bandwidth-bound kernel needs on a GPU: 16-byte
// loads, several independent loads in flight per thread before the first is
// used, blocks of 256 threads, and enough blocks to fill every SM several
// times over (docs/schedulers/reduction.md gives the figures).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/checked_math.h>

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "kernelgen/access.h"
#include "kernelgen/int_math.h"
#include "kernelgen/layout_choice.h"
#include "params.h"

namespace fusebox::reduction {

using kernelgen::ceilDiv;
using kernelgen::pow2Ceil;
using kernelgen::pow2Floor;

using kernelgen::Access;

int64_t ReductionParams::keptPerBlock() const {
  return kind == ReductionKind::Inner ? block_y : int64_t{block_x} * vector_width;
}

uint64_t ReductionParams::hash() const {
  return std::hash<std::string>()(identity());
}

bool ReductionParams::sameAs(const HeuristicParams& other) const {
  const auto* o = dynamic_cast<const ReductionParams*>(&other);
  return o != nullptr && o->identity() == identity();
}

std::string ReductionParams::identity() const {
  if (shape_mode == ShapeMode::Static) return toString();
  return structure() + "\n" + shape_classes;  // "shapes: symbolic" first: never a Static one
}

std::string ReductionParams::loadsLine() const {
  return streamed_loads ? "streamed (inputs read once evict first)" : "plain";
}

std::string ReductionParams::structure() const {
  if (shape_mode == ShapeMode::Static) return toString();
  std::vector<std::string> classes;
  for (size_t d = 0; d < sizes.size(); ++d)
    classes.push_back(fmt::format("{}{}", reduced[d] ? "r" : "i", sizes[d] == 1 ? "1" : ""));
  return fmt::format(
      "shapes: symbolic\n"
      "kind: {}\n"
      "input: [{}] (size-1 dims marked 1)\n"
      "kept_dims: [{}]\n"
      "reduced_dims: [{}]\n"
      "vector_width: {}\n"
      "unroll: {}\n"
      "block: [{}, {}, 1]\n"
      "grid_reduction: {}\n"
      "launch_bounds: {}\n"
      "index_type: {}\n"
      "loads: {}",
      kind == ReductionKind::Inner ? "inner" : "outer", fmt::join(classes, ", "),
      fmt::join(kept_dims, ", "), fmt::join(reduced_dims, ", "), vector_width, unroll, block_x,
      block_y, grid[1] > 1 ? "blocks combine through scratch (their number a parameter)" : "no",
      min_blocks_per_sm > 0
          ? fmt::format("{} threads, {} blocks per SM", block_x * block_y, min_blocks_per_sm)
          : std::string("none"),
      index32 ? "int32" : "int64", loadsLine());
}

std::string ReductionParams::toString() const {
  std::vector<std::string> classes;
  for (size_t d = 0; d < sizes.size(); ++d)
    classes.push_back(fmt::format("{}{}", reduced[d] ? "r" : "i", sizes[d]));
  return fmt::format(
      "kind: {}\n"
      "input: [{}]\n"
      "kept_dims: [{}] (extent {})\n"
      "reduced_dims: [{}] (extent {})\n"
      "vector_width: {}\n"
      "unroll: {}\n"
      "block: [{}, {}, 1]\n"
      "grid: [{}, {}, {}]\n"
      "grid_reduction: {}\n"
      "launch_bounds: {}\n"
      "index_type: {}\n"
      "loads: {}{}{}",
      kind == ReductionKind::Inner ? "inner" : "outer", fmt::join(classes, ", "),
      fmt::join(kept_dims, ", "), kept_extent, fmt::join(reduced_dims, ", "), reduced_extent,
      vector_width, unroll, block_x, block_y, grid[0], grid[1], grid[2],
      grid[1] > 1 ? fmt::format("{} blocks per kept element combine through scratch", grid[1])
                  : std::string("no"),
      min_blocks_per_sm > 0
          ? fmt::format("{} threads, {} blocks per SM", block_x * block_y, min_blocks_per_sm)
          : std::string("none"),
      index32 ? "int32" : "int64", loadsLine(),
      rowEdges()
          ? fmt::format("\nrow_edges: a scalar head aligns each row's vectors (lead offset "
                        "mod {}: [{}] + {}), and a scalar tail ends it",
                        vector_width, fmt::join(head_coef_residues, ", "), head_const_residue)
          : std::string(),
      shape_mode == ShapeMode::Symbolic ? "\nshapes: symbolic" : "");
}

namespace {

constexpr int64_t kBlockThreads = 256;
// Blocks of 256 threads that fill every SM (8 each at 2048 threads per SM).
constexpr int64_t kBlocksPerSm = 8;

// The dims in memory order (kept and reduced, with their extents), the kind
// and the vector width.
void chooseLayout(ReductionParams& p, const HeuristicInputs& in) {
  p.sizes = in.sizes;
  p.reduced = in.reduced;
  const std::vector<int> order = kernelgen::memoryOrder(in.sizes, *in.accesses);
  for (int d : order) {
    const auto k = static_cast<size_t>(d);
    (in.reduced[k] ? p.reduced_dims : p.kept_dims).push_back(d);
    (in.reduced[k] ? p.reduced_extent : p.kept_extent) *= in.sizes[k];
  }
  // With no dim of size > 1 the kind does not matter; Inner reduces nothing.
  p.kind = !order.empty() && !in.reduced[static_cast<size_t>(order.back())] ? ReductionKind::Outer
                                                                            : ReductionKind::Inner;
  if (!order.empty() && p.kept_extent > 0 && p.reduced_extent > 0)
    p.vector_width = kernelgen::vectorWidthAlong(in.sizes, *in.accesses, order.back());
  // An outer Welford reduction keeps v states a thread (mean, M2 and count
  // each) and combines them one at a time: more threads with 4 states each
  // beat half as many with 8. H200, statistics of a 16384x1024 bf16 input:
  // 0.0435 ms at 4 elements a thread, 0.076 at 8.
  if (p.kind == ReductionKind::Outer && in.welford) p.vector_width = std::min(p.vector_width, 4);
  // Rows no vector divides: vectors after a scalar head (H200, sum over
  // 4096x50257 bf16 rows: 122.2 us element by element, 104.9 after a head,
  // 103.1 at 50264; float 32768x4099: 151.1, 128.8, and 128.8 at 4096).
  const int cap = in.max_vector_width > 0 ? static_cast<int>(pow2Floor(in.max_vector_width)) : 16;
  p.vector_width = std::min(p.vector_width, cap);
  if (p.kind == ReductionKind::Inner && !in.symbolic && p.reduced_dims.size() == 1 &&
      p.kept_extent > 0 && p.reduced_extent >= 256) {
    const kernelgen::AlignedBody body = kernelgen::alignedBodyAlong(*in.accesses, order.back());
    const int width = std::min(body.width, cap);
    if (width > p.vector_width) {
      // Residues modulo a narrower width than the body's are its residues'.
      p.vector_width = width;
      for (int64_t r : body.coef_residues) p.head_coef_residues.push_back(r % width);
      p.head_const_residue = body.c_residue % width;
    }
  }
}

// Blocks along the kept elements (grid_x) and splits of the reduced extent.
struct GridShape {
  int64_t grid_x = 1;
  int64_t splits = 1;
};

// Inner: a row's lanes along threadIdx.x, rows along threadIdx.y.
GridShape innerBlocks(ReductionParams& p, const HeuristicInputs& in, int64_t sms) {
  GridShape g;
  const int64_t vecs = std::max<int64_t>(1, ceilDiv(p.reduced_extent, p.vector_width));
  // Short rows: a power-of-two group of lanes per row (a warp-group shuffle
  // reduces it), each lane two of the row's vectors, loaded back to back:
  // with one vector a lane the loads in flight did not cover the latency.
  // H200, kernel µs by lanes (one vector a lane / two / four): f32
  // 1048576x32 46.1 / 42.8 / 49.1, 1048576x64 80.4 / 74.5 / 74.8, 524288x128
  // 79.8 / 73.4 / 73.8; bf16 1048576x32 28.5 / 25.5 / 26.0, 1048576x64 45.8 /
  // 42.4 / 47.6. Long rows: about 4 vectors per thread per row, loaded in
  // one step (H200, bf16 16384x4096: 42.3 us at 128 lanes, 42.9 at 64, the
  // same in two calls; docs/perf/corpus-5.md).
  p.block_x = static_cast<int>(vecs <= 32 ? std::max<int64_t>(1, pow2Ceil(vecs) / 2)
                                          : std::clamp<int64_t>(pow2Floor(vecs / 4), 32, 512));
  // One kept element: a lone block has the GPU to itself, so it takes up to
  // 512 lanes and its loop fewer steps, each a memory latency (a gather's
  // two: cross-entropy's mean of 4096 rows' target logits, 2 steps of 256
  // lanes, took 8.4 us on H200).
  if (p.kept_extent == 1 && vecs > 32)
    p.block_x = static_cast<int>(
        std::max<int64_t>(p.block_x, std::clamp<int64_t>(pow2Ceil(ceilDiv(vecs, 4)), 32, 512)));
  if (in.row_lanes > 0) p.block_x = in.row_lanes;
  // At least a whole warp: the shuffles of a lane group name all 32 lanes.
  p.block_y = static_cast<int>(std::max<int64_t>(
      std::min<int64_t>(kBlockThreads / p.block_x, pow2Ceil(std::max<int64_t>(1, p.kept_extent))),
      32 / std::min(p.block_x, 32)));
  p.unroll = static_cast<int>(std::clamp<int64_t>(ceilDiv(vecs, p.block_x), 1, 4));
  if (in.unroll > 0) p.unroll = in.unroll;
  g.grid_x = std::max<int64_t>(1, ceilDiv(p.kept_extent, p.block_y));
  const int64_t steps = ceilDiv(vecs, int64_t{p.block_x} * p.unroll);
  if (g.grid_x < 2 * sms && steps >= 8)
    g.splits = std::min(ceilDiv(4 * sms, g.grid_x), ceilDiv(steps, 4));
  return g;
}

// Outer: columns along threadIdx.x, reduced rows along threadIdx.y.
GridShape outerBlocks(ReductionParams& p, const HeuristicInputs& in, int64_t sms) {
  GridShape g;
  const int64_t v = p.vector_width;
  const int64_t cols = std::max<int64_t>(1, ceilDiv(p.kept_extent, v));
  p.block_x = static_cast<int>(std::min<int64_t>(32, pow2Ceil(cols)));
  p.block_y = static_cast<int>(std::clamp<int64_t>(
      kBlockThreads / p.block_x, 1, pow2Ceil(std::max<int64_t>(1, p.reduced_extent))));
  // The block's states meet in shared memory: keep them within 32 KiB.
  while (p.block_y > 1 && int64_t{p.block_x} * p.block_y * v * in.accumulator_bytes > 32768)
    p.block_y /= 2;
  p.unroll = static_cast<int>(std::clamp<int64_t>(ceilDiv(p.reduced_extent, p.block_y), 1, 4));
  if (in.unroll > 0) p.unroll = in.unroll;
  g.grid_x = ceilDiv(cols, p.block_x);
  const int64_t steps = ceilDiv(p.reduced_extent, int64_t{p.block_y} * p.unroll);
  // Split to about 4 waves of full SMs: a grid of one or two waves loses
  // a share to its last, partial wave whenever fewer blocks fit an SM than
  // assumed (H100, GELU backward + bias gradient: 0.151 ms with 33 splits
  // and no launch bounds, 0.146 ms with 128 splits and 8 blocks per SM).
  const int64_t target_blocks = kBlocksPerSm * sms;
  if (g.grid_x < target_blocks && steps >= 4)
    g.splits = std::min(ceilDiv(4 * target_blocks, g.grid_x), ceilDiv(steps, 2));
  // Welford states are dear to combine (a division each; the block's
  // combine runs on one warp while the others wait at the barrier, and the
  // last block walks every split's partials): one wave of the six blocks
  // per SM their registers allow (40 at 4 states a thread), each thread
  // reducing about kWelfordRows rows or more first. H200, statistics of bf16
  // inputs at 4 states a thread, ms by splits (32 / 64 / 128):
  // 16384x1024 0.0435 / 0.0420 / 0.0629; 65536x1024 0.155 / 0.101 / 0.122;
  // 16384x4096 0.102 / 0.135 / 0.206; four waves (256 splits at 16384x1024
  // and 8 states) took 0.238.
  constexpr int64_t kWelfordRows = 32, kWelfordBlocksPerSm = 6;
  if (in.welford)
    g.splits = std::min(
        g.splits, std::max<int64_t>(
                      1, std::min(ceilDiv(kWelfordBlocksPerSm * sms, g.grid_x),
                                  ceilDiv(p.reduced_extent, int64_t{p.block_y} * kWelfordRows))));
  return g;
}

// A split outer grid is sized in waves of kBlocksPerSm blocks per SM; hold
// the compiler to them (at 256 threads: 32 registers) when the loop is light
// enough to fit without spilling: one accumulator, at most two streamed
// inputs and one streamed output (the GELU backward + bias gradient compiles
// to 32 registers without spills). Heavier loops keep their registers: the
// layernorm backward's two column sums with four streams spilled 348 bytes
// under the bounds and ran at 45% of copy. Inner grids run many waves.
bool lightLoop(const HeuristicInputs& in) {
  int streamed_in = 0, streamed_out = 0;
  for (const Access& a : *in.accesses) {
    bool moves = !a.offset.affine;
    for (size_t d = 0; d < in.sizes.size() && !moves; ++d)
      moves = in.reduced[d] && a.offset.a.coef[d] != 0;
    if (moves) ++(a.is_output ? streamed_out : streamed_in);
  }
  return in.accumulators == 1 && in.accumulator_bytes <= 8 && streamed_in <= 2 && streamed_out <= 1;
}

// Streamed loads: the loop's lines leave the L2 first. A loop that only
// reads (every output a kept-sized reduction, at most 1/16 of what it
// reads) then finds the dirty lines the L2 holds (the last kernel's writes)
// still there when it ends, instead of writing them back while it reads.
// That pays up to about six L2s of reads; past it, lines evicted first cost
// more than the write-backs they spare. H200 (50 MB of L2), after a 256 MiB
// write as do_bench flushes, kernel µs plain / streamed: sum over rows,
// f32 4096x4096 25.9 / 22.1, 8192x4096 42.8 / 37.6, 16384x4096 72.3 /
// 69.5, 32768x4096 130.0 / 133.1; bf16 8192x4096 25.9 / 22.9, 16384x4096
// 42.6 / 39.0, 32768x4096 72.3 / 71.3, 65536x4096 130.2 / 134.5; sum over
// columns f32 4096x4096 30.1 / 27.8, 8192x4096 52.9 / 49.0, 16384x4096
// 80.2 / 78.9, 32768x4096 139.6 / 142.4. Kernels that write as much as they
// read lost 1-5% streamed (bias-GELU f32 32768x4096 256.8 / 262.0, RMSNorm
// forward bf16 32768x1024 38.9 / 40.0; docs/perf/corpus-9.md).
constexpr int64_t kStreamedL2Multiple = 6;
bool streamedLoads(const ReductionParams& p, const HeuristicInputs& in, int64_t l2_bytes) {
  if (in.streamed_loads != "auto") return in.streamed_loads == "on";
  if (l2_bytes <= 0 || p.reduced_extent < 16) return false;
  int64_t read = 0;
  for (const Access& a : *in.accesses) {
    if (a.is_output) return false;  // the loop writes an output of the input's size
    // The elements it reads: the extents of the dims that move it.
    std::vector<int64_t> moving{a.element_size};
    for (size_t d = 0; d < in.sizes.size(); ++d)
      if (!a.offset.affine || a.offset.a.coef[d] != 0) moving.push_back(in.sizes[d]);
    const std::optional<int64_t> bytes = checked::product(moving);
    const std::optional<int64_t> sum = bytes ? checked::add(read, *bytes) : std::nullopt;
    if (!sum) return false;
    read = *sum;
  }
  return read <= kStreamedL2Multiple * l2_bytes;
}

// 32-bit indexing when every offset and every position a thread computes fits.
bool fitsIndex32(const ReductionParams& p, const HeuristicInputs& in, const GridShape& g) {
  const int64_t limit = (int64_t{1} << 31) - 1;
  int64_t reach = std::max(p.kept_extent, p.reduced_extent);
  reach = std::max(reach, g.grid_x * p.keptPerBlock());
  reach = std::max(reach, g.splits * p.kept_extent);  // scratch partials
  reach =
      std::max(reach, g.splits * int64_t{p.block_x} * p.unroll * p.vector_width + p.reduced_extent);
  bool fits = reach < limit;
  for (const Access& a : *in.accesses) fits &= a.max_offset < limit;
  const std::optional<int64_t> numel = checked::product(in.sizes);
  return fits && numel.has_value() && *numel < limit;
}

}  // namespace

ReductionParams computeReductionParams(const HeuristicInputs& in, const DeviceProperties& device) {
  ReductionParams p;
  chooseLayout(p, in);
  const int64_t sms = std::max(1, device.multiprocessor_count);
  GridShape g = p.kind == ReductionKind::Inner ? innerBlocks(p, in, sms) : outerBlocks(p, in, sms);
  if (in.forced_splits > 0) g.splits = in.forced_splits;
  g.splits = std::clamp<int64_t>(g.splits, 1, 65535);
  p.grid = {static_cast<uint32_t>(std::min<int64_t>(g.grid_x, UINT32_MAX)),
            static_cast<uint32_t>(g.splits), 1};
  if (p.kind == ReductionKind::Outer && g.splits > 1 &&
      int64_t{p.block_x} * p.block_y == kBlockThreads && lightLoop(in))
    p.min_blocks_per_sm = static_cast<int>(kBlocksPerSm);
  p.index32 = fitsIndex32(p, in, g);
  p.streamed_loads = streamedLoads(p, in, device.l2_cache_bytes);
  return p;
}

}  // namespace fusebox::reduction
