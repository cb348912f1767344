// The inner persistent heuristics: vector width, threads per row, chunks per
// thread, rows per block, from the row's length and its persistent buffers.
#pragma once

#include <fusebox/scheduler.h>

#include <string>

#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"

namespace fusebox::inner_persistent {

class InnerPersistentParams final : public normalization::PersistentParams {
 protected:
  std::string extraLines() const override;
};

struct HeuristicResult {
  InnerPersistentParams params;
  // Why the row's buffers do not fit on chip (the run-time rejection), or "".
  std::string problem;
};

// Choices the options force (0: the heuristic decides).
struct ForcedShape {
  int64_t threads_per_row = 0;
  int64_t chunks_per_thread = 0;
};

HeuristicResult computeInnerParams(const normalization::RowFacts& facts,
                                   const normalization::RowAccesses& accesses,
                                   const normalization::RowBufferPlan& plan,
                                   const DeviceProperties& device, ForcedShape forced = {});

}  // namespace fusebox::inner_persistent
