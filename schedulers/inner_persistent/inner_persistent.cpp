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

#include <algorithm>
#include <optional>

#include "kernel_ir/element_math.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/shapes.h"
#include "normalization/persistent_buffers.h"
#include "normalization/row_analysis.h"
#include "normalization/row_kernel.h"
#include "normalization/structure.h"

namespace {

using namespace fusebox;
using namespace fusebox::normalization;
class InnerPersistentParams final : public PersistentParams {
 protected:
  std::string extraLines() const override { return rowCombineLine(*this); }
};

// Everything the run-time steps derive, once per call.
struct Analysis {
  NormalizationStructure st;
  RowAnalysis rows;
  InnerPersistentParams params;
};

class InnerPersistentScheduler final : public Scheduler {
 public:
  std::string name() const override { return "inner_persistent"; }

  std::vector<OptionSpec> options() const override {
    std::vector<OptionSpec> out = rowShapeOptions();
    out.push_back(bufferPlacementOption());
    out.push_back(blocksPerRowOption());
    out.push_back(rowEdgesOption());
    out.push_back(
        {"blocks_per_sm", OptionType::Int, int64_t{0},
         "Blocks each multiprocessor should hold, 1 to 8, asked of ptxas through "
         "__launch_bounds__, which caps the registers to fit (0: the heuristic decides)"});
    return out;
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireOneOf(settings, "persistent_buffers", {"auto", "registers", "shared", "reload"});
    checkRowShapeOptions(name(), settings, forcedShape());
    requireIntInRange(settings, "blocks_per_sm", 0, 8, " (0: the heuristic decides)");
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const Decision structure = cache.get<Decision>("inner_persistent.compile_time", [&] {
      NormalizationStructure st;
      return analyzeCompileTime(segment, ReductionType::Inner, st);
    });
    if (!structure) return Refusal::ofStructure(structure);
    Analysis an;
    if (std::string problem = analyze(segment, info, an); !problem.empty())
      return Refusal::ofInputs(problem);
    if (!an.rows.shape_problem.empty()) return Refusal::ofInputs(an.rows.shape_problem);
    if (an.params.grid[0] >= (uint32_t{1} << 31))
      return Refusal::ofInputs(
          fmt::format("{} rows need more than 2^31 - 1 blocks", an.rows.facts.kept_extent));
    try {
      return persistentProposal(
          segment, info, an.params, an.rows.facts,
          generateRowKernel(segment, an.st, an.rows.facts, an.params, an.rows.plan, info, name()),
          false);
    } catch (const Unschedulable& e) {
      return Refusal::ofInputs(e.what());
    }
  }

 private:
  ForcedShape forcedShape() const {
    return {option<int64_t>("threads_per_row"), option<int64_t>("chunks_per_thread"),
            parseBufferPlacement(option<std::string>("persistent_buffers")),
            option<int64_t>("blocks_per_row"), option<bool>("row_edges")};
  }

