// The column-persistent kernel of outer normalizations (x - mean(x, 0),
// batch-norm statistics over a channels-last input): the reduced dims are
// outer, the kept ones (the columns) fastest in memory.
//
// Block (bx, by) covers a strip of block[0] * vector_width columns and a
// band of block[1] * batch rows; thread (x, y) keeps `vector_width`
// consecutive columns (vector loads along them) of `batch` rows
// (by * block[1] * batch + k * block[1] + y) of every persistent buffer in
// registers. Per stage it accumulates one state per column it holds,
// combines them over the block's rows through shared memory and, when the
// grid has several bands (grid[1] > 1), over the bands: each band stores a
// partial row to scratch memory, the grid waits at fusebox::gridSync (a
// cooperative launch), and every block reduces the partials of its columns
// in band order, so every block of a strip holds the same, deterministic,
// column results. Then it writes the full-domain outputs from its registers
// and band 0 the per-column outputs. The same source runs on both backends.
#pragma once

#include <fusebox/scheduler.h>

#include <string>

#include "kernelgen/kernel_source.h"
#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"
#include "normalization/structure.h"

namespace fusebox::normalization {

// Throws Unschedulable (row_facts.h) when the segment cannot be generated.
// `facts` and `buffers` come from the shared access walk (row_facts.h,
// persistent_buffers.h), which does not depend on the walking order.
kernelgen::GeneratedKernel generateColumnKernel(const Fusion& segment,
                                                const NormalizationStructure& st,
                                                const RowFacts& facts,
                                                const PersistentParams& params,
                                                const RowBufferPlan& buffers, RuntimeInfo& info,
                                                const std::string& scheduler);

// Static shared memory the column kernel's combines use.
int64_t columnKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p);

}  // namespace fusebox::normalization
