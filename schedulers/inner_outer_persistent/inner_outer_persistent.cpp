// inner_outer_persistent: a normalization with reductions of each row and
// reductions over the rows (layernorm and RMSNorm backward: grad input, and
// grad weight and grad bias) as one cooperative kernel. The row part is the
// inner persistent row kernel, walked grid-stride; each thread sums the
// column part at its columns as it goes, the blocks store partial sums, wait
// at a grid barrier, and reduce the partials. The checks, the split into
// parts, the buffers and the kernel come from the normalization library;
// this plugin adds its reduction type and the grid. See
// docs/schedulers/persistent.md.
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "grid_shape.h"
#include "kernelgen/int_math.h"
#include "normalization/chunk_buffers.h"
#include "normalization/column_partials.h"
#include "normalization/inner_outer.h"
#include "normalization/row_analysis.h"
#include "normalization/row_kernel.h"
#include "normalization/structure.h"

namespace {

using namespace fusebox;
using namespace fusebox::normalization;

class InnerOuterParams final : public PersistentParams {
 public:
  size_t column_reductions = 0;
  int64_t accumulator_shared_bytes = 0;  // > 0: the accumulators in dynamic shared memory

 protected:
  std::string extraLines() const override {
    const int64_t per_block = (reduced_extent + grid[0] - 1) / std::max<uint32_t>(1, grid[0]);
    return rowCombineLine(*this) +
           fmt::format(
               "\ncolumn part: {} reduction(s) over the rows, a partial row per block "
               "({} x {}), a grid barrier (cooperative launch), then {} column(s) per "
               "block",
               column_reductions, grid[0], reduced_extent, per_block) +
           (accumulator_shared_bytes > 0
                ? fmt::format("\ncolumn accumulators: shared memory ({} B a block, dynamic)",
                              accumulator_shared_bytes)
                : std::string("\ncolumn accumulators: registers"));
  }
};

// The threads a wide row takes, and the most bytes of its buffers each of
// them may keep (analyzeRowShape).
constexpr int64_t kWideRowThreads = 128;
constexpr int64_t kWideRowBufferBytes = 256;

struct Analysis {
  NormalizationStructure st;
  InnerOuterParts parts;
  RowAnalysis rows;
  InnerOuterParams params;
};

class InnerOuterPersistentScheduler final : public Scheduler {
 public:
  std::string name() const override { return "inner_outer_persistent"; }

  std::vector<OptionSpec> options() const override {
    std::vector<OptionSpec> out = rowShapeOptions();
    out.push_back({"blocks_per_sm", OptionType::Int, int64_t{0},
                   "Blocks each multiprocessor holds, 1 to 8: the grid is this times the "
                   "multiprocessors, and __launch_bounds__ holds the registers to it (0: the "
                   "heuristic decides; for tuning)"});
    out.push_back({"prefetch_rows", OptionType::String, std::string("auto"),
                   "Whether a block copies its next row group into shared memory (cp.async) "
                   "while it computes this one: \"staged\" (the row in registers, the next "
                   "one copied into one stage of shared memory), \"on\" (the row buffers in "
                   "shared memory, two stages), \"off\" (in registers, loaded at each row "
                   "group) or \"auto\" (staged where the stage fits beside the column "
                   "accumulators, else off)"});
    out.push_back({"column_accumulators", OptionType::String, std::string("auto"),
                   "Where each thread sums the column reductions: \"shared\" (dynamic shared "
                   "memory, 64 registers fewer on layernorm backward), \"registers\", or "
                   "\"auto\" (shared when it fits a block's shared memory)"});
    return out;
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    checkRowShapeOptions(name(), settings, forcedShape());
    requireOneOf(settings, "column_accumulators", {"auto", "registers", "shared"});
    requireOneOf(settings, "prefetch_rows", {"auto", "on", "off", "staged"});
    requireIntInRange(settings, "blocks_per_sm", 0, 8, " (0: the heuristic decides)");
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const Decision structure = cache.get<Decision>("inner_outer_persistent.compile_time", [&] {
      NormalizationStructure st;
      InnerOuterParts parts;
      Decision d = analyzeCompileTime(segment, ReductionType::InnerOuter, st);
      if (d) d = splitInnerOuter(segment, st, parts);
      return d;
    });
    if (!structure) return Refusal::ofStructure(structure);
    Analysis an;
    if (std::string problem = analyze(segment, info, an); !problem.empty())
      return Refusal::ofInputs(problem);
    if (!an.rows.shape_problem.empty()) return Refusal::ofInputs(an.rows.shape_problem);
    const int64_t dynamic = an.params.accumulator_shared_bytes + an.params.shared_buffer_bytes;
    try {
      return persistentProposal(
          segment, info, an.params, an.rows.facts,
          generateInnerOuterKernel(segment, an.parts, an.rows.facts, an.params, an.rows.plan, info,
                                   name(), an.params.accumulator_shared_bytes > 0),
          true, dynamic);
    } catch (const Unschedulable& e) {
      return Refusal::ofInputs(e.what());
    }
  }