  // The run-time analysis; a non-empty result is the reason to reject.
  std::string analyze(const Fusion& segment, RuntimeInfo& info, Analysis& an) const {
    const Decision d = analyzeCompileTime(segment, ReductionType::Inner, an.st);
    if (!d) return d.reason();
    ForcedShape forced = forcedShape();
    std::string problem = analyzeRows(segment, an.st, info, forced, an.rows, an.params);
    // A forced shape tunes the rows kept on chip: it keeps them there.
    const bool shape_forced =
        forced.threads_per_row > 0 || forced.chunks_per_thread > 0 || forced.blocks_per_row > 0;
    if (problem.empty() && forced.placement == BufferPlacement::Auto && !shape_forced &&
        preferReload(an.rows, an.params)) {
      // Before reading it again: the row in shared memory, when two of its
      // blocks fit an SM.
      if (std::optional<Analysis> in_shared = keptInShared(segment, an.st, info, forced, 1)) {
        // Launch bounds of one block: ptxas keeps the registers it wants,
        // and the SM holds as many blocks as those and the shared memory
        // allow. Asking for two capped the registers and cost 4-7% (H200,
        // bf16, us: the cross-entropy gradient 4096x32000 153.0 against
        // 142.8, 16384x32000 573.1 against 532.8; layernorm forward
        // 4096x32000 151.0 against 145.4); softmax forward at 32000 and
        // 50257 ran the same either way.
        an = std::move(*in_shared);
      } else {
        Analysis reloaded;
        reloaded.st = an.st;
        forced.placement = BufferPlacement::Reload;
        problem = analyzeRows(segment, reloaded.st, info, forced, reloaded.rows, reloaded.params);
        // A pass of one load a chunk holds few registers: ask for the two
        // blocks an SM the heuristics counted on (H200, the cross-entropy
        // gradient over 2048x131072 bf16 rows, 1024 threads: 40 registers,
        // one block an SM, 524 us; 32 registers and two blocks, 427 us).
        // A pass of more loads holds a group of them in flight instead
        // (row_kernel.cpp).
        if (reloaded.rows.plan.most_loads_a_pass <= 1) reloaded.params.min_blocks_per_sm = 2;
        an = std::move(reloaded);
        // A row read more than once that one block's shared memory cannot
        // hold at two blocks an SM: kept in shared memory over the smallest
        // cluster whose blocks hold their share at two blocks an SM, rather
        // than read again from the L2 (H200, bf16, us: softmax forward
        // 2048x131072 409.2 reloaded, 347.0 over clusters of 4 (three blocks
        // an SM), 438.7 over 2 (one); softmax backward 4096x32000 205.3
        // reloaded, 194.7 over 2, 213.1 over 4; 4096x50257 364.2, 313.2 over
        // 2, 323.1 over 4; the cross-entropy gradient 2048x131072 426.6 and
        // 427.4 over 4). A row read once (cross-entropy's max and exp-sum)
        // gains nothing from being kept (168.6 us reloaded, 193.3 over 4).
        // Launch bounds of one block: asking ptxas for two capped the
        // cross-entropy gradient's registers and cost it 12% (427.4 us
        // against 478.3 over clusters of 4).
        const int64_t widest = std::min<int64_t>(info.device().max_cluster_blocks, 8);
        const bool read_again = problem.empty() && an.params.row_reads > 1;
        for (int64_t split = 2; read_again && split <= widest; split *= 2) {
          if (std::optional<Analysis> spread = keptInShared(segment, an.st, info, forced, split)) {
            an = std::move(*spread);
            break;
          }
        }
      }
    }
    an.params.type = ReductionType::Inner;
    if (problem.empty()) problem = boundBlocks(an);
    return problem;
  }

  // blocks_per_sm, when set, replaces the heuristic's launch bounds (one
  // block an SM; two for reloaded rows of one load a pass, above). Asking
  // for the blocks a row kept in shared memory lets an SM hold caps the
  // registers; measured on the H200 (docs/perf/corpus-13.md), no default
  // gained by it.
  std::string boundBlocks(Analysis& an) const {
    const int64_t forced = option<int64_t>("blocks_per_sm");
    if (forced == 0) return {};
    PersistentParams& p = an.params;
    if (forced * p.threads() > kMaxThreadsPerSm)
      return fmt::format("blocks_per_sm {} of {} threads each exceed the {} threads an SM holds",
                         forced, p.threads(), kMaxThreadsPerSm);
    p.min_blocks_per_sm = static_cast<int>(forced);
    return {};
  }

