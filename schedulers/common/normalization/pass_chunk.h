// One pass of a persistent kernel over the elements a thread keeps, shared
// by the row kernel and the column kernel: the code of one chunk (its
// vector_width elements), which accumulates a stage's reductions (or a
// variance's squared deviations) or writes the full-domain outputs, reading
// the persistent buffers and kept values. The kernels differ in what a
// state is: one per thread for a row, one per column a thread holds for
// columns (an Array, element v: `per_column`).
#pragma once

#include <fusebox/ir/ir.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "normalization/chunk_buffers.h"
#include "normalization/online_exp_sum.h"
#include "normalization/params.h"
#include "normalization/row_facts.h"
#include "normalization/structure.h"
#include "reduction/accumulator.h"

namespace fusebox::normalization {

struct PassContext {
  const Fusion& segment;
  const NormalizationStructure& st;
  const RowFacts& facts;
  const PersistentParams& p;
  const std::set<std::string>& cached;
  kernelgen::ElementWriter& w;
  const kernelgen::MergedDims& md;
  BufferArrays& arrays;
  KeptValues& kept;
  const std::vector<reduction::Accumulator>& accs;
  bool per_column;  // states are Arrays over the thread's columns
  // Max and exp-sum pairs merged into one pass (online_exp_sum.h): the max's
  // accumulator holds a fusebox::OnlineExpSum, and the sum's stage has no pass.
  std::vector<OnlineExpSumPair> online = {};
  // The L2 hint of the next pass's vector loads (reloaded rows).
  kir::LoadHint load_hint = kir::LoadHint::None;
  // The passes' vector loads are left to the chunk loop to issue ahead of
  // the chunks' math (kernelgen::VectorPlacement::loads_first).
  bool loads_first = false;
  // The accesses that may be vectors (kernelgen::VectorPlacement::
  // vectors_allowed; rows whose chunks a scalar head aligns); unset: all.
  std::function<bool(const kernelgen::ElementRef&)> vectors_allowed = {};
  // Row values computed once a row (provideStageResults): each tensor and
  // the variable that holds it.
  std::map<const TensorView*, std::string> row_values = {};
  // The divisions by a row value whose divisor is prepared once a row.
  std::set<const Expr*> prepared_divisors = {};

  // State `name` at the element the code is at: name, or name[v].
  kir::Value state(const std::string& name) const;
  // The pair whose max is accumulator `a`, or null.
  const OnlineExpSumPair* onlineMax(size_t a) const;
  // Whether `stage` holds a merged exp-sum alone (it makes no pass).
  bool mergedStage(int stage) const;
};

struct PassChunk {
  kir::Block pre_row;  // loads no reduced dim moves (with MergedDims::row_groups)
  kir::Block body;     // the chunk: the loop over its elements
  // With PassContext::loads_first: the loads `body` reads from arrays.
  std::vector<kernelgen::VectorPlacement::ChunkLoad> loads;
};

// Pass `stage` (< st.stages: accumulate acc<a>, or sum<a> / sq<a> around
// mean<a> for variances; == st.stages: the outputs). `extra` writes more of
// the output pass's element (inner-outer's column accumulators).
PassChunk writePassChunk(PassContext& c, int stage, bool deviations,
                         const std::function<void(CachePlacement&)>& extra = {});

// Before pass `stage` (st.stages: the output pass): the results of the
// reductions of earlier stages become values of `c.w`, states red<a>_<o>;
// and the elementwise tensors computed from them and scalars alone (a
// log-sum-exp, an rstd), row values, are computed once a row by the
// returned code, not once an element (a row kernel's; a column kernel's
// states differ by column and it returns nothing).
kir::Block provideStageResults(PassContext& c, int stage);

// The stores of the reduced-domain outputs (mean, rstd...) at the kept
// element the kernel is at, each reduction output read as state red<a>_<o>;
// leaves `w` in the kept space.
kir::Block writeReducedOutputs(PassContext& c);

// The kernel's first lines: the index type, the pointers, the indices of
// the dims neither walked (size 1), the walker's prologue and the shared
// memory the combines use (`smem_bytes`, none when 0).
void writeKernelTop(kir::Block& k, const PersistentParams& p, kernelgen::ParamLayout& layout,
                    const kernelgen::ElementWriter& w, int64_t smem_bytes);

}  // namespace fusebox::normalization
