// inner_persistent: a normalization whose reductions reduce rows (the
// fastest dim: softmax, log-softmax, layernorm, RMSNorm and their backward's
// grad input) as one kernel that keeps each row on chip between its
// reductions and its outputs. The checks, the buffer analysis and the kernel
// come from the normalization library (schedulers/common/normalization); this
// plugin adds its reduction type and its heuristics.
// See docs/schedulers/persistent.md.
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "heuristics.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/plan_outputs.h"
#include "kernelgen/shapes.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_facts.h"
#include "normalization/row_kernel.h"
#include "normalization/structure.h"

namespace {

using namespace fusebox;
using namespace fusebox::normalization;
using fusebox::inner_persistent::computeInnerParams;
using fusebox::inner_persistent::HeuristicResult;

// Everything the run-time steps derive, once per call.
struct Analysis {
  NormalizationStructure st;
  RowFacts facts;
  RowAccesses accesses;
  RowBufferPlan plan;
  HeuristicResult heuristic;
};

class InnerPersistentScheduler final : public Scheduler {
 public:
  std::string name() const override { return "inner_persistent"; }

  std::vector<OptionSpec> options() const override {
    return {{"threads_per_row", OptionType::Int, int64_t{0},
             "Threads that share a row: a power of two up to 32 or a multiple of 32 up to 1024 "
             "(0: the heuristic decides; for tuning and tests)"},
            {"chunks_per_thread", OptionType::Int, int64_t{0},
             "Vector chunks of the row each thread keeps, 1 to 32 (0: the heuristic decides)"}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    auto where = [&](const char* key) {
      const auto it = settings.find(key);
      return it != settings.end() ? it->second.where : SourceLocation{};
    };
    const int64_t t = option<int64_t>("threads_per_row");
    const bool t_ok =
        t == 0 || (t > 0 && t <= 32 && (t & (t - 1)) == 0) || (t > 32 && t <= 1024 && t % 32 == 0);
    if (!t_ok)
      throw UserError(where("threads_per_row"),
                      fmt::format("scheduler 'inner_persistent': option 'threads_per_row' must be "
                                  "0, a power of two up to 32 or a multiple of 32 up to 1024, got "
                                  "{}",
                                  t));
    const int64_t c = option<int64_t>("chunks_per_thread");
    if (c < 0 || c > 32)
      throw UserError(where("chunks_per_thread"),
                      fmt::format("scheduler 'inner_persistent': option 'chunks_per_thread' must "
                                  "be in [0, 32] (0: the heuristic decides), got {}",
                                  c));
  }

  Decision canScheduleCompileTime(const Fusion& segment, CompileTimeCache& cache) override {
    const auto& verdict =
        cache.get<std::pair<bool, std::string>>("inner_persistent.compile_time", [&] {
          NormalizationStructure st;
          const Decision d = analyzeCompileTime(segment, ReductionType::Inner, st);
          return std::make_pair(d.accepted(), d.reason());
        });
    return verdict.first ? Decision::accept() : Decision::reject(verdict.second);
  }

  Decision canScheduleRunTime(const Fusion& segment, RuntimeInfo& info,
                              CompileTimeCache& cache) override {
    if (Decision d = canScheduleCompileTime(segment, cache); !d) return d;
    Analysis an;
    if (std::string problem = analyze(segment, info, an); !problem.empty())
      return Decision::reject(problem);
    if (!an.heuristic.problem.empty()) return Decision::reject(an.heuristic.problem);
    if (an.heuristic.params.grid[0] >= (uint32_t{1} << 31))
      return Decision::reject(
          fmt::format("{} rows need more than 2^31 - 1 blocks", an.facts.kept_extent));
    try {
      (void)generateRowKernel(segment, an.st, an.facts, an.heuristic.params, an.plan, info, name());
    } catch (const Unschedulable& e) {
      return Decision::reject(e.what());
    }
    return Decision::accept();
  }

  std::unique_ptr<HeuristicParams> computeHeuristics(const Fusion& segment, RuntimeInfo& info,
                                                     CompileTimeCache&) override {
    Analysis an;
    const std::string problem = analyze(segment, info, an);
    FUSEBOX_CHECK(problem.empty() && an.heuristic.problem.empty(),
                  "inner_persistent: heuristics for a segment it rejects: {}{}", problem,
                  an.heuristic.problem);
    return std::make_unique<inner_persistent::InnerPersistentParams>(an.heuristic.params);
  }

  std::unique_ptr<SegmentPlan> schedule(const Fusion& segment, const HeuristicParams& params,
                                        RuntimeInfo& info) override {
    const auto* p = dynamic_cast<const inner_persistent::InnerPersistentParams*>(&params);
    FUSEBOX_CHECK(p != nullptr, "inner_persistent: schedule() got another scheduler's params");
    Analysis an;
    const std::string problem = analyze(segment, info, an);
    FUSEBOX_CHECK(problem.empty(), "inner_persistent: scheduling a segment it rejects: {}",
                  problem);
    kernelgen::GeneratedKernel gen =
        generateRowKernel(segment, an.st, an.facts, *p, an.plan, info, name());
    auto plan = std::make_unique<KernelPlan>();
    plan->kernel = std::move(gen.source);
    plan->bindings = std::move(gen.bindings);
    plan->launch.grid = p->grid;
    plan->launch.block = {static_cast<uint32_t>(p->block[0]), static_cast<uint32_t>(p->block[1]),
                          1};
    kernelgen::describePlanMemory(*plan, segment, info, an.facts.sizes, an.facts.output_strides);
    return plan;
  }

 private:
  // The run-time analysis; a non-empty result is the reason to reject.
  std::string analyze(const Fusion& segment, RuntimeInfo& info, Analysis& an) const {
    const Decision d = analyzeCompileTime(segment, ReductionType::Inner, an.st);
    if (!d) return d.reason();
    if (an.st.reductions.front()->input(0)->as<TensorView>()->nDims() == 0)
      return "the reductions reduce a rank-0 tensor";
    try {
      an.facts = computeRowFacts(segment, an.st, an.st.reductions, info);
    } catch (const UserError& e) {
      return fmt::format("the inputs do not fit the segment: {}", e.what());
    }
    if (std::string problem = rowShapeProblem(an.st, an.st.reductions, an.facts); !problem.empty())
      return problem;
    if (std::string problem = kernelgen::inputLayoutProblem(segment, info); !problem.empty())
      return problem;
    try {
      an.accesses = collectRowAccesses(segment, an.st, an.facts, info);
    } catch (const Unschedulable& e) {
      return e.what();
    }
    const inner_persistent::ForcedShape forced{option<int64_t>("threads_per_row"),
                                               option<int64_t>("chunks_per_thread")};
    an.plan = planRowBuffers(an.accesses, an.facts);
    an.heuristic = computeInnerParams(an.facts, an.accesses, an.plan, info.device(), forced);
    if (!an.heuristic.problem.empty() && !an.plan.kept_values.empty()) {
      // Kept values are an optimization: recompute them rather than refuse.
      an.plan = planRowBuffers(an.accesses, an.facts, false);
      an.heuristic = computeInnerParams(an.facts, an.accesses, an.plan, info.device(), forced);
    }
    an.heuristic.params.stages = an.st.stages;
    return {};
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(InnerPersistentScheduler, "inner_persistent", "1.0",
                                 "normalizations that reduce rows (softmax, layernorm, RMSNorm "
                                 "and their backward's grad input) as one kernel keeping each "
                                 "row in registers between its reductions and its outputs")