  // The row in the shared memory of `blocks_per_row` blocks (a cluster past
  // one), when every chunk is copied in asynchronously and two such blocks
  // fit an SM; nothing otherwise.
  static std::optional<Analysis> keptInShared(const Fusion& segment,
                                              const NormalizationStructure& st, RuntimeInfo& info,
                                              ForcedShape forced, int64_t blocks_per_row) {
    Analysis in_shared;
    in_shared.st = st;
    forced.placement = BufferPlacement::Shared;
    forced.blocks_per_row = blocks_per_row;
    if (!analyzeRows(segment, in_shared.st, info, forced, in_shared.rows, in_shared.params)
             .empty() ||
        !in_shared.rows.shape_problem.empty() || !copiesAsynchronously(in_shared) ||
        sharedBlocksPerSM(in_shared.params, in_shared.st, info.device()) < 2)
      return std::nullopt;
    return in_shared;
  }

  // Blocks of `p` an SM holds by their shared memory and threads (an SM has
  // about 1 KB more than a block may take, and reserves 1 KB a block).
  // Rows wider than the registers hold, kept in shared memory with their
  // chunks copied in asynchronously, beat reading them again when two
  // blocks fit an SM: while one combines, the other's copies are in flight
  // (H200, bf16 4096x32000: softmax forward 149.6 us at three blocks of 512
  // threads x 64 KB against 184.3 us reloaded, 161.0 at two blocks of 1024;
  // the cross-entropy row kernel 76.3 against 89.3). A row of which an SM
  // holds one block (softmax backward's two inputs of 64 KB) is read again.
  static int64_t sharedBlocksPerSM(const PersistentParams& p, const NormalizationStructure& st,
                                   const DeviceProperties& device) {
    const int64_t per_block =
        p.shared_buffer_bytes + rowKernelSharedMemoryBytes(st, p) + int64_t{1024};
    return std::min<int64_t>((device.shared_memory_per_block + 1024) / per_block,
                             kMaxThreadsPerSm / std::max(p.threads(), 1));
  }

  // Whether every chunk of the row's buffers is one cp.async can copy (4,
  // 8 or 16 bytes): an odd width's 2-byte chunks would go through registers
  // one element at a time, with few loads in flight.
  static bool copiesAsynchronously(const Analysis& an) {
    for (const PersistentBuffer& b : an.rows.plan.buffers) {
      if (!kir::asyncCopyMoves(b.element_bytes * an.params.vector_width)) return false;
    }
    return true;
  }

  // Whether the row should not stay in registers (then shared memory is
  // tried, above, before reading it again by every pass):
  // when keeping its loads costs each thread more than 64 B of registers
  // (fewer blocks resident), shared memory or a cluster, or does not fit;
  // unless the outputs write more bytes an element than the kept loads
  // read, whose stores would push the rows out of the L2 before their next
  // pass. (H200: softmax backward 4096x32000 ran 241 us reloaded against
  // 358 us in registers, RMSNorm 4096x32000 181 against 219, softmax
  // 2048x131072 511 against 562 over clusters; layernorm 8192x8192, 64 B a
  // thread, 87 us in registers against 98; the cross-entropy row kernel
  // 4096x32000, which writes 4 B floats for 2 B reads, 265 against 346.)
  static bool preferReload(const RowAnalysis& rows, const PersistentParams& p) {
    const RowBufferPlan& plan = rows.plan;
    if (plan.loaded_bytes_per_row == 0) return false;  // nothing read twice
    if (plan.written_bytes_per_row > plan.loaded_bytes_per_row) return false;
    if (!rows.shape_problem.empty()) return true;
    const int64_t per_thread = int64_t{p.batch} * p.vector_width * plan.loaded_bytes_per_row /
                               std::max<int64_t>(1, p.reduced_extent);
    return per_thread > 64 || p.row_split > 1 || p.shared_buffer_bytes > 0;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(InnerPersistentScheduler, "inner_persistent", "1.0",
                                 "normalizations that reduce rows (softmax, layernorm, RMSNorm "
                                 "and their backward's grad input) as one kernel keeping each "
                                 "row in registers (or shared memory) between its reductions "
                                 "and its outputs")
