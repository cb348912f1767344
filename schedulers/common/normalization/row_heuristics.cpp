// The row-persistent heuristics (row_heuristics.h).
//
// A bandwidth-bound row kernel wants 16-byte loads, all of a row's loads
// issued before the first reduction waits on them, and blocks of 128 to 512
// threads. The persistent buffers decide how far a row may be spread: each
// thread keeps batch * vector_width elements of every buffer in registers,
// so a wide row needs more threads or more chunks per thread, and a row
// whose buffers exceed the registers is refused (the segmenter then splits
// the fusion into a reduction kernel and a pointwise kernel).
#include "normalization/row_heuristics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fusebox/checked_math.h>
#include <fusebox/error.h>

#include <algorithm>
#include <cmath>

#include "kernel_ir/combine.h"
#include "kernelgen/int_math.h"
#include "kernelgen/layout_choice.h"
#include "normalization/chunk_buffers.h"
#include "normalization/domain_shape.h"

namespace fusebox::normalization {

using kernelgen::ceilDiv;
using kernelgen::pow2Ceil;

std::vector<OptionSpec> rowShapeOptions() {
  return {{"threads_per_row", OptionType::Int, int64_t{0},
           "Threads that share a row: a power of two up to 32 or a multiple of 32 up to 1024 "
           "(0: the heuristic decides; for tuning and tests)"},
          {"chunks_per_thread", OptionType::Int, int64_t{0},
           "Vector chunks of the row each thread keeps, 1 to 32 (0: the heuristic decides)"}};
}

OptionSpec blocksPerRowOption() {
  return {"blocks_per_row", OptionType::Int, int64_t{0},
          "Blocks that share each row, a thread-block cluster combining through distributed "
          "shared memory: 1, 2, 4 or 8 (0: the heuristic decides, up to the device's clusters)"};
}

OptionSpec rowEdgesOption() {
  return {"row_edges", OptionType::Bool, true,
          "Rows no vector divides (or that start off a vector's alignment): vector chunks after "
          "a scalar head that aligns each row, the rest a scalar tail (false: chunks of one "
          "element)"};
}

void checkRowShapeOptions(const std::string& scheduler, const OptionSettings& settings,
                          ForcedShape values) {
  const int64_t t = values.threads_per_row;
  const bool t_ok =
      t == 0 || (t > 0 && t <= 32 && (t & (t - 1)) == 0) || (t > 32 && t <= 1024 && t % 32 == 0);
  if (!t_ok)
    throw UserError(whereSet(settings, "threads_per_row"),
                    fmt::format("scheduler '{}': option 'threads_per_row' must be 0, a power of "
                                "two up to 32 or a multiple of 32 up to 1024, got {}",
                                scheduler, t));
  const int64_t s = values.blocks_per_row;
  if (s != 0 && s != 1 && s != 2 && s != 4 && s != 8)
    throw UserError(whereSet(settings, "blocks_per_row"),
                    fmt::format("scheduler '{}': option 'blocks_per_row' must be 0 (the heuristic "
                                "decides), 1, 2, 4 or 8, got {}",
                                scheduler, s));
  const int64_t c = values.chunks_per_thread;
  if (c < 0 || c > 32)
    throw UserError(whereSet(settings, "chunks_per_thread"),
                    fmt::format("scheduler '{}': option 'chunks_per_thread' must be in [0, 32] "
                                "(0: the heuristic decides), got {}",
                                scheduler, c));
}

OptionSpec bufferPlacementOption() {
  return {"persistent_buffers", OptionType::String, std::string("auto"),
          "Where each row's persistent buffers live: \"registers\", \"shared\" (dynamic shared "
          "memory), \"reload\" (nowhere: each pass reads the inputs again, from the L2 while "
          "the row is in flight), or \"auto\" (registers when they fit, else shared memory "
          "when it holds them)"};
}

BufferPlacement parseBufferPlacement(const std::string& value) {
  if (value == "registers") return BufferPlacement::Registers;
  if (value == "shared") return BufferPlacement::Shared;
  if (value == "reload") return BufferPlacement::Reload;
  FUSEBOX_CHECK(value == "auto", "persistent_buffers: unchecked value \"{}\"", value);
  return BufferPlacement::Auto;
}

std::string rowCombineLine(const PersistentParams& p) {
  const auto& block = p.block;
  if (block[0] <= 1) return "combine: none (one thread per row)";
  if (!kir::lanesCombineShuffles(block[0]))
    return fmt::format("combine: block reduction over {} threads", block[0]);
  return fmt::format("combine: warp shuffles over {} lanes", block[0]);
}

namespace {

constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxBatch = 32;
// Bytes a thread should load per row before the first reduction waits: four
// 16-byte loads in flight. More costs registers (occupancy), fewer leaves
// memory idle; the penalty grows faster below the target.
constexpr double kLoadBytesPerThread = 64;
double loadPenalty(int64_t bytes) {
  if (bytes <= 0) return 0;
  const double r = static_cast<double>(bytes) / kLoadBytesPerThread;
  return r >= 1 ? std::log2(r) : 10 - std::log2(r);
}

}  // namespace

std::string chooseRowShape(const RowFacts& facts, const RowAccesses& accesses,
                           const RowBufferPlan& plan, const DeviceProperties& device,
                           PersistentParams& p, ForcedShape forced,
                           int64_t extra_bytes_per_element) {
  std::string problem;
  describeDomain(facts, plan, device, p);

  const int inner = p.reduced_dims.back();
  if (p.sizes[static_cast<size_t>(inner)] > 1)
    p.vector_width = kernelgen::vectorWidthAlong(p.sizes, accesses.accesses, inner);
  // A row no vector divides: vectors after a scalar head, when the row has
  // whole warps of chunks (the edge's at most 2 * width - 2 elements go one
  // a thread). H200, softmax forward 4096x50257 bf16: 764 us element by
  // element, against 246 us at the even 50264 beside it.
  p.head_coef_residues.clear();
  p.head_const_residue = 0;
  if (forced.row_edges && p.reduced_dims.size() == 1) {
    const kernelgen::AlignedBody body = kernelgen::alignedBodyAlong(accesses.accesses, inner);
    if (body.width > p.vector_width && p.reduced_extent >= 32 * int64_t{body.width} &&
        (forced.threads_per_row == 0 || forced.threads_per_row >= 2 * body.width)) {
      p.vector_width = body.width;
      p.head_coef_residues = body.coef_residues;
      p.head_const_residue = body.c_residue;
    }
  }
  const int64_t v = p.vector_width;
  // With a scalar edge, a row has at most extent / v whole chunks: sized
  // by them, no thread waits on a slot of nothing (H200, layernorm forward
  // 16384x4097 bf16: 121.7 us sized by 513 chunks, 118.7 by 512).
  const int64_t chunks =
      std::max<int64_t>(1, p.rowEdges() ? p.reduced_extent / v : ceilDiv(p.reduced_extent, v));
  // Bytes every element of a row costs in buffers (summed over buffers).
  const int64_t element_bytes =
      (p.reduced_extent > 0 ? plan.bytes_per_row / p.reduced_extent : 0) + extra_bytes_per_element;
  const int64_t loaded_bytes =
      p.reduced_extent > 0 ? plan.loaded_bytes_per_row / p.reduced_extent : 0;

  // Candidates (blocks per row, threads per row, chunks per thread): a
  // power-of-two group of lanes for rows of at most 32 chunks; whole warps
  // otherwise, the row's chunks dealt over a cluster of 2 to 8 blocks when
  // the device has clusters (each block at least a warp's worth).
  struct Candidate {
    int64_t split = 1, bx = 1, b = 1;
  };
  std::vector<int64_t> splits{1};
  if (forced.blocks_per_row > device.max_cluster_blocks)
    problem = fmt::format("blocks_per_row {} needs clusters of {} blocks, but {} allows at most {}",
                          forced.blocks_per_row, forced.blocks_per_row, device.name,
                          device.max_cluster_blocks);
  // Reloaded rows stay in one block unless forced, or wider than one
  // block's chunks: over clusters they ran slower at every width measured
  // (H200, bf16, one pass for the max and exp-sum: softmax 2048x131072 419
  // us in one block of 1024 threads, 539 and 471 over clusters of 2 and 4;
  // cross-entropy 283, 330, 345; at 4096x32000 208/214/253 and
  // 152/163/210), even where the rows in flight overflow the L2: the
  // clusters' barriers cost more than a second read from memory.
  const bool one_block =
      forced.placement == BufferPlacement::Reload && chunks <= kMaxThreads * kMaxBatch;
  if (forced.blocks_per_row > 1)
    splits = {forced.blocks_per_row};
  else if (forced.blocks_per_row == 0 && extra_bytes_per_element == 0 && !one_block)
    for (int64_t s = 2; s <= std::min<int64_t>(device.max_cluster_blocks, 8); s *= 2)
      if (chunks >= 32 * s) splits.push_back(s);
  std::vector<Candidate> candidates;
  for (const int64_t split : splits) {
    const int64_t block_chunks = ceilDiv(chunks, split);
    if (split == 1 && chunks <= 32) candidates.push_back({1, pow2Ceil(chunks), 1});
    if (split > 1 && block_chunks <= 32) candidates.push_back({split, 32, 1});  // forced
    for (int64_t b = 1; b <= kMaxBatch; ++b) {
      const int64_t bx = ceilDiv(ceilDiv(block_chunks, b), 32) * 32;
      if (block_chunks > 32 && bx <= kMaxThreads) candidates.push_back({split, bx, b});
    }
  }
  if (forced.threads_per_row > 0 || forced.chunks_per_thread > 0) {
    const int64_t split = std::max<int64_t>(1, forced.blocks_per_row);
    const int64_t block_chunks = ceilDiv(chunks, split);
    const int64_t bx = forced.threads_per_row;
    const int64_t b = forced.chunks_per_thread > 0
                          ? forced.chunks_per_thread
                          : ceilDiv(block_chunks, std::max<int64_t>(bx, 1));
    candidates = {{split, bx > 0 ? bx : ceilDiv(ceilDiv(block_chunks, b), 32) * 32, b}};
    const Candidate& c = candidates[0];
    if (c.bx > kMaxThreads)
      problem =
          fmt::format("chunks_per_thread {} needs {} threads for the row's {} chunks, more than {}",
                      b, c.bx, chunks, kMaxThreads);
    else if (c.split * c.bx * c.b < chunks)
      problem = fmt::format(
          "blocks_per_row {} x threads_per_row {} x chunks_per_thread {} cover {} chunks of the "
          "row's {}",
          c.split, c.bx, c.b, c.split * c.bx * c.b, chunks);
  }
  // Rows per block: blocks of about 256 threads, whole warps for the lane
  // groups' shuffles; one row a block when a cluster shares it.
  auto rowsPerBlock = [&](const Candidate& c) {
    if (c.split > 1) return int64_t{1};
    const int64_t y = std::min<int64_t>(256 / c.bx, pow2Ceil(std::max<int64_t>(1, p.kept_extent)));
    return std::max<int64_t>({y, 32 / std::min<int64_t>(c.bx, 32), 1});
  };
  // Rows that overflow the registers: each thread keeps its first
  // `register_chunks` chunks of every buffer in registers and the rest in
  // the block's dynamic shared memory, beside the combine's static scratch
  // (at most 8 B a thread) and a cluster's exchange slots.
  auto registerChunks = [&](const Candidate& c, int64_t rows) {
    if (forced.placement == BufferPlacement::Shared || element_bytes == 0) return int64_t{0};
    const int64_t fit =
        threadBudgetBytes(std::max<int64_t>(c.bx * rows, 32), device) / (v * element_bytes);
    return std::min(c.b - 1, fit);
  };
  auto sharedBytes = [&](const Candidate& c, int64_t rows, int64_t register_chunks) {
    return sharedBuffersBytes(plan.buffers, rows, c.bx, c.b - register_chunks, v);
  };
  auto exchangeBytes = [&](const Candidate& c, int64_t rows) {
    return c.split > 1 ? clusterExchangeBytes(rows, kMaxClusterStateBytes) : int64_t{0};
  };
  auto sharedFits = [&](const Candidate& c, int64_t rows) {
    return sharedBytes(c, rows, registerChunks(c, rows)) + exchangeBytes(c, rows) <=
           device.shared_memory_per_block - 8 * c.bx * rows;
  };
  const bool reload = forced.placement == BufferPlacement::Reload;
  const bool shared_allowed = forced.placement != BufferPlacement::Registers && !reload &&
                              plan.kept_values.empty() && extra_bytes_per_element == 0;
  // Warps an SM keeps resident with `c`'s blocks of `rows` rows: a row's
  // loads, combines and stores wait in turn, so one block alone leaves the
  // memory idle between them; past 32 warps more buys little.
  auto residentWarps = [&](const Candidate& c, int64_t rows, int64_t register_chunks,
                           int64_t smem) {
    const int64_t threads = std::max<int64_t>(c.bx * rows, 32);
    const int64_t regs =
        std::min<int64_t>(255, kRegisterOverhead + ceilDiv(register_chunks * v * element_bytes, 4));
    int64_t blocks =
        std::min<int64_t>({32, kMaxThreadsPerSm / threads,
                           device.registers_per_block / std::max<int64_t>(1, regs * threads)});
    if (smem > 0) blocks = std::min(blocks, device.shared_memory_per_block / (smem + 1024));
    return blocks * threads / 32;
  };

  int64_t block_x = 1, batch = 1, block_y = 1, split = 1;
  bool found = false, shared = false;
  double best_score = 0;
  // A row stays in one block when its registers or shared memory hold it,
  // and spans a cluster only when neither does (H200, the cross-entropy row
  // kernel over 2048x131072 bf16, which writes float rows: 484 us in one
  // block with shared memory, 719 us over clusters of 4). Reloaded rows
  // keep nothing: one block a row, or the split `blocks_per_row` forces.
  struct Phase {
    bool split, in_shared;
  };
  // Rows that keep two loaded inputs or more and nothing computed (softmax
  // backward's gradient and output): one chunk a thread, as many threads as
  // the row has chunks, beat two or four at every width measured, where rows
  // of one input want four, and so do rows that also keep a computed value.
  // H200, bf16, µs: softmax backward 32768x1024 53.0 at 128 x 1 against 63.8
  // at a warp x 4; 16384x4096 98.9 at 512 x 1 against 103.2 at 256 x 2;
  // 8192x8192 104.3 at 1024 x 1 against 117.8 at 512 x 2. Layernorm forward
  // 16384x4096 (one input): 78.5 at 128 x 4, 83.9 at 256 x 2, 96.6 at
  // 512 x 1; softmax forward 16384x4096 (its input and exp(x - max)): 78.3
  // at 128 x 4, 105.7 at 512 x 1.
  const bool one_chunk_rows = !reload && plan.buffers.size() >= 2 &&
                              plan.bytes_per_row == plan.loaded_bytes_per_row && chunks >= 128 &&
                              chunks <= kMaxThreads && forced.threads_per_row == 0 &&
                              forced.chunks_per_thread == 0;
  std::vector<Phase> phases;
  for (const bool split_phase : {false, true})
    for (const bool in_shared : {false, true}) phases.push_back({split_phase, in_shared});
  for (const Phase& phase : phases) {
    if (found) break;
    const bool in_shared = phase.in_shared;
    if (in_shared ? !shared_allowed : forced.placement == BufferPlacement::Shared) continue;
    for (const Candidate& c : candidates) {
      if (!reload && (c.split > 1) != phase.split) continue;
      if (reload && phase.split) continue;  // every split in the first phase
      int64_t rows = rowsPerBlock(c);
      int64_t register_chunks = c.b, smem = exchangeBytes(c, rows);
      if (in_shared) {
        // As many of the usual rows per block as the shared memory holds,
        // whole warps still.
        while (rows > 1 && !sharedFits(c, rows) && c.bx * rows / 2 >= 32) rows /= 2;
        if (!sharedFits(c, rows)) continue;
        register_chunks = registerChunks(c, rows);
        smem += sharedBytes(c, rows, register_chunks);
      } else if (c.b * v * element_bytes > threadBudgetBytes(std::max<int64_t>(c.bx, 32), device) ||
                 smem > device.shared_memory_per_block) {
        continue;
      }
      // Lower is better: outside 128 to 512 threads (or a warp a row) only
      // when nothing else fits; then idle chunk slots, loads in flight (64
      // bytes a thread, load penalty: H100, 16384x4096 bf16, layernorm
      // forward 0.0974 ms at 128 threads x 4 chunks of 8 against 0.1036 ms
      // at 256 x 2; softmax backward, two buffers, 0.136 ms at 256 x 2
      // against 0.188 ms at 128 x 4; 32768x1024 layernorm 0.0527 ms with a
      // warp a row x 4 chunks, 0.0576 at 128 x 1), resident warps, and the
      // clusters' barriers. (H200, 4096x32000 bf16 softmax backward: 160
      // threads x 25 chunks in registers, one block of 5 warps an SM, ran
      // 640 us.)
      // Reloaded rows keep nothing, so blocks may be larger and want twice
      // the loads in flight; the rows in flight must stay in the L2 for
      // their next pass (H200, 4096x32000 bf16 softmax backward: 1024
      // threads x 4 chunks, 264 rows of 128 KB in flight, ran 241 us;
      // 512 x 8, 528 rows, 311 us; 800 x 5, 298 us; RMSNorm at 512 x 8,
      // 181 us, at 1024 x 4, 249 us). A power of two of threads combines
      // in fewer steps (rows in shared memory too: softmax forward
      // 4096x32000 bf16 ran 194 us at 448 threads x 9 chunks, 170 at
      // 512 x 8).
      const int64_t slots = c.split * c.bx * c.b;
      const bool warp_row = c.split == 1 && c.bx <= 32 && c.b <= 4;
      const bool single_chunk = c.split == 1 && c.b == 1;
      const bool in_range = warp_row || (c.bx >= 128 && c.bx <= (reload ? 1024 : 512)) ||
                            (one_chunk_rows && single_chunk);
      const int64_t warps = residentWarps(c, rows, register_chunks, smem);
      const int64_t loads = c.b * v * loaded_bytes / (reload ? 2 : 1);
      // A row read once (cross-entropy's max and exp-sum in one pass) has
      // no next pass to keep it in the L2 for.
      double l2_overflow = 0;
      if (reload && p.row_reads > 1 && device.l2_cache_bytes > 0) {
        const double in_flight = static_cast<double>(device.multiprocessor_count) *
                                 static_cast<double>(warps * 32 / (c.bx * rows)) * rows /
                                 static_cast<double>(c.split) * loaded_bytes * p.reduced_extent;
        const double budget = 0.7 * static_cast<double>(device.l2_cache_bytes);
        if (in_flight > budget) l2_overflow = 10 + 10 * (in_flight / budget - 1);
      }
      const double score =
          (in_range ? 0 : 1e9) + (one_chunk_rows && !single_chunk ? 1e8 : 0) +
          20.0 * static_cast<double>(slots - chunks) / slots + (warp_row ? 0 : 10) +
          loadPenalty(loads) + l2_overflow +
          ((reload || in_shared) && (c.bx & (c.bx - 1)) != 0 ? 0.5 : 0) +
          (warps >= 32 ? 0
                       : 2 * std::log2(32.0 / static_cast<double>(std::max<int64_t>(warps, 1)))) +
          std::log2(static_cast<double>(c.split));
      if (!found || score < best_score) {
        found = true;
        shared = in_shared;
        best_score = score;
        block_x = c.bx;
        batch = c.b;
        block_y = rows;
        split = c.split;
      }
    }
  }
  if (!found && problem.empty()) {
    const int64_t widest = splits.back();
    const int64_t per_thread = ceilDiv(chunks, kMaxThreads * widest) * v * element_bytes;
    std::vector<std::string> names;
    for (const PersistentBuffer& b : plan.buffers)
      names.push_back(fmt::format("{} ({} B)", b.tensor, b.element_bytes));
    if (extra_bytes_per_element > 0)
      names.push_back(fmt::format("column accumulators ({} B)", extra_bytes_per_element));
    const int64_t row_bytes = plan.bytes_per_row + extra_bytes_per_element * p.reduced_extent;
    std::vector<std::string> limits;
    if (forced.placement != BufferPlacement::Shared)
      limits.push_back(fmt::format(
          "{} B per thread at {} threads{}, more than the {} B of registers a thread may hold",
          per_thread, kMaxThreads,
          widest > 1 ? fmt::format(" in each of a cluster's {} blocks", widest) : "",
          threadBudgetBytes(kMaxThreads, device)));
    if (forced.placement == BufferPlacement::Registers)
      limits.push_back(
          "shared memory is not tried (persistent_buffers = \"registers\", or the inner-outer "
          "kernel, whose shared memory holds its column accumulators)");
    else if (extra_bytes_per_element == 0)
      limits.push_back(fmt::format("more than the {} B of shared memory a block may have{}",
                                   device.shared_memory_per_block,
                                   widest > 1 ? fmt::format(" (x {} blocks)", widest) : ""));
    problem = fmt::format(
        "a row of {} elements keeps {} B of persistent buffers on chip ({}): {}; the fusion is "
        "split into reduction and pointwise kernels",
        p.reduced_extent, row_bytes, fmt::join(names, ", "), fmt::join(limits, ", and "));
  }
  if (forced.placement == BufferPlacement::Shared && !found && !plan.kept_values.empty())
    problem = "persistent_buffers = \"shared\" keeps loads only, not kept values";
  p.batch = static_cast<int>(batch);
  p.row_split = static_cast<int>(split);
  p.min_blocks_per_sm = 1;
  p.block[0] = static_cast<int>(block_x);
  p.block[1] = static_cast<int>(block_y);
  p.register_batch = static_cast<int>(batch);
  if (shared) {
    const Candidate c{split, block_x, batch};
    p.register_batch = static_cast<int>(registerChunks(c, block_y));
    p.shared_buffer_bytes = sharedBytes(c, block_y, p.register_batch);
  }
  // A cluster of `split` blocks a group of rows.
  const int64_t grid_x = std::max<int64_t>(1, ceilDiv(p.kept_extent, block_y)) * split;
  p.grid = {static_cast<uint32_t>(std::min<int64_t>(grid_x, UINT32_MAX)), 1, 1};

  // 32-bit indexing when every offset and position a thread computes fits.
  p.index32 = fitsIndex32(p, accesses, std::max(grid_x * block_y, split * batch * block_x * v));
  return problem;
}

}  // namespace fusebox::normalization
