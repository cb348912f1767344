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
          "memory), or \"auto\" (registers when they fit, else shared memory when it holds "
          "them)"};
}

BufferPlacement parseBufferPlacement(const std::string& value) {
  if (value == "registers") return BufferPlacement::Registers;
  if (value == "shared") return BufferPlacement::Shared;
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
  const int64_t v = p.vector_width;
  const int64_t chunks = std::max<int64_t>(1, ceilDiv(p.reduced_extent, v));
  // Bytes every element of a row costs in buffers (summed over buffers).
  const int64_t element_bytes =
      (p.reduced_extent > 0 ? plan.bytes_per_row / p.reduced_extent : 0) + extra_bytes_per_element;
  const int64_t loaded_bytes =
      p.reduced_extent > 0 ? plan.loaded_bytes_per_row / p.reduced_extent : 0;

  // Candidates (threads per row, chunks per thread): a power-of-two group of
  // lanes for rows of at most 32 chunks; whole warps otherwise. The best
  // fits the registers, wastes the fewest chunk slots, and then prefers a
  // warp per row up to 4 chunks each (shuffles only: no barrier), else 128
  // to 512 threads per row loading at least 64 bytes each, the fewest that
  // do (H100, 16384x4096 bf16: layernorm forward 0.0974 ms at 128 threads x
  // 4 chunks of 8 against 0.1036 ms at 256 x 2; softmax backward, two
  // buffers, 0.136 ms at 256 x 2 against 0.188 ms at 128 x 4; 32768x1024
  // layernorm 0.0527 ms with a warp per row x 4 chunks, 0.0576 at 128 x 1).
  struct Candidate {
    int64_t bx = 1, b = 1;
  };
  std::vector<Candidate> candidates;
  if (chunks <= 32) candidates.push_back({pow2Ceil(chunks), 1});
  for (int64_t b = 1; b <= kMaxBatch; ++b) {
    const int64_t bx = ceilDiv(ceilDiv(chunks, b), 32) * 32;
    if (chunks > 32 && bx <= kMaxThreads) candidates.push_back({bx, b});
  }
  if (forced.threads_per_row > 0 || forced.chunks_per_thread > 0) {
    const int64_t bx = forced.threads_per_row;
    const int64_t b = forced.chunks_per_thread > 0 ? forced.chunks_per_thread
                                                   : ceilDiv(chunks, std::max<int64_t>(bx, 1));
    candidates = {{bx > 0 ? bx : ceilDiv(ceilDiv(chunks, b), 32) * 32, b}};
    if (candidates[0].bx > kMaxThreads)
      problem =
          fmt::format("chunks_per_thread {} needs {} threads for the row's {} chunks, more than {}",
                      b, candidates[0].bx, chunks, kMaxThreads);
    else if (candidates[0].bx * candidates[0].b < chunks)
      problem =
          fmt::format("threads_per_row {} x chunks_per_thread {} cover {} chunks of the row's {}",
                      bx, b, candidates[0].bx * candidates[0].b, chunks);
  }
  // Rows per block: blocks of about 256 threads, whole warps for the lane
  // groups' shuffles.
  auto rowsPerBlock = [&](int64_t bx) {
    const int64_t y = std::min<int64_t>(256 / bx, pow2Ceil(std::max<int64_t>(1, p.kept_extent)));
    return std::max<int64_t>({y, 32 / std::min<int64_t>(bx, 32), 1});
  };
  // Rows that overflow the registers: each thread keeps its first
  // `register_chunks` chunks of every buffer in registers and the rest in
  // the block's dynamic shared memory, beside the combine's static scratch
  // (at most 8 B a thread).
  auto registerChunks = [&](const Candidate& c, int64_t rows) {
    if (forced.placement == BufferPlacement::Shared || element_bytes == 0) return int64_t{0};
    const int64_t fit =
        threadBudgetBytes(std::max<int64_t>(c.bx * rows, 32), device) / (v * element_bytes);
    return std::min(c.b - 1, fit);
  };
  auto sharedBytes = [&](const Candidate& c, int64_t rows, int64_t register_chunks) {
    int64_t bytes = 0;
    for (const PersistentBuffer& b : plan.buffers)
      bytes += sharedBufferRegionBytes(b.element_bytes, rows, c.bx, c.b - register_chunks, v);
    return bytes;
  };
  auto sharedFits = [&](const Candidate& c, int64_t rows) {
    return sharedBytes(c, rows, registerChunks(c, rows)) <=
           device.shared_memory_per_block - 8 * c.bx * rows;
  };
  const bool shared_allowed = forced.placement != BufferPlacement::Registers &&
                              plan.kept_values.empty() && extra_bytes_per_element == 0;

  int64_t block_x = 1, batch = 1, block_y = 1;
  bool found = false, shared = false;
  double best_score = 0;
  for (const bool in_shared : {false, true}) {
    if (found) break;
    if (in_shared ? !shared_allowed : forced.placement == BufferPlacement::Shared) continue;
    for (const Candidate& c : candidates) {
      int64_t rows = rowsPerBlock(c.bx);
      if (in_shared) {
        // As many of the usual rows per block as the shared memory holds,
        // whole warps still.
        while (rows > 1 && !sharedFits(c, rows) && c.bx * rows / 2 >= 32) rows /= 2;
        if (!sharedFits(c, rows)) continue;
      } else if (c.b * v * element_bytes > threadBudgetBytes(std::max<int64_t>(c.bx, 32), device)) {
        continue;
      }
      const bool warp_row = c.bx <= 32 && c.b <= 4;
      const bool in_range = warp_row || (c.bx >= 128 && c.bx <= 512);
      const double score = (in_range ? 0 : 1e9) + static_cast<double>(c.bx * c.b - chunks) * 1e3 +
                           (warp_row ? 0 : 10) + loadPenalty(c.b * v * loaded_bytes);
      if (!found || score < best_score) {
        found = true;
        shared = in_shared;
        best_score = score;
        block_x = c.bx;
        batch = c.b;
        block_y = rows;
      }
    }
  }
  if (!found && problem.empty()) {
    const int64_t per_thread = ceilDiv(chunks, kMaxThreads) * v * element_bytes;
    std::vector<std::string> names;
    for (const PersistentBuffer& b : plan.buffers)
      names.push_back(fmt::format("{} ({} B)", b.tensor, b.element_bytes));
    if (extra_bytes_per_element > 0)
      names.push_back(fmt::format("column accumulators ({} B)", extra_bytes_per_element));
    const int64_t row_bytes = plan.bytes_per_row + extra_bytes_per_element * p.reduced_extent;
    std::vector<std::string> limits;
    if (forced.placement != BufferPlacement::Shared)
      limits.push_back(fmt::format(
          "{} B per thread at {} threads, more than the {} B of registers a thread may hold",
          per_thread, kMaxThreads, threadBudgetBytes(kMaxThreads, device)));
    if (forced.placement == BufferPlacement::Registers)
      limits.push_back(
          "shared memory is not tried (persistent_buffers = \"registers\", or the inner-outer "
          "kernel, whose shared memory holds its column accumulators)");
    else if (extra_bytes_per_element == 0)
      limits.push_back(fmt::format("more than the {} B of shared memory a block may have",
                                   device.shared_memory_per_block));
    problem = fmt::format(
        "a row of {} elements keeps {} B of persistent buffers on chip ({}): {}; the fusion is "
        "split into reduction and pointwise kernels",
        p.reduced_extent, row_bytes, fmt::join(names, ", "), fmt::join(limits, ", and "));
  }
  if (forced.placement == BufferPlacement::Shared && !found && !plan.kept_values.empty())
    problem = "persistent_buffers = \"shared\" keeps loads only, not kept values";
  p.batch = static_cast<int>(batch);
  p.min_blocks_per_sm = 1;
  p.block[0] = static_cast<int>(block_x);
  p.block[1] = static_cast<int>(block_y);
  p.register_batch = static_cast<int>(batch);
  if (shared) {
    const Candidate c{block_x, batch};
    p.register_batch = static_cast<int>(registerChunks(c, block_y));
    p.shared_buffer_bytes = sharedBytes(c, block_y, p.register_batch);
  }
  const int64_t grid_x = std::max<int64_t>(1, ceilDiv(p.kept_extent, block_y));
  p.grid = {static_cast<uint32_t>(std::min<int64_t>(grid_x, UINT32_MAX)), 1, 1};

  // 32-bit indexing when every offset and position a thread computes fits.
  p.index32 = fitsIndex32(p, accesses, std::max(grid_x * block_y, batch * block_x * v));
  return problem;
}

}  // namespace fusebox::normalization
