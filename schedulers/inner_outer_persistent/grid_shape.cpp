// The inner-outer grid (grid_shape.h).
#include "grid_shape.h"

#include <algorithm>

namespace fusebox::inner_outer_persistent {

namespace {
constexpr int64_t kMaxBlocksPerSm = 8;
// Registers a thread may keep (the caller's `registers`): the kernels hold
// two or three buffers, the column accumulators and the row's values at
// once, and ptxas's count does not follow the bytes held closely enough to
// size blocks from them. On an H100, layernorm backward 16384x4096 (256
// threads a block, accumulators in registers) ran 0.184 ms at 2 blocks per
// SM (128 registers), 0.229 at 1 (168 registers) and 0.429 at 3 (80
// registers, spilling); 32768x1024 ran 0.092 ms at 2, 0.100 at 1 and 0.187
// at 3.
}  // namespace

void chooseGrid(normalization::PersistentParams& p, int64_t shared_bytes,
                const DeviceProperties& device, int64_t forced_per_sm, int64_t registers) {
  const int64_t threads = p.threads();
  int64_t per_sm = std::min(normalization::kMaxThreadsPerSm / threads,
                            device.registers_per_block / (threads * registers));
  if (shared_bytes > 0)
    per_sm = std::min(per_sm, (device.shared_memory_per_block + 1024) / shared_bytes);
  per_sm = std::clamp<int64_t>(per_sm, 1, kMaxBlocksPerSm);
  if (forced_per_sm > 0) per_sm = forced_per_sm;
  const int64_t row_blocks = std::max<int64_t>(1, (p.kept_extent + p.block[1] - 1) / p.block[1]);
  const int64_t blocks = std::min(row_blocks, per_sm * std::max(1, device.multiprocessor_count));
  p.grid = {static_cast<uint32_t>(blocks), 1, 1};
  // __launch_bounds__ holds the registers to what lets per_sm blocks share a
  // multiprocessor, so the cooperative launch fits.
  p.min_blocks_per_sm = static_cast<int>(per_sm);
  const int64_t limit = (int64_t{1} << 31) - 1;
  if (blocks * std::max<int64_t>(1, p.reduced_extent) >= limit) p.index32 = false;
}

}  // namespace fusebox::inner_outer_persistent
