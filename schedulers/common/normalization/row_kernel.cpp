// The row-persistent kernel generator (row_kernel.h).
//
// Thread (x, y) of block b holds row b * block[1] + y and, of that row, the
// chunks q = (k * block[0] + x) * V for k < batch: V consecutive elements
// along the innermost reduced dim (the row's last chunk is whole: V divides
// that dim). Every stage walks the same chunks in a fully unrolled loop, so
// the persistent buffers (fusebox::Array<T, V> pb<n>[batch]) are indexed by
// constants and stay in registers.
#include "normalization/row_kernel.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>
#include <map>
#include <optional>

#include "kernel_ir/combine.h"
#include "kernelgen/buffer.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"
#include "kernelgen/plan_outputs.h"
#include "normalization/chunk_buffers.h"
#include "normalization/column_partials.h"
#include "normalization/pass_chunk.h"
#include "reduction/accumulator.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

// One merged dim per dim: the kept dims, then the reduced ones, the
// innermost reduced dim last (vectorized).
MergedDims rowLoopDims(const PersistentParams& p) {
  MergedDims md;
  for (const auto* dims : {&p.kept_dims, &p.reduced_dims})
    for (int d : *dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  md.vector_width = p.vector_width;
  return md;
}

class RowKernelWriter {
 public:
  RowKernelWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                  const PersistentParams& p, const RowBufferPlan& buffers, RuntimeInfo& info,
                  const InnerOuterParts* columns, bool shared_column_accumulators = false)
      : f_(segment),
        st_(st),
        facts_(facts),
        p_(p),
        cached_(buffers.cached),
        layout_(segment),
        w_(segment, facts.sizes, layout_, info, domainSpace(facts)),
        md_(rowLoopDims(p)),
        arrays_(md_, p),
        kept_values_(buffers.kept_values, p, arrays_),
        pass_{f_, st_, facts_, p_, cached_, w_, md_, arrays_, kept_values_, accs_, ""} {
    for (const Expr* r : st.reductions) accs_.push_back(accumulatorFor(r));
    if (columns != nullptr) {
      columns_ = columns;
      partials_.emplace(*columns, p, shared_column_accumulators);
    }
  }

  GeneratedKernel write(const std::string& scheduler);

 private:
  std::string idx(const std::string& s) const { return fmt::format("static_cast<idx_t>({})", s); }
  // The loop over this thread's chunks around `body` (a chunk's code, with
  // q, mb and the reduced indices declared).
  void chunkLoop(Buffer& k, const std::string& body);
  // The chunk code of a pass: stage < stages accumulates the stage's
  // reductions (with `deviations`, the variances' squared deviations from
  // their means); stage == stages writes the full-domain outputs.
  std::string stageChunk(int stage, bool deviations = false);
  // The row's threads combine the stage's states, in two passes where the
  // stage has variances; every thread gets the results.
  void reduceStage(Buffer& k, int stage);
  void combineAcross(Buffer& k, const std::string& var, const std::string& functor,
                     const std::string& state);
  void epilogue(Buffer& k);

  const Fusion& f_;
  const NormalizationStructure& st_;
  const RowFacts& facts_;
  const PersistentParams& p_;
  const std::set<std::string>& cached_;
  ParamLayout layout_;
  ElementWriter w_;
  MergedDims md_;
  BufferArrays arrays_;
  KeptValues kept_values_;
  std::vector<Accumulator> accs_;
  PassContext pass_;  // what the shared pass code reads (pass_chunk.h)
  // Inner-outer kernels: the column part, accumulated in the outputs' pass.
  const InnerOuterParts* columns_ = nullptr;
  std::optional<ColumnPartials> partials_;
};

void RowKernelWriter::chunkLoop(Buffer& k, const std::string& body) {
  k.line("FUSEBOX_UNROLL");
  k.line(fmt::format("for (int k = 0; k < {}; ++k) {{", p_.batch));
  ++k.indent;
  k.line(fmt::format("const idx_t q = ({} * {} + {}) * {};", idx("k"), p_.block[0],
                     idx("threadIdx.x"), p_.vector_width));
  k.line(fmt::format("if (active && q < {}) {{", p_.reduced_extent));
  ++k.indent;
  declareDimIndices(k, p_.reduced_dims, p_.sizes, "q", "mb");
  for (size_t g = 0; g + 1 < md_.groups.size(); ++g)
    k.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md_.groups[g][0]));
  Buffer b;
  b.text = body;
  k.append(b);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");
}

