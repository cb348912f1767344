// The persistent kernels' shared writer (persistent_writer.h).
#include "normalization/persistent_writer.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
#include "kernelgen/codegen_ops.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

// A merged max and exp-sum's state, and its value over no elements.
std::string onlineType(const Accumulator& max) {
  return fmt::format("fusebox::OnlineExpSum<{}>", max.scalar);
}
kir::Value onlineIdentity(const Accumulator& max) {
  return kir::call("fusebox::onlineExpSumInit", {}, {kir::named(max.scalar)});
}

}  // namespace

int64_t combinedStateBytes(const Accumulator& a) {
  if (!a.welford) return a.state_bytes;
  return a.scalar == "float" ? 4 : 8;
}

int64_t widestCombinedStateBytes(const NormalizationStructure& st, bool online_exp_sums) {
  int64_t widest = 0;
  for (const Expr* r : st.reductions)
    widest = std::max(widest, combinedStateBytes(accumulatorFor(r)));
  if (online_exp_sums)
    for (const OnlineExpSumPair& pair : onlineExpSums(st))
      widest = std::max(widest, 2 * accumulatorFor(st.reductions[pair.max]).state_bytes);
  return widest;
}

PersistentWriter::PersistentWriter(const Fusion& segment, const NormalizationStructure& st,
                                   const RowFacts& facts, const PersistentParams& p,
                                   const RowBufferPlan& buffers, RuntimeInfo& info, MergedDims md,
                                   int state_width)
    : f_(segment),
      st_(st),
      facts_(facts),
      p_(p),
      cached_(buffers.cached),
      layout_(segment),
      w_(segment, facts.sizes, layout_, info, domainSpace(facts)),
      md_(std::move(md)),
      arrays_(md_, p),
      kept_values_(buffers.kept_values, p, arrays_),
      pass_{f_, st_, facts_, p_, cached_, w_, md_, arrays_, kept_values_, accs_, state_width > 0},
      width_(state_width) {
  for (const Expr* r : st.reductions) accs_.push_back(accumulatorFor(r));
  // Only where every pass reads the row from memory: kept rows are read
  // again from registers or shared memory, which costs less than the
  // online update's extra arithmetic.
  if (p.reload && state_width == 0) pass_.online = onlineExpSums(st);
}

kir::Value PersistentWriter::at(const std::string& name) const {
  return pass_.state(name);
}

void PersistentWriter::fill(kir::Block& k, const std::string& type, const std::string& name,
                            const kir::Value& init, bool is_const) {
  if (width_ == 0) {
    k.declare(name, kir::named(type), init, {.is_const = is_const});
    return;
  }
  k.declare(name, kir::named(fmt::format("fusebox::Array<{}, {}>", type, width_)), {});
  k.forLoop("v", kir::intType(), kir::lit(0), kir::lit(width_), {}, kir::Unroll::Full,
            kir::BodyStyle::SameLine)
      .assign(at(name), init);
}

void PersistentWriter::passLoop(kir::Block& k, int stage, bool deviations) {
  // A reloaded row stays in the L2 for the passes that read it again
  // (PyTorch's compiled looped reductions hint their loads the same way).
  if (p_.reload)
    pass_.load_hint =
        ++passes_written_ < p_.row_reads ? kir::LoadHint::KeepForNextPass : kir::LoadHint::LastUse;
  const PassChunk chunk =
      writePassChunk(pass_, stage, deviations, [this](CachePlacement& p) { outputPassExtra(p); });
  k.append(chunk.pre_row);
  chunkLoop(k, chunk.body, chunk.loads);
  afterChunks(k, stage, deviations);
}

void PersistentWriter::writeStages(kir::Block& k) {
  for (int s = 0; s < st_.stages; ++s) {
    k.append(provideStageResults(pass_, s));
    if (pass_.mergedStage(s)) {
      k.comment(fmt::format("stage {}: its sum of exp came with the max, online", s));
      continue;
    }
    k.comment(fmt::format("stage {}", s));
    reduceStage(k, s);
  }
  k.append(provideStageResults(pass_, st_.stages));
  k.comment("the full-domain outputs");
  passLoop(k, st_.stages);
}

