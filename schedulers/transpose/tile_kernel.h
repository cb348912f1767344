// The tiled transpose kernel (tile_layout.h's choices), built in the kernel
// IR: each block loads the transposed inputs' kTile x kTile tile with its
// threads running along tile_dim (coalesced reads), then computes the
// element code with its threads running along inner_dim (coalesced writes
// and reads of the other inputs), reading the staged inputs from the tile.
#pragma once

#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <memory>

#include "pointwise/analysis.h"
#include "tile_layout.h"

namespace fusebox::transpose {

std::unique_ptr<KernelPlan> makeTilePlan(const Fusion& segment,
                                         const pointwise::SegmentFacts& facts,
                                         const TransposeParams& params, RuntimeInfo& info);

}  // namespace fusebox::transpose
