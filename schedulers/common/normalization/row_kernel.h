// The row-persistent kernel: each block holds `block[1]` rows (kept
// elements), each row spread over `block[0]` threads, each thread keeping
// `batch` vector chunks of `vector_width` elements of every persistent
// buffer in registers. The kernel
//   1. loads the persistent buffers' chunks once (values the plan keeps,
//      such as softmax's exponentials, are stored by the pass that first
//      computes them);
//   2. per stage: computes the stage's reduction inputs from them (and from
//      the results of earlier stages), accumulates, and combines across the
//      row's threads (warp shuffles or a block reduction), which leaves every
//      thread of the row with the results;
//   3. computes the full-domain outputs and writes them (vector stores);
//   4. writes the reduced-domain outputs (mean, rstd...) once per row.
// Inner persistent uses it alone; the same source runs on both backends.
#pragma once

#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <memory>

#include <set>
#include <string>

#include "kernelgen/kernel_source.h"
#include "normalization/inner_outer.h"
#include "normalization/params.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

// Throws Unschedulable (row_facts.h) when the segment cannot be generated.
kernelgen::GeneratedKernel generateRowKernel(const Fusion& segment,
                                             const NormalizationStructure& st,
                                             const RowFacts& facts, const PersistentParams& params,
                                             const RowBufferPlan& buffers, RuntimeInfo& info,
                                             const std::string& scheduler);

// The inner-outer kernel: the row kernel of `parts.rows` with the blocks
// walking the rows grid-stride, each thread also accumulating the column
// reductions at its columns; then the column part (column_partials.h).
// Needs a cooperative launch of params.grid blocks (and, with
// `shared_column_accumulators`, ColumnPartials::dynamicSharedBytes() of
// dynamic shared memory).
kernelgen::GeneratedKernel generateInnerOuterKernel(
    const Fusion& segment, const InnerOuterParts& parts, const RowFacts& facts,
    const PersistentParams& params, const RowBufferPlan& buffers, RuntimeInfo& info,
    const std::string& scheduler, bool shared_column_accumulators = false);

// The plan that launches a generated row or inner-outer kernel: one block
// per `p.block`, `p.grid` blocks, cooperative when the kernel waits at a
// grid barrier; its memory described for the dumps.
std::unique_ptr<KernelPlan> rowKernelPlan(kernelgen::GeneratedKernel gen, const PersistentParams& p,
                                          bool cooperative, const Fusion& segment,
                                          RuntimeInfo& info, const RowFacts& facts);

// What a persistent scheduler proposes once its checks passed: its params
// and the kernel it generated while checking (generation is the last check),
// made into a plan (rowKernelPlan) when asked. `dynamic_shared_bytes`, when
// not negative, is the launch's dynamic shared memory instead of the
// buffers'.
template <class Params>
std::unique_ptr<Proposal> persistentProposal(const Fusion& segment, const RuntimeInfo& info,
                                             const Params& params, const RowFacts& facts,
                                             kernelgen::GeneratedKernel gen, bool cooperative,
                                             int64_t dynamic_shared_bytes = -1) {
  struct Kept {
    RuntimeInfo info;
    RowFacts facts;
    kernelgen::GeneratedKernel gen;
  };
  auto kept = std::make_shared<Kept>(Kept{info, facts, std::move(gen)});
  return std::make_unique<LazyProposal>(
      [params] { return std::make_unique<Params>(params); },
      [&segment, kept, cooperative, dynamic_shared_bytes](const HeuristicParams& p) {
        std::unique_ptr<KernelPlan> plan =
            rowKernelPlan(kept->gen, dynamic_cast<const PersistentParams&>(p), cooperative, segment,
                          kept->info, kept->facts);
        if (dynamic_shared_bytes >= 0)
          plan->launch.dynamic_shared_memory = static_cast<uint32_t>(dynamic_shared_bytes);
        return plan;
      });
}

// Shared memory the block reductions need (static), for the block shape.
int64_t rowKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p);

}  // namespace fusebox::normalization