 private:
  ForcedShape forcedShape() const {
    ForcedShape forced{option<int64_t>("threads_per_row"), option<int64_t>("chunks_per_thread")};
    forced.row_edges = false;
    return forced;
  }

  // The run-time analysis; a non-empty result is the reason to reject.
  std::string analyze(const Fusion& segment, RuntimeInfo& info, Analysis& an) const {
    const std::string where = option<std::string>("column_accumulators");
    if (where == "auto") {
      // Shared when it fits: on an H100, layernorm backward 16384x4096 ran
      // 0.171 ms with its accumulators in shared memory against 0.184 in
      // registers (both two blocks per SM; three, as the freed registers
      // would allow, ran 0.207), 32768x1024 0.087 against 0.091, RMSNorm
      // backward 0.148 against 0.150.
      const std::string shared_try = analyzeWith(segment, info, an, true);
      if (shared_try.empty() && an.rows.shape_problem.empty()) return {};
      an = Analysis{};
      return analyzeWith(segment, info, an, false);
    }
    return analyzeWith(segment, info, an, where == "shared");
  }

  // The analysis with the accumulators in shared memory or in registers.
  std::string analyzeWith(const Fusion& segment, RuntimeInfo& info, Analysis& an,
                          bool shared_accumulators) const {
    Decision d = analyzeCompileTime(segment, ReductionType::InnerOuter, an.st);
    if (d) d = splitInnerOuter(segment, an.st, an.parts);
    if (!d) return d.reason();
    const int64_t column_bytes =
        shared_accumulators ? 0 : ColumnPartials::registerBytesPerElement(an.parts);
    std::string problem = analyzeRowShape(segment, info, an, column_bytes);
    if (!problem.empty()) return problem;
    if (problem = columnShapeProblem(an.parts, an.rows.facts); !problem.empty()) return problem;
    an.params.type = ReductionType::InnerOuter;
    an.params.column_reductions = an.parts.column_reductions.size();
    if (!an.rows.shape_problem.empty()) return {};
    const ColumnPartials partials(an.parts, an.params, shared_accumulators);
    const int64_t dynamic = partials.dynamicSharedBytes();
    const int64_t shared =
        rowKernelSharedMemoryBytes(an.parts.rows, an.params) + partials.sharedBytes() + dynamic;
    if (shared > info.device().shared_memory_per_block)
      return fmt::format(
          "the column accumulators take {} B of shared memory a block ({} threads x {} "
          "elements), {} B with the rest, more than the {} B a block may have",
          dynamic, an.params.threads(), an.params.elementsPerThread(), shared,
          info.device().shared_memory_per_block);
    an.params.accumulator_shared_bytes = dynamic;
    const int64_t limit = info.device().shared_memory_per_block;
    const std::string prefetch = option<std::string>("prefetch_rows");
    auto tooLarge = [&](const char* what, int64_t bytes) {
      return fmt::format(
          "prefetch_rows = \"{}\": {} {} B of shared memory a block, {} B with the rest, "
          "more than the {} B a block may have",
          prefetch, what, bytes, shared + bytes, limit);
    };
    if (prefetch == "staged" || prefetch == "auto") {
      // One stage of the buffers a row group reads again (the loaded ones
      // no row moves are loaded once, not staged). On by default where it
      // fits: on an H200, bf16 backward in µs, off against staged,
      // layernorm 8192x5120 90.3 / 77.8 (one block an SM instead of two),
      // 16384x4096 122.4 / 116.9, 32768x1024 67.9 / 65.6, 4096x8192
      // 87.9 / 85.0; RMSNorm 65536x768 86.2 / 83.7, 8192x5120 76.7 / 75.8,
      // 4096x8192 68.5 / 68.1, 16384x4096 110.8 / 111.1
      // (docs/schedulers/persistent.md).
      std::vector<PersistentBuffer> staged;
      for (const PersistentBuffer& b : an.params.buffers)
        if (!b.row_invariant && !b.kept_value) staged.push_back(b);
      const int64_t bytes = sharedBuffersBytes(staged, an.params.block[1], an.params.block[0],
                                               an.params.batch, an.params.vector_width);
      const bool fits = shared + bytes <= limit;
      if (!fits && prefetch == "staged") return tooLarge("a stage of the row buffers takes", bytes);
      // Chunks of one element are loaded at each row group, as without.
      if (fits && bytes > 0 && an.params.vector_width > 1) {
        an.params.staged_rows = true;
        an.params.shared_buffer_bytes = bytes;
      }
    } else if (prefetch == "on") {
      // Measured and left off by default: on an H200 every size tried ran
      // slower (layernorm backward 8192x5120 bf16 120.6 us against 106.1,
      // 16384x4096 212.8 against 140.2; docs/schedulers/persistent.md). The
      // kernel is not waiting on its loads: the copies, the reads back from
      // shared memory and the smaller grid cost more than the overlap gains.
      // Two stages of every row buffer: twice the block's rows.
      const int64_t staged =
          sharedBuffersBytes(an.params.buffers, int64_t{2} * an.params.block[1], an.params.block[0],
                             an.params.batch, an.params.vector_width);
      if (shared + staged > limit) return tooLarge("two stages of the row buffers take", staged);
      an.params.buffer_stages = 2;
      an.params.register_batch = 0;
      an.params.shared_buffer_bytes = staged;
    }
    inner_outer_persistent::chooseGrid(an.params, shared + an.params.shared_buffer_bytes,
                                       info.device(), option<int64_t>("blocks_per_sm"));
    return {};
  }

