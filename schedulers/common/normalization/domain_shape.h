// What every persistent shape starts from, whichever way its kernel walks
// the reduction domain (rows for inner and inner-outer, columns for outer):
// the domain's dims split into kept and reduced, the buffers, the register
// bytes a thread may fill, and whether 32-bit indices suffice.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>

#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

// Registers a thread spends beside its buffers (indices, accumulators, the
// values computed from the buffers).
constexpr int64_t kRegisterOverhead = 32;

// Fills p's sizes, reduced flags, kept and reduced dims (those of size > 1,
// outermost first; with one reduced element, its last reduced dim), the
// extents and the buffers with the register budget.
void describeDomain(const RowFacts& facts, const RowBufferPlan& plan,
                    const DeviceProperties& device, PersistentParams& p);

// Bytes of buffer one thread may hold at `threads` threads per block and
// at most `max_registers` registers a thread (255 by the ISA), after the
// overhead.
int64_t threadBudgetBytes(int64_t threads, const DeviceProperties& device,
                          int64_t max_registers = 255);

// Whether every offset a thread computes fits a 32-bit index: the domain,
// every access, and `positions` (the largest linear position the kernel
// forms from block and thread indices).
bool fitsIndex32(const PersistentParams& p, const RowAccesses& accesses, int64_t positions);

}  // namespace fusebox::normalization