std::string RowKernelWriter::stageChunk(int stage, bool deviations) {
  std::function<void(Placement&)> columns;
  if (columns_ != nullptr)
    columns = [&](Placement& placement) {
      for (size_t k = 0; k < columns_->column_reductions.size(); ++k) {
        const auto* in = columns_->column_reductions[k]->input(0)->as<TensorView>();
        w_.sink.body.line(
            partials_->accumulate(k, w_.value(in, w_.iterationIndexOf(in), placement)));
      }
    };
  return writePassChunk(pass_, stage, deviations, columns).body;
}

void RowKernelWriter::combineAcross(Buffer& k, const std::string& var, const std::string& functor,
                                    const std::string& state) {
  kir::Block b;
  kir::combineLanes(b, {{kir::var(var), kir::named(state), functor, {}},
                        p_.block[0],
                        kir::var("fusebox_norm_smem")});
  k.append(b);
}

// Variances take two passes over the row held in registers (a sum, then the
// squared deviations from the mean): no division per element, as a Welford
// update has, and the two-pass rounding.
void RowKernelWriter::reduceStage(Buffer& k, int stage) {
  bool variances = false;
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    variances |= A.welford;
    if (A.welford)
      k.line(fmt::format("{} sum{} = 0;", A.scalar, a));
    else
      k.line(fmt::format("{} acc{} = {};", A.stateType(), a, A.identity()));
  }
  chunkLoop(k, stageChunk(stage));
  const int64_t n = p_.reduced_extent;
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    if (!A.welford) {
      combineAcross(k, fmt::format("acc{}", a), A.functor, A.stateType());
      continue;
    }
    combineAcross(k, fmt::format("sum{}", a), "fusebox::ReduceSum", A.scalar);
    // The mean of no elements stays 0, as a Welford state's.
    k.line(fmt::format(
        "const {} mean{} = {};", A.scalar, a,
        n > 0 ? fmt::format("sum{} / static_cast<{}>({})", a, A.scalar, n) : std::string("0")));
    k.line(fmt::format("{} sq{} = 0;", A.scalar, a));
  }
  if (variances) chunkLoop(k, stageChunk(stage, true));
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    if (A.welford) {
      combineAcross(k, fmt::format("sq{}", a), "fusebox::ReduceSum", A.scalar);
      k.line(fmt::format("{} acc{};", A.stateType(), a));
      k.line(fmt::format("acc{}.avg = mean{};", a, a));
      k.line(fmt::format("acc{}.m2 = sq{};", a, a));
      k.line(fmt::format("acc{}.n = {};", a, n));
    }
    for (size_t o = 0; o < A.expr->outputs().size(); ++o)
      k.line(fmt::format("const auto red{}_{} = {};", a, o, A.result(o, fmt::format("acc{}", a))));
  }
}

void RowKernelWriter::epilogue(Buffer& k) {
  if (st_.reduced_outputs.empty()) return;
  const Buffer stores = writeReducedOutputs(pass_);
  k.line("if (threadIdx.x == 0 && active) {");
  ++k.indent;
  k.append(stores);
  --k.indent;
  k.line("}");
}