  // The row shape into an.params (an.rows.shape_problem says when none
  // fits), unless the options force one:
  //   - 4 chunks a thread (fewer threads a row, more rows in flight). On an
  //     H100, layernorm backward 16384x4096 ran 0.184 ms at 128 threads x 4
  //     chunks against 0.196 at 256 x 2, RMSNorm backward 0.151 against 0.161;
  //   - rows of 384 chunks or more: 128 threads with as many chunks as the
  //     row needs (3 or more), while their buffers take at most 64
  //     registers a thread (half of the 128 chooseGrid allows: the math
  //     needs the rest). H200, bf16, µs: layernorm backward 8192x5120 96.2
  //     at 128 x 5 (240 B of buffers a thread) against 106.0 at 160 x 4,
  //     16384x3072 109.7 at 128 x 3 against 116.6 at 96 x 4, RMSNorm
  //     backward 8192x5120 78.5 against 80.6; past the budget, layernorm
  //     backward 8192x6144 138.8 at 128 x 6 (288 B) against 128.4 at
  //     192 x 4, 4096x8192 95.2 at 128 x 8 against 94.9 at 256 x 4;
  //   - short rows (4 chunks a thread would leave lanes idle), or rows too
  //     wide for 4: the general heuristic.
  std::string analyzeRowShape(const Fusion& segment, RuntimeInfo& info, Analysis& an,
                              int64_t column_bytes) const {
    const ForcedShape forced = forcedShape();
    const InnerOuterParams blank = an.params;
    auto tryShape = [&](const ForcedShape& shape) {
      an.params = blank;
      return analyzeRows(segment, an.parts.rows, info, shape, an.rows, an.params,
                         an.parts.column_reductions, column_bytes);
    };
    if (forced.threads_per_row != 0 || forced.chunks_per_thread != 0) return tryShape(forced);
    ForcedShape four = forced;
    four.chunks_per_thread = 4;
    if (std::string problem = tryShape(four); !problem.empty()) return problem;
    const int64_t chunks = an.rows.facts.reduced_extent / an.params.vector_width;
    if (an.rows.shape_problem.empty() && chunks >= 3 * kWideRowThreads &&
        an.params.block[0] != kWideRowThreads &&
        an.params.buffer_bytes <= kWideRowThreads * kWideRowBufferBytes) {
      const InnerOuterParams four_params = an.params;
      const RowAnalysis four_rows = an.rows;
      ForcedShape wide = forced;
      wide.chunks_per_thread = static_cast<int>(kernelgen::ceilDiv(chunks, kWideRowThreads));
      if (tryShape(wide).empty() && an.rows.shape_problem.empty()) return {};
      an.params = four_params;
      an.rows = four_rows;
      return {};
    }
    if (!an.rows.shape_problem.empty() ||
        an.params.block[0] * 4 > 2 * std::max<int64_t>(32, chunks))
      return tryShape(forced);
    return {};
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(InnerOuterPersistentScheduler, "inner_outer_persistent", "1.0",
                                 "normalizations that reduce each row and over the rows "
                                 "(layernorm and RMSNorm backward) as one cooperative kernel: "
                                 "rows kept in registers, partial column sums per block, a grid "
                                 "barrier and a final reduction")
