// The outer-persistent shape: how many columns a block covers, how many
// rows each thread keeps, and how many bands of rows the grid splits a
// column into (several bands need a grid reduction, so a cooperative launch
// whose blocks all fit on the device at once).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>

#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"

namespace fusebox::outer_persistent {

// Choices the options force (0: the heuristic decides).
struct ForcedColumnShape {
  int64_t rows_per_thread = 0;
  int64_t blocks_per_sm = 0;
};

// Fills p's shape; returns why the columns' buffers do not fit on chip (the
// run-time rejection, with the sizes), or "". `state_bytes_per_column`: the
// accumulator bytes of one column's reductions (a thread holds them for
// each of its vector_width columns).
std::string chooseColumnShape(const normalization::RowFacts& facts,
                              const normalization::RowAccesses& accesses,
                              const normalization::RowBufferPlan& plan,
                              const DeviceProperties& device, normalization::PersistentParams& p,
                              int64_t state_bytes_per_column, ForcedColumnShape forced = {});

}  // namespace fusebox::outer_persistent
