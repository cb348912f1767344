// reduction: a segment of reductions that share one iteration/reduction
// structure, with the pointwise ops that feed them and follow them, becomes
// one generated kernel (the same source runs on the cuda and host backends).
// See docs/schedulers/reduction.md.
#include <fusebox/checked_math.h>
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>
#include <fusebox/tensor.h>

#include <fmt/format.h>

#include "codegen.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/plan_outputs.h"
#include "kernelgen/shape_classes.h"
#include "kernelgen/shapes.h"
#include "params.h"
#include "reduction/accumulator.h"
#include "structure.h"

namespace {

using namespace fusebox;
using namespace fusebox::reduction;
using fusebox::reduction::accumulatorFor;

int64_t numel(const std::vector<int64_t>& sizes) {
  return checked::orThrow(checked::product(sizes), "reduction: the number of elements");
}

class ReductionScheduler final : public Scheduler {
 public:
  std::string name() const override { return "reduction"; }

  std::vector<OptionSpec> options() const override {
    return {{"grid_splits", OptionType::Int, int64_t{0},
             "Blocks each kept element's reduction is split across, combined through scratch "
             "memory by the last block to finish (0: the heuristic decides; tests force the "
             "grid-reduction path with it)"},
            {"max_vector_width", OptionType::Int, int64_t{0},
             "Most elements a thread loads at once along the fastest dim (0: as many as 16 bytes "
             "hold, 4 for an outer Welford reduction; otherwise a further cap, rounded down to a "
             "power of two)"},
            {"row_lanes", OptionType::Int, int64_t{0},
             "Inner reductions: threads that share a row, a power of two from 1 to 512 (0: the "
             "heuristic decides; each thread then reads up to 4 vectors of the row per step)"},
            {"unroll", OptionType::Int, int64_t{0},
             "Vectors each thread loads per step of its loop, all issued before the first is "
             "summed, 1 to 16 (0: the heuristic decides, up to 4; for tuning)"},
            {"streamed_loads", OptionType::String, std::string("auto"),
             "Loads of inputs the loop reads each element of once evict first from the L2 "
             "(ld.global.cs): \"auto\" (loops that write no output of the input's size and read "
             "at most six L2s), \"on\" or \"off\""}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "grid_splits", 0, 65535, " (0: the heuristic decides)");
    requireIntInRange(settings, "max_vector_width", 0, 16, " (0: the widest the dtype allows)");
    requireIntInRange(settings, "row_lanes", 0, 512, " (0: the heuristic decides)");
    requireIntInRange(settings, "unroll", 0, 16, " (0: the heuristic decides)");
    requireOneOf(settings, "streamed_loads", {"auto", "on", "off"});
    const int64_t lanes = option<int64_t>("row_lanes");
    if ((lanes & (lanes - 1)) != 0)
      throw UserError(whereSet(settings, "row_lanes"),
                      fmt::format("scheduler 'reduction': option 'row_lanes' = {}: expected 0 or "
                                  "a power of two",
                                  lanes));
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache&) override {
    // Analyzed once per question: the structure refers to this segment's IR,
    // and the segmenter remembers a structural refusal itself.
    auto st = std::make_shared<ReductionStructure>();
    if (Decision d = analyzeStructure(segment, *st); !d) return Refusal::ofStructure(d);
    auto facts = std::make_shared<SegmentFacts>();
    try {
      *facts = computeFacts(segment, *st, info);
    } catch (const UserError& e) {
      return Refusal::ofInputs(fmt::format("the inputs do not fit the segment: {}", e.what()));
    }
    if (Decision d = sizeCheck(segment, *st, *facts, info); !d) return Refusal::ofInputs(d);
    const ReductionParams p = params(segment, *st, *facts, info);
    if (Decision d = paramCheck(segment, *st, *facts, p, info); !d) return Refusal::ofInputs(d);
    return std::make_unique<LazyProposal>(
        [p] { return std::make_unique<ReductionParams>(p); },
        [&segment, st, facts, info](const HeuristicParams& params) mutable {
          return plan(segment, *st, *facts, dynamic_cast<const ReductionParams&>(params), info);
        });
  }

 private:
  static int64_t keptCount(const SegmentFacts& facts) {
    int64_t kept = 1;
    for (size_t d = 0; d < facts.input_sizes.size(); ++d)
      if (!facts.reduced[d]) kept *= facts.input_sizes[d];
    return kept;
  }

