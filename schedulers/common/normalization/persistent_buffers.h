// Persistent-buffer analysis of row kernels: which values stay on chip
// between a reduction and their reuse, and how many bytes that costs per row.
//
// A value read by more than one pass over the row (the reductions of stage
// 0, those of stage 1 that read stage 0's results, ..., the outputs; a
// variance takes two passes) must outlive the reductions between them. Every such value is
// projected back to the segment inputs it is computed from: the kernel keeps those inputs' elements
// in registers at their own dtype (a bfloat16 row, not its float32 cast) and recomputes the value
// in each stage from them. The analysis therefore works on loads: a load made in two or more
// passes, that moves along the reduced dims, is a persistent buffer; a load no reduced dim moves (a
// row's mean) is one element per row and is simply read again. The one exception is a value whose
// recomputation costs more than its registers: see planRowBuffers.
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "normalization/params.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

struct RowBufferPlan {
  std::set<std::string> cached;  // accessKey()s of the loads kept on chip
  // Values kept from the pass that first computes them (tensor -> pass).
  std::map<const TensorView*, int, ByName> kept_values;
  std::vector<PersistentBuffer> buffers;
  int64_t bytes_per_row = 0;         // on chip, per kept element
  int64_t loaded_bytes_per_row = 0;  // of it, the loads (not the kept values)
  // Bytes a row's full-domain outputs store, per kept element (off chip).
  int64_t written_bytes_per_row = 0;
  // The most distinct row loads (along the reduced dims) one pass makes: a
  // reloaded pass loads each of them a chunk.
  int most_loads_a_pass = 0;
};

// `keep_values`: also keep the values of transcendental ops (exp, log,
// tanh, erf...) that a later pass would compute again, at their compute
// type: softmax's exp(x - max) costs 4 bytes a row element more but one
// exponential fewer per element.
RowBufferPlan planRowBuffers(const RowAccesses& accesses, const RowFacts& facts,
                             bool keep_values = true);

// The bytes of registers a block may fill with persistent buffers: half the
// register file (the other half holds indices, temporaries and the values
// computed from the buffers).
int64_t registerBudgetBytes(const DeviceProperties& device);

}  // namespace fusebox::normalization
