// The row-persistent heuristics every scheduler whose kernel walks rows
// shares (inner persistent, and the row part of inner-outer): vector width,
// threads per row, chunks per thread and rows per block, from the row's
// length and its persistent buffers.
#pragma once

#include <fusebox/configurable.h>
#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <vector>

#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

// Where a row kernel keeps its persistent buffers: registers only (the
// inner-outer kernel, whose shared memory holds its column accumulators),
// dynamic shared memory only, registers when they fit and shared memory
// when they do not, or nowhere: every pass reads its inputs again (Reload;
// the row's second read comes from the L2 while the row is in flight).
enum class BufferPlacement { Registers, Shared, Auto, Reload };

// Choices a scheduler's options force (0: the heuristic decides).
struct ForcedShape {
  int64_t threads_per_row = 0;
  int64_t chunks_per_thread = 0;
  BufferPlacement placement = BufferPlacement::Registers;
  // Blocks (a thread-block cluster) that share a row; 0: the heuristic
  // decides, up to DeviceProperties::max_cluster_blocks. The inner-outer
  // kernel, whose blocks walk the rows grid-stride, keeps 1.
  int64_t blocks_per_row = 1;
  // Rows no vector divides (or that start off a vector's alignment) may get
  // vector chunks after a scalar head (PersistentParams::rowEdges). The
  // inner-outer kernel, whose column accumulators follow the chunks, keeps
  // whole chunks.
  bool row_edges = true;
};

// The options that force them: threads_per_row, chunks_per_thread; and
// blocks_per_row, for a scheduler whose rows may span a cluster.
std::vector<OptionSpec> rowShapeOptions();
OptionSpec blocksPerRowOption();
// row_edges, for a scheduler whose rows may get a scalar edge
// (ForcedShape::row_edges).
OptionSpec rowEdgesOption();
// Throws UserError at the setting's place when a forced value is out of range.
void checkRowShapeOptions(const std::string& scheduler, const OptionSettings& settings,
                          ForcedShape values);
// The option `persistent_buffers` ("auto", "registers" or "shared") of a
// scheduler whose rows may live in shared memory, and its value.
OptionSpec bufferPlacementOption();
BufferPlacement parseBufferPlacement(const std::string& value);

// Fills the shape fields of `p` (sizes, dims, vector width, batch, block,
// a grid of one block per `block[1]` rows, buffers and where they live,
// index type). Returns why the row's buffers do not fit on chip (the
// run-time rejection), or "". Shared-memory buffers hold loads only: with
// kept values in `plan` they are not tried (the caller plans again without).
// `extra_bytes_per_element`: registers a thread spends per element it holds
// beside the buffers (the column accumulators of inner-outer kernels).
std::string chooseRowShape(const RowFacts& facts, const RowAccesses& accesses,
                           const RowBufferPlan& plan, const DeviceProperties& device,
                           PersistentParams& p, ForcedShape forced = {},
                           int64_t extra_bytes_per_element = 0);

// The scheduler_params line saying how a row's threads combine.
std::string rowCombineLine(const PersistentParams& p);

}  // namespace fusebox::normalization