  // What the sizes of this call rule out.
  static Decision sizeCheck(const Fusion& segment, const ReductionStructure& st,
                            const SegmentFacts& facts, RuntimeInfo& info) {
    const int64_t domain = numel(facts.input_sizes);
    int64_t kept = 1, reduced = 1;
    for (size_t d = 0; d < facts.input_sizes.size(); ++d)
      (facts.reduced[d] ? reduced : kept) *= facts.input_sizes[d];
    for (const Expr* r : st.reductions) {
      const auto* in = r->input(0)->as<TensorView>();
      if (facts.sizes.at(in) != facts.input_sizes)
        return Decision::reject(fmt::format(
            "{} has sizes [{}] but {} has [{}]; one kernel reduces one domain", in->toString(),
            fmt::join(facts.sizes.at(in), ", "), st.reductions.front()->input(0)->toString(),
            fmt::join(facts.input_sizes, ", ")));
      if (reduced == 0 && r->op() == OpType::Reduction &&
          (r->attr<ReductionAttr>().op == ReductionOpType::Max ||
           r->attr<ReductionAttr>().op == ReductionOpType::Min))
        return Decision::reject(fmt::format(
            "{} of an empty set ({} reduces no elements): an error, as in PyTorch, which the "
            "evaluator reports",
            toString(r->attr<ReductionAttr>().op), r->output(0)->toString()));
    }
    for (const TensorView* tv : st.after)
      if (numel(facts.sizes.at(tv)) != kept)
        return Decision::reject(fmt::format(
            "{} has {} elements, the reduced domain {}: a reduced value broadcast back over the "
            "reduced dims needs a persistent buffer (the persistent schedulers' job)",
            tv->toString(), numel(facts.sizes.at(tv)), kept));
    for (const TensorView* tv : st.loop_outputs)
      if (numel(facts.sizes.at(tv)) != domain)
        return Decision::reject(fmt::format(
            "output {} has {} elements but the reduction input {}; the reducing loop writes "
            "one output element per input element",
            tv->toString(), numel(facts.sizes.at(tv)), domain));
    if (const std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
      return Decision::reject(problem);
    // A gather in the prologue is checked only where the loop reads it.
    if (const std::string problem = uncheckedIndicesProblem(segment, info); !problem.empty())
      return Decision::reject(problem);
    return Decision::accept();
  }

  // What the params chosen for this call rule out.
  static Decision paramCheck(const Fusion& segment, const ReductionStructure& st,
                             const SegmentFacts& facts, const ReductionParams& p,
                             RuntimeInfo& info) {
    // A kernel over symbolic sizes also takes its sizes as parameters.
    if (const std::string problem =
            p.shape_mode == ShapeMode::Symbolic
                ? kernelParamProblem(segment, st, facts, p, info)
                : kernelgen::paramLimitProblem(segment, p.splits() > 1 ? 1 : 0);
        !problem.empty())
      return Decision::reject(problem);
    if (p.grid[0] >= (uint32_t{1} << 31))
      return Decision::reject(
          fmt::format("{} kept elements need more than 2^31 - 1 blocks", keptCount(facts)));
    return Decision::accept();
  }

  static std::unique_ptr<KernelPlan> plan(const Fusion& segment, const ReductionStructure& st,
                                          const SegmentFacts& facts, const ReductionParams& p,
                                          RuntimeInfo& info) {
    GeneratedKernel gen = generateKernel(segment, st, facts, p, info);
    auto plan = std::make_unique<KernelPlan>();
    plan->kernel = std::move(gen.source);
    plan->bindings = std::move(gen.bindings);
    plan->index_checks = std::move(gen.index_checks);
    plan->kernel_ir = std::move(gen.kernel_ir);
    plan->launch.grid = p.grid;
    plan->launch.block = {static_cast<uint32_t>(p.block_x), static_cast<uint32_t>(p.block_y), 1};
    kernelgen::describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
    return plan;
  }

  static SegmentFacts computeFacts(const Fusion& segment, const ReductionStructure& st,
                                   RuntimeInfo& info) {
    SegmentFacts facts;
    facts.sizes = kernelgen::tensorSizes(segment, info);
    facts.input_sizes = facts.sizes.at(st.reductions.front()->input(0)->as<TensorView>());
    facts.reduced.assign(facts.input_sizes.size(), false);
    for (int64_t a : st.axes) facts.reduced.at(static_cast<size_t>(a)) = true;
    for (const Val* out : segment.outputs()) {
      const auto* tv = out->as<TensorView>();
      facts.output_strides.push_back(kernelgen::outputStrides(segment, tv, facts.sizes.at(tv)));
    }
    return facts;
  }

  ReductionParams params(const Fusion& segment, const ReductionStructure& st,
                         const SegmentFacts& facts, RuntimeInfo& info) const {
    const LoopAccesses accesses = collectAccesses(segment, st, facts, info);
    HeuristicInputs in;
    in.sizes = facts.input_sizes;
    in.reduced = facts.reduced;
    in.accesses = &accesses.loop;
    for (const Expr* r : st.reductions) {
      const reduction::Accumulator a = reduction::accumulatorFor(r);
      in.accumulator_bytes = std::max(in.accumulator_bytes, a.state_bytes);
      in.welford |= a.welford;
    }
    in.accumulators = static_cast<int>(st.reductions.size());
    in.forced_splits = static_cast<int>(option<int64_t>("grid_splits"));
    in.max_vector_width = static_cast<int>(option<int64_t>("max_vector_width"));
    in.row_lanes = static_cast<int>(option<int64_t>("row_lanes"));
    in.unroll = static_cast<int>(option<int64_t>("unroll"));
    in.streamed_loads = option<std::string>("streamed_loads");
    in.symbolic = info.shapeMode() == ShapeMode::Symbolic;
    ReductionParams p = computeReductionParams(in, info.device());
    p.index32 &= accesses.epilogue_max_offset < (int64_t{1} << 31) - 1;
    p.shape_mode = info.shapeMode();
    if (p.shape_mode == ShapeMode::Symbolic) {
      std::vector<int64_t> kept_sizes;
      for (size_t d = 0; d < facts.input_sizes.size(); ++d)
        if (!facts.reduced[d]) kept_sizes.push_back(facts.input_sizes[d]);
      p.shape_classes = kernelgen::shapeClasses(segment, facts.sizes, info, accesses.loop,
                                                {facts.input_sizes, kept_sizes});
    }
    return p;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(ReductionScheduler, "reduction", "1.0",
                                 "segments of reductions sharing one iteration/reduction "
                                 "structure, with their pointwise prologue and epilogue, as one "
                                 "generated kernel: inner and outer reductions, vector loads, "
                                 "warp/block/grid combines")