// Variances take two passes over the elements held on chip (a sum, then the
// squared deviations from the mean): no division per element, as a Welford
// update has, and the two-pass rounding. (Chan's merge of per-thread
// Welford states needs one combine instead of two, but its 16-byte states
// cost shared-memory bank conflicts, registers and divisions: on an H100
// batch norm 4096x2048 ran 0.169 ms that way against 0.044 ms.)
void PersistentWriter::reduceStage(kir::Block& k, int stage) {
  std::vector<size_t> in_stage;
  bool variances = false;
  for (size_t a = 0; a < accs_.size(); ++a)
    if (st_.stage[a] == stage) {
      in_stage.push_back(a);
      variances |= accs_[a].welford;
    }
  auto name = [](const char* what, size_t a) { return fmt::format("{}{}", what, a); };
  for (size_t a : in_stage) {
    const Accumulator& A = accs_[a];
    if (pass_.onlineMax(a) != nullptr)
      fill(k, onlineType(A), name("acc", a), onlineIdentity(A));
    else if (A.welford)
      fill(k, A.scalar, name("sum", a), kir::lit(0));
    else
      fill(k, A.stateType(), name("acc", a), A.identity());
  }
  passLoop(k, stage);
  const int64_t n = p_.reduced_extent;
  // The stage's states combine together (one set of barriers for all).
  std::vector<kir::CombineState> states;
  for (size_t a : in_stage) {
    const Accumulator& A = accs_[a];
    if (const OnlineExpSumPair* online = pass_.onlineMax(a)) {
      const bool approximate = w_.approximates(online->exp);
      states.push_back({kir::var(name("acc", a)), kir::named(onlineType(A)),
                        fmt::format("fusebox::OnlineExpSumCombine<{}>", approximate),
                        onlineIdentity(A)});
    } else if (!A.welford) {
      states.push_back(
          {kir::var(name("acc", a)), kir::named(A.stateType()), A.functor, A.identity()});
    } else {
      states.push_back(
          {kir::var(name("sum", a)), kir::named(A.scalar), "fusebox::ReduceSum", kir::lit(0)});
    }
  }
  combine(k, states);
  std::vector<kir::CombineState> deviations;
  for (size_t a : in_stage) {
    const Accumulator& A = accs_[a];
    if (!A.welford) continue;
    // The mean of no elements stays 0, as a Welford state's.
    fill(k, A.scalar, name("mean", a),
         n > 0 ? at(name("sum", a)) / kir::cast(kir::named(A.scalar), kir::lit(n)) : kir::lit(0),
         true);
    fill(k, A.scalar, name("sq", a), kir::lit(0));
    deviations.push_back(
        {kir::var(name("sq", a)), kir::named(A.scalar), "fusebox::ReduceSum", kir::lit(0)});
  }
  if (variances) {
    passLoop(k, stage, true);
    combine(k, deviations);
  }
  for (size_t a : in_stage) {
    const Accumulator& A = accs_[a];
    const std::string acc = name("acc", a);
    if (A.welford) {
      const std::string type =
          width_ ? fmt::format("fusebox::Array<{}, {}>", A.stateType(), width_) : A.stateType();
      k.declare(acc, kir::named(type), {});
      kir::Block state = width_ ? k.forLoop("v", kir::intType(), kir::lit(0), kir::lit(width_), {},
                                            kir::Unroll::Full)
                                : k;
      state.assign(kir::member(at(acc), "avg"), at(name("mean", a)));
      state.assign(kir::member(at(acc), "m2"), at(name("sq", a)));
      state.assign(kir::member(at(acc), "n"), kir::lit(n));
    }
    if (const OnlineExpSumPair* online = pass_.onlineMax(a)) {
      // The max, and the sum of its pair, whose stage has no pass.
      const Expr* sum = accs_[online->sum].expr;
      k.declare(fmt::format("red{}_0", a), kir::named("auto"),
                kir::roundTo(A.expr->output(0)->dtype(), kir::member(at(acc), "max")),
                {.is_const = true});
      k.declare(
          fmt::format("red{}_0", online->sum), kir::named("auto"),
          kir::roundTo(sum->output(0)->dtype(), kir::call("fusebox::onlineExpSumTotal", {at(acc)})),
          {.is_const = true});
      continue;
    }
    for (size_t o = 0; o < A.expr->outputs().size(); ++o) {
      const std::string red = fmt::format("red{}_{}", a, o);
      const kir::Value result = A.result(o, at(acc));
      if (width_ == 0)
        k.declare(red, kir::named("auto"), result, {.is_const = true});
      else
        fill(k, computeTypeName(A.expr->output(o)->dtype()), red, result);
    }
  }
}

GeneratedKernel PersistentWriter::finish(const kir::Block& before, const kir::Block& main,
                                         int64_t smem_bytes, const std::string& scheduler,
                                         bool uses_block_sync) {
  kir::Block k;
  writeKernelTop(k, p_, layout_, w_, smem_bytes);
  k.append(before);
  k.append(arrays_.decls);
  k.append(main);
  GeneratedKernel out;
  out.source = kernelSource(scheduler, p_, kir::printCuda(k), uses_block_sync,
                            {p_.threads(), std::max(1, p_.min_blocks_per_sm)});
  out.kernel_ir = kir::printIr(k);
  out.bindings = layout_.bindings();
  return out;
}

}  // namespace fusebox::normalization
