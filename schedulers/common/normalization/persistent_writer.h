// What the row kernel (row_kernel.h) and the column kernel (column_kernel.h)
// write the same way, as kernel IR: the writer's state and the stages. A
// stage accumulates its reductions over the chunks a thread holds, combines
// them (a variance in two passes: the sum, then the squared deviations from
// the mean) and makes the results values of the later passes; after the
// stages, a pass writes the full-domain outputs. The kernels differ in where
// a thread's chunks are (chunkLoop), how its states combine (combine) and
// what a state is: one per thread (a row: width 0) or one per column the
// thread holds (columns: an Array of vector_width).
#pragma once

#include <fusebox/scheduler.h>

#include <string>
#include <vector>

#include "kernel_ir/combine.h"
#include "kernel_ir/kernel_ir.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/kernel_source.h"
#include "kernelgen/merged_dims.h"
#include "normalization/chunk_buffers.h"
#include "normalization/online_exp_sum.h"
#include "normalization/params.h"
#include "normalization/pass_chunk.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"
#include "normalization/structure.h"
#include "reduction/accumulator.h"

namespace fusebox::normalization {

// The bytes of the widest state the persistent kernels combine across
// threads for the stages of `st`: a reduction's state, or for a variance
// one scalar sum (its sum, then its squared deviations, one at a time);
// with `online_exp_sums` (reloaded rows), a merged max and exp-sum's pair.
int64_t widestCombinedStateBytes(const NormalizationStructure& st, bool online_exp_sums = false);
int64_t combinedStateBytes(const reduction::Accumulator& a);

class PersistentWriter {
 public:
  virtual ~PersistentWriter() = default;

 protected:
  // `state_width`: 0, a state per thread; else the states are Arrays of it.
  PersistentWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                   const PersistentParams& p, const RowBufferPlan& buffers, RuntimeInfo& info,
                   kernelgen::MergedDims md, int state_width);

  // The loop over this thread's chunks around `body` (a chunk's code, with
  // mb, the m<g> and the walked dims' indices declared). `loads`: the
  // chunk's vector loads `body` reads from arrays (PassContext::loads_first),
  // for the loop to issue.
  virtual void chunkLoop(kir::Block& k, const kir::Block& body,
                         const std::vector<kernelgen::VectorPlacement::ChunkLoad>& loads) = 0;
  // Combines `states` (a stage's, at once) across the threads (and blocks)
  // that share them; every thread that holds one gets its result.
  virtual void combine(kir::Block& k, const std::vector<kir::CombineState>& states) = 0;
  // More of the output pass's element (inner-outer's column accumulators).
  virtual void outputPassExtra(CachePlacement&) {}
  // More of pass `stage` after the loop over the chunks (a row's scalar
  // edge: row_edge.h).
  virtual void afterChunks(kir::Block&, int /*stage*/, bool /*deviations*/) {}

  // Each stage, then the output pass.
  void writeStages(kir::Block& k);
  // A pass: its row-invariant loads, then the loop over the thread's chunks.
  void passLoop(kir::Block& k, int stage, bool deviations = false);
  // The kernel around `main`: the index type, pointers, unwalked indices,
  // the element writer's prologue, `smem_bytes` of shared memory for the
  // combines, `before` (declarations above the persistent buffers) and the
  // buffers' arrays; printed, with its IR dump.
  kernelgen::GeneratedKernel finish(const kir::Block& before, const kir::Block& main,
                                    int64_t smem_bytes, const std::string& scheduler,
                                    bool uses_block_sync);
  // The state `name`'s element this thread is at: name, or name[v].
  kir::Value at(const std::string& name) const;

  const Fusion& f_;
  const NormalizationStructure& st_;
  const RowFacts& facts_;
  const PersistentParams& p_;
  const std::set<std::string>& cached_;
  kernelgen::ParamLayout layout_;
  kernelgen::ElementWriter w_;
  kernelgen::MergedDims md_;
  BufferArrays arrays_;
  KeptValues kept_values_;
  std::vector<reduction::Accumulator> accs_;
  PassContext pass_;  // what the shared pass code reads (pass_chunk.h)
  int width_;
  int passes_written_ = 0;  // passes over the row so far (reloaded rows)

 private:
  void reduceStage(kir::Block& k, int stage);
  // Declares state `name` of `type` with every element at `init` (built
  // with at()); `is_const` for a scalar never assigned again.
  void fill(kir::Block& k, const std::string& type, const std::string& name, const kir::Value& init,
            bool is_const = false);
};

}  // namespace fusebox::normalization
