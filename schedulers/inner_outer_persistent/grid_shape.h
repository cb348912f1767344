// The inner-outer grid: as many blocks as the device holds at once (the
// kernel waits at a grid barrier), which is also how many partial rows the
// final reduction combines.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>

#include "normalization/params.h"

namespace fusebox::inner_outer_persistent {

// Sets p.grid, p.min_blocks_per_sm and p.index32's column terms, from the
// row shape chooseRowShape left in `p`: blocks per multiprocessor from the
// threads, `registers` a thread (128 with the column accumulators in
// registers, fewer with them in shared memory) and `shared_bytes` (the
// kernel's static and dynamic shared memory), unless `forced_per_sm` > 0
// says.
void chooseGrid(normalization::PersistentParams& p, int64_t shared_bytes,
                const DeviceProperties& device, int64_t forced_per_sm = 0, int64_t registers = 128);

}  // namespace fusebox::inner_outer_persistent
