// One pass of a persistent kernel over the elements a thread keeps, shared
// by the row kernel and the column kernel: the code of one chunk (its
// vector_width elements), which accumulates a stage's reductions (or a
// variance's squared deviations) or writes the full-domain outputs, reading
// the persistent buffers and kept values. The kernels differ in what a
// state is: one per thread for a row (`lane` ""), one per column a thread
// holds for columns (`lane` "[v]").
#pragma once

#include <fusebox/ir/ir.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "kernelgen/buffer.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "normalization/chunk_buffers.h"
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
  std::string lane;  // appended to the state names: "" or "[v]"
};

struct PassChunk {
  kir::Block pre_row;  // loads no reduced dim moves (with MergedDims::row_groups)
  kir::Block body;     // the chunk: the loop over its elements
};

// Pass `stage` (< st.stages: accumulate acc<a>, or sum<a> / sq<a> around
// mean<a> for variances; == st.stages: the outputs). `extra` writes more of
// the output pass's element (inner-outer's column accumulators).
PassChunk writePassChunk(PassContext& c, int stage, bool deviations,
                         const std::function<void(kernelgen::Placement&)>& extra = {});

// Before pass `stage` (st.stages: the output pass): the results of the
// reductions of earlier stages become values of `c.w`, red<a>_<o><lane>.
void provideStageResults(PassContext& c, int stage);

// The stores of the reduced-domain outputs (mean, rstd...) at the kept
// element the kernel is at, each reduction output read as red<a>_<o><lane>;
// leaves `w` in the kept space.
kir::Block writeReducedOutputs(PassContext& c);

// The kernel's first lines: the index type, the pointers, the indices of
// the dims neither walked (size 1), the walker's prologue and the shared
// memory the combines use (`smem_bytes`, none when 0).
void writeKernelTop(kernelgen::Buffer& k, const PersistentParams& p, kernelgen::ParamLayout& layout,
                    const kernelgen::ElementWriter& w, int64_t smem_bytes);

}  // namespace fusebox::normalization