GeneratedKernel RowKernelWriter::write(const std::string& scheduler) {
  Buffer main;
  main.indent = 1;
  if (columns_ != nullptr) {
    // Inner-outer: the blocks walk the rows grid-stride, so each block's
    // column sums cover its share of the rows.
    main.line(
        fmt::format("for (int64_t row_base = int64_t{{blockIdx.x}} * {}; row_base < {}; "
                    "row_base += int64_t{{gridDim.x}} * {}) {{",
                    p_.block[1], p_.kept_extent, p_.block[1]));
    ++main.indent;
    main.line(fmt::format("const idx_t row_in_grid = static_cast<idx_t>(row_base) + {};",
                          idx("threadIdx.y")));
  } else {
    main.line(fmt::format("const idx_t row_in_grid = {} * {} + {};", idx("blockIdx.x"), p_.block[1],
                          idx("threadIdx.y")));
  }
  main.line(fmt::format("const bool active = row_in_grid < {};", p_.kept_extent));
  // Inactive threads take part in the combines; their indices stay in range.
  main.line("[[maybe_unused]] const idx_t row = active ? row_in_grid : 0;");
  declareDimIndices(main, p_.kept_dims, p_.sizes, "row");

  Buffer stages;
  stages.indent = main.indent;
  for (int s = 0; s < st_.stages; ++s) {
    provideStageResults(pass_, s);
    stages.line(fmt::format("// stage {}", s));
    reduceStage(stages, s);
  }
  provideStageResults(pass_, st_.stages);
  stages.line("// the full-domain outputs");
  chunkLoop(stages, stageChunk(st_.stages));
  epilogue(stages);

  if (!arrays_.loads.text.empty()) {
    main.line("// load the persistent buffers");
    chunkLoop(main, arrays_.loads.text);
  }
  main.text += stages.text;
  Buffer before;
  before.indent = 1;
  before.append(arrays_.decls);
  if (columns_ != nullptr) {
    partials_->declare(before);
    --main.indent;
    main.line("}");
    main.line("// the column part");
    w_.sink.body = Buffer{};
    partials_->finish(main, w_, layout_, f_, facts_);
  }

  Buffer k;
  k.indent = 1;
  writeKernelTop(k, p_, layout_, w_, rowKernelSharedMemoryBytes(st_, p_));
  if (partials_)
    k.line(fmt::format("alignas(16) __shared__ unsigned char fusebox_col_smem[{}];",
                       partials_->sharedBytes()));
  k.text += before.text;
  k.text += main.text;

  GeneratedKernel out;
  out.source = kernelSource(scheduler, p_, k.text, p_.block[0] > 1 || partials_.has_value(),
                            {p_.threads(), std::max(1, p_.min_blocks_per_sm)});
  out.bindings = layout_.bindings();
  return out;
}

}  // namespace

int64_t rowKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p) {
  if (kir::lanesCombineShuffles(p.block[0])) return 0;
  // Variances combine their sums one scalar at a time.
  int64_t widest = 0;
  for (const Expr* r : st.reductions) {
    const Accumulator a = accumulatorFor(r);
    widest = std::max<int64_t>(widest, a.welford ? (a.scalar == "float" ? 4 : 8) : a.state_bytes);
  }
  return int64_t{p.threads()} * widest;
}

std::unique_ptr<KernelPlan> rowKernelPlan(GeneratedKernel gen, const PersistentParams& p,
                                          bool cooperative, const Fusion& segment,
                                          RuntimeInfo& info, const RowFacts& facts) {
  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = std::move(gen.source);
  plan->bindings = std::move(gen.bindings);
  plan->launch.grid = p.grid;
  plan->launch.block = {static_cast<uint32_t>(p.block[0]), static_cast<uint32_t>(p.block[1]), 1};
  plan->launch.cooperative = cooperative;
  plan->launch.dynamic_shared_memory = static_cast<uint32_t>(p.shared_buffer_bytes);
  describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
  return plan;
}

GeneratedKernel generateRowKernel(const Fusion& segment, const NormalizationStructure& st,
                                  const RowFacts& facts, const PersistentParams& params,
                                  const RowBufferPlan& buffers, RuntimeInfo& info,
                                  const std::string& scheduler) {
  return RowKernelWriter(segment, st, facts, params, buffers, info, nullptr).write(scheduler);
}

GeneratedKernel generateInnerOuterKernel(const Fusion& segment, const InnerOuterParts& parts,
                                         const RowFacts& facts, const PersistentParams& params,
                                         const RowBufferPlan& buffers, RuntimeInfo& info,
                                         const std::string& scheduler,
                                         bool shared_column_accumulators) {
  return RowKernelWriter(segment, parts.rows, facts, params, buffers, info, &parts,
                         shared_column_accumulators)
      .write(scheduler);
}

}  // namespace fusebox::normalization
