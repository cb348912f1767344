// The outer-persistent shape (column_shape.h).
//
// A bandwidth-bound column kernel wants 16-byte loads along the columns,
// a warp covering at least 128 contiguous bytes of a row, 256-thread blocks,
// and the whole device busy. Each thread keeps `batch` rows of
// vector_width columns of every buffer in registers; a column longer than
// one band holds is split into bands, combined through a grid reduction.
// Every block must then be resident at once: blocks per SM come from the
// registers (one block of at most 255 registers a thread when the column
// is split into bands, else two of at most 128), and a column needing more
// bands than fit is refused (the segmenter splits the fusion into a
// reduction and a pointwise kernel).
#include "column_shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "kernelgen/int_math.h"
#include "kernelgen/layout_choice.h"
#include "normalization/domain_shape.h"

namespace fusebox::outer_persistent {

using kernelgen::ceilDiv;
using kernelgen::pow2Ceil;

using namespace fusebox::normalization;

namespace {

constexpr int64_t kMaxBatch = 32;
constexpr int64_t kBlockThreads = 256;

}  // namespace

std::string chooseColumnShape(const RowFacts& facts, const RowAccesses& accesses,
                              const RowBufferPlan& plan, const DeviceProperties& device,
                              PersistentParams& p, int64_t state_bytes_per_column,
                              ForcedColumnShape forced) {
  describeDomain(facts, plan, device, p);
  if (p.kept_dims.empty())  // one column: walk the last kept dim
    for (size_t d = p.sizes.size(); d-- > 0;)
      if (!p.reduced[d]) {
        p.kept_dims.push_back(static_cast<int>(d));
        break;
      }
  const int inner = p.kept_dims.back();
  if (p.sizes[static_cast<size_t>(inner)] > 1)
    p.vector_width = kernelgen::vectorWidthAlong(p.sizes, accesses.accesses, inner);
  const int64_t V = p.vector_width;
  const int64_t C = p.kept_extent, N = p.reduced_extent;
  const int64_t chunks = std::max<int64_t>(1, ceilDiv(C, V));
  const int64_t bx = std::min<int64_t>(32, pow2Ceil(chunks));
  const int64_t by = std::max<int64_t>(
      1, std::min<int64_t>(kBlockThreads / bx, pow2Ceil(std::max<int64_t>(1, N))));
  const int64_t threads = bx * by;
  const int64_t gx = ceilDiv(chunks, bx);
  const int64_t element_bytes = N > 0 ? plan.bytes_per_row / N : 0;

  // The shape at `per_sm` blocks an SM, or nullopt (`why` adds why).
  struct Shape {
    int64_t batch = 1, gy = 1, per_sm = 1;
  };
  std::vector<std::string> why;
  auto shapeAt = [&](int64_t per_sm) -> std::optional<Shape> {
    per_sm = std::min(per_sm, kMaxThreadsPerSm / threads);
    const int64_t max_regs = device.registers_per_block / (threads * std::max<int64_t>(1, per_sm));
    // The column states of a stage (V of each) live beside the buffers.
    const int64_t budget = std::max<int64_t>(
        0, threadBudgetBytes(threads, device, max_regs) - V * state_bytes_per_column);
    int64_t max_batch =
        element_bytes > 0 ? std::min(kMaxBatch, budget / (V * element_bytes)) : kMaxBatch;
    if (forced.rows_per_thread > 0) {
      if (forced.rows_per_thread > max_batch) {
        why.push_back(fmt::format(
            "rows_per_thread {} needs {} B of registers a thread, more than {}",
            forced.rows_per_thread, forced.rows_per_thread * V * element_bytes, budget));
        return std::nullopt;
      }
      max_batch = forced.rows_per_thread;
    }
    if (max_batch < 1) return std::nullopt;
    const int64_t capacity = std::max(1, device.multiprocessor_count) * per_sm;
    const int64_t gy_min = std::max<int64_t>(1, ceilDiv(N, by * max_batch));
    int64_t gy = 1;
    if (forced.rows_per_thread > 0) {
      gy = gy_min;
    } else if (gy_min > 1 || gx < capacity) {
      gy = std::max(gy_min, std::min(capacity / gx, ceilDiv(std::max<int64_t>(1, N), by)));
    }
    if (gy > 1 && gx * gy > capacity) {
      why.push_back(fmt::format(
          "{} rows in bands of at most {} and {} strips of columns need {} blocks at once, but "
          "{} fit ({} per multiprocessor)",
          N, by * max_batch, gx, gx * gy, capacity, per_sm));
      return std::nullopt;
    }
    const int64_t batch = std::max<int64_t>(1, ceilDiv(ceilDiv(std::max<int64_t>(1, N), gy), by));
    return Shape{batch, std::max<int64_t>(1, ceilDiv(N, by * batch)), per_sm};
  };
  // A column split into bands: one block an SM first (255 registers, up to
  // 32 rows a thread: fewer bands, each thread's loads in flight at once),
  // then two (more registers in all, for longer columns). H200, channels-
  // last batch norm bf16, µs: 4096x2048 27.5 at one (16 bands of 32 rows a
  // thread) against 38.9 at two (32 bands of 16), 2048x4096 26.0 against
  // 30.9, 8192x1024 31.9 against 54.5. A column of one band keeps two
  // blocks an SM (its launch need not fit at once).
  std::optional<Shape> shape;
  if (forced.blocks_per_sm > 0) {
    shape = shapeAt(forced.blocks_per_sm);
  } else {
    shape = shapeAt(1);
    if (!shape || shape->gy == 1)
      if (std::optional<Shape> two = shapeAt(2); two) shape = two;
  }
  if (shape) {
    p.block = {static_cast<int>(bx), static_cast<int>(by)};
    p.batch = static_cast<int>(shape->batch);
    p.grid = {static_cast<uint32_t>(gx), static_cast<uint32_t>(shape->gy), 1};
    p.min_blocks_per_sm = static_cast<int>(shape->per_sm);
    p.index32 = fitsIndex32(p, accesses,
                            std::max({gx * bx * V, shape->gy * C, shape->gy * by * shape->batch}));
    return {};
  }
  std::vector<std::string> names;
  for (const PersistentBuffer& b : plan.buffers)
    names.push_back(fmt::format("{} ({} B)", b.tensor, b.element_bytes));
  return fmt::format(
      "a column of {} elements keeps {} B of persistent buffers on chip ({}) for each of the {} "
      "columns: {} (shared-memory buffers are not implemented); the fusion is split into "
      "reduction and pointwise kernels",
      N, plan.bytes_per_row, fmt::join(names, ", "), C,
      why.empty() ? std::string("no shape fits") : fmt::format("{}", fmt::join(why, "; ")));
}

}  // namespace fusebox::outer_persistent
