// The params every persistent scheduler fills: the one type all three
// extend (printed by the scheduler_params dump, one choice per line), and
// the buffer each persistent kernel keeps on chip.
#pragma once

#include <fusebox/scheduler.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/layout_choice.h"
#include "normalization/structure.h"

namespace fusebox::normalization {

// Threads a multiprocessor holds at once (compute capability 8.0 and 9.0;
// DeviceProperties does not carry it): bounds the blocks an SM of every
// persistent kernel's launch.
inline constexpr int64_t kMaxThreadsPerSm = 2048;

// A segment input the kernel keeps in registers between its stages: read
// once per element, used by several stages (a persistent buffer projected to
// the input it is computed from, so it is kept at the input's dtype).
struct PersistentBuffer {
  std::string tensor;  // the input's name in the segment
  int64_t element_bytes = 0;
  // No kept dim moves its loads (a weight over the columns): a kernel whose
  // blocks walk the rows loads it once (BufferArrays::hoistRowInvariant).
  bool row_invariant = false;
  bool kept_value = false;  // a computed value kept, not a load
};

// The widest state a cluster combine exchanges (a row kernel's reduction
// state), and the dynamic shared memory its exchange slots take for blocks
// of `rows` rows: two alternating regions of a slot a row (ClusterCombine).
inline constexpr int64_t kMaxClusterStateBytes = 16;
int64_t clusterExchangeBytes(int64_t rows, int64_t state_bytes);

class PersistentParams : public HeuristicParams {
 public:
  ReductionType type = ReductionType::Inner;
  std::vector<int64_t> sizes;  // the reduction domain (the reductions' input)
  std::vector<bool> reduced;   // per dim of `sizes`
  // Dims of size > 1, outermost first, split by class.
  std::vector<int> kept_dims, reduced_dims;
  int64_t kept_extent = 1, reduced_extent = 1;
  int stages = 1;  // reduction stages; the outputs are written after the last
  // Elements per vector access along the innermost reduced (Inner) or kept
  // (Outer) dim.
  int vector_width = 1;
  // Vector chunks each thread keeps of every persistent buffer.
  int batch = 1;
  std::array<int, 2> block{32, 1};
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<PersistentBuffer> buffers;
  // Bytes of the persistent buffers per kept element (a row for Inner),
  // and the on-chip budget they were sized against.
  int64_t buffer_bytes = 0, buffer_budget = 0;
  // Row kernels whose rows overflow the registers: each buffer's chunks
  // k < register_batch stay in registers, the rest live in dynamic shared
  // memory, shared_buffer_bytes a block (0: all in registers).
  int register_batch = 1;
  int64_t shared_buffer_bytes = 0;
  // Inner-outer kernels, whose blocks walk the rows grid-stride: 2 keeps
  // every chunk in shared memory (register_batch 0) twice over, so a block
  // copies its next row group asynchronously while it computes this one
  // (row_kernel.cpp); shared_buffer_bytes holds both. 1: no prefetch.
  int buffer_stages = 1;
  // Inner-outer kernels: every chunk in registers, and each turn of the
  // row loop copies the block's next row group (cp.async) into one stage
  // of dynamic shared memory, shared_buffer_bytes a block, which the next
  // turn moves into the registers (row_kernel.cpp).
  bool staged_rows = false;
  // Inner: blocks that share each row, a thread-block cluster (1: a block
  // holds whole rows). Block r of a cluster holds the row's chunks
  // (k * row_split + r) * block[0] + x; the blocks combine their states
  // through distributed shared memory, cluster_exchange_bytes of dynamic
  // shared memory after the buffers' (clusterExchangeBytes).
  int row_split = 1;
  int64_t cluster_exchange_bytes = 0;
  // Nothing kept on chip: every pass reads its inputs again
  // (persistent_buffers = "reload").
  bool reload = false;
  // Reloaded rows: the max and exp-sum pairs merged into one pass
  // (online_exp_sum.h), as "T3 and T8" each, and the passes that read the
  // row (the stages, less the merged ones, and the outputs' pass).
  std::vector<std::string> online_exp_sums;
  int row_reads = 1;
  int min_blocks_per_sm = 0;  // __launch_bounds__'s second argument
  // Inner rows whose vector chunks a scalar head aligns (an extent no
  // vector divides, or rows that start off a vector's alignment:
  // kernelgen::AlignedBody): the lead access's offset modulo vector_width,
  // per dim of `sizes`, and its constant. A row's first elements up to its
  // lead offset's next multiple of vector_width, and those past its last
  // whole chunk, are its scalar edge (row_kernel.h). Empty: the chunks are
  // whole from each row's start.
  std::vector<int64_t> head_coef_residues;
  int64_t head_const_residue = 0;
  bool rowEdges() const { return !head_coef_residues.empty(); }
  kernelgen::AlignedBody rowHead() const {
    return {vector_width, head_coef_residues, head_const_residue};
  }
  bool index32 = true;

  int threads() const { return block[0] * block[1]; }
  // Elements of the reduction domain one thread keeps per kept element.
  int64_t elementsPerThread() const { return int64_t{batch} * vector_width; }

  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  std::string toString() const override;

 protected:
  // Lines a scheduler adds after the shared ones ("" for none).
  virtual std::string extraLines() const { return {}; }
};

}  // namespace fusebox::normalization
