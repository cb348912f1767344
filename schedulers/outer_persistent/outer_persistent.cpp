// outer_persistent: a normalization whose reductions reduce outer dims
// (x - mean(x, 0); batch-norm statistics and normalization over a
// channels-last input) as one kernel that keeps each block's columns on
// chip between their reductions and their outputs, with a grid reduction
// (a cooperative launch) when a column is split over several bands of
// rows. The checks, the buffer analysis and the kernel come from the
// normalization library; this plugin adds its reduction type and its
// shape. See docs/schedulers/persistent.md.
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "column_shape.h"
#include "normalization/column_kernel.h"
#include "normalization/row_analysis.h"
#include "normalization/row_kernel.h"
#include "normalization/structure.h"
#include "reduction/accumulator.h"

namespace {

using namespace fusebox;
using namespace fusebox::normalization;
using fusebox::outer_persistent::ForcedColumnShape;

class OuterPersistentParams final : public PersistentParams {
 protected:
  std::string extraLines() const override {
    std::string out = fmt::format(
        "columns: {} per block ({} threads x {}), {} rows a thread, {} row(s) of threads",
        int64_t{block[0]} * vector_width, block[0], vector_width, batch, block[1]);
    if (grid[1] > 1)
      out += fmt::format(
          "\ncombine: shared memory over the block's rows, then {} bands through partial rows, a "
          "grid barrier (cooperative launch) and a reduction in band order",
          grid[1]);
    else if (block[1] > 1)
      out += "\ncombine: shared memory over the block's rows (one band: no grid reduction)";
    else
      out += "\ncombine: none (one row of threads, one band)";
    return out;
  }
};

struct Analysis {
  NormalizationStructure st;
  RowAnalysis columns;
  OuterPersistentParams params;
};

class OuterPersistentScheduler final : public Scheduler {
 public:
  std::string name() const override { return "outer_persistent"; }

  std::vector<OptionSpec> options() const override {
    return {{"rows_per_thread", OptionType::Int, int64_t{0},
             "Rows of its columns each thread keeps, 1 to 32: the bands of rows follow from it "
             "(0: the heuristic decides; for tuning and tests)"},
            {"blocks_per_sm", OptionType::Int, int64_t{0},
             "Blocks each multiprocessor holds, 1 to 8: bounds the grid of a cooperative launch "
             "and, through __launch_bounds__, the registers (0: the heuristic decides)"}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "rows_per_thread", 0, 32, " (0: the heuristic decides)");
    requireIntInRange(settings, "blocks_per_sm", 0, 8, " (0: the heuristic decides)");
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const Decision structure = cache.get<Decision>("outer_persistent.compile_time", [&] {
      NormalizationStructure st;
      return analyzeCompileTime(segment, ReductionType::Outer, st);
    });
    if (!structure) return Refusal::ofStructure(structure);
    Analysis an;
    if (std::string problem = analyze(segment, info, an); !problem.empty())
      return Refusal::ofInputs(problem);
    if (!an.columns.shape_problem.empty()) return Refusal::ofInputs(an.columns.shape_problem);
    if (an.params.grid[0] >= (uint32_t{1} << 31) || an.params.grid[1] > 65535)
      return Refusal::ofInputs(fmt::format("{} columns and {} rows need a grid of [{}, {}] blocks",
                                           an.params.kept_extent, an.params.reduced_extent,
                                           an.params.grid[0], an.params.grid[1]));
    try {
      return persistentProposal(segment, info, an.params, an.columns.facts,
                                generateColumnKernel(segment, an.st, an.columns.facts, an.params,
                                                     an.columns.plan, info, name()),
                                an.params.grid[1] > 1);
    } catch (const Unschedulable& e) {
      return Refusal::ofInputs(e.what());
    }
  }

 private:
  // The run-time analysis; a non-empty result is the reason to reject.
  std::string analyze(const Fusion& segment, RuntimeInfo& info, Analysis& an) const {
    const Decision d = analyzeCompileTime(segment, ReductionType::Outer, an.st);
    if (!d) return d.reason();
    int64_t state_bytes = 0;
    for (const Expr* r : an.st.reductions) state_bytes += reduction::accumulatorFor(r).state_bytes;
    const ForcedColumnShape forced{option<int64_t>("rows_per_thread"),
                                   option<int64_t>("blocks_per_sm")};
    const std::string problem =
        analyzeDomain(segment, an.st, info, an.columns, an.params, {},
                      [&](const RowFacts& facts, const RowAccesses& accesses,
                          const RowBufferPlan& plan, PersistentParams& p) {
                        return outer_persistent::chooseColumnShape(
                            facts, accesses, plan, info.device(), p, state_bytes, forced);
                      });
    an.params.type = ReductionType::Outer;
    return problem;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(OuterPersistentScheduler, "outer_persistent", "1.0",
                                 "normalizations that reduce outer dims (x - mean(x, 0), "
                                 "batch-norm over channels-last inputs) as one kernel keeping "
                                 "each block's columns in registers, with a grid reduction "
                                 "(cooperative launch) across bands of rows")
