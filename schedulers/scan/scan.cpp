// scan: a cumsum, cumprod, cummax or cummin along the innermost dim, with the
// elementwise ops around it, as one generated block-scan kernel (one block
// per row). Its analysis and kernel are in scan_analysis.cpp and
// scan_kernel.cpp beside it. See docs/schedulers/scan.md.
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "scan_analysis.h"
#include "scan_kernel.h"

namespace {

using namespace fusebox;
using namespace fusebox::scan;

class ScanScheduler final : public Scheduler {
 public:
  std::string name() const override { return "scan"; }

  std::vector<OptionSpec> options() const override {
    // 256: eight blocks an SM, each waiting out its own chunk's loads, beat
    // two of 1024 (block scans over 32 warps) by 7-15% on rows of 4096 and
    // wider (H200; docs/schedulers/scan.md).
    return {{"max_threads", OptionType::Int, int64_t{256},
             "Most threads per block (one block scans one row): 32 to 1024, a multiple of 32"}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "max_threads", 32, 1024, "");
    if (const int64_t threads = option<int64_t>("max_threads"); threads % 32 != 0)
      throw UserError(whereSet(settings, "max_threads"),
                      fmt::format("scheduler 'scan': option 'max_threads' must be a multiple of "
                                  "32, got {}",
                                  threads));
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache&) override {
    // Analyzed once per question: the structure refers to this segment's IR,
    // and the segmenter remembers a structural refusal itself.
    auto st = std::make_shared<ScanStructure>();
    if (Decision d = analyzeScan(segment, *st); !d) return Refusal::ofStructure(d);
    ScanFacts facts;
    try {
      facts = computeScanFacts(segment, *st, info);
      if (Decision d = checkScanRunTime(segment, *st, facts, info); !d) return Refusal::ofInputs(d);
    } catch (const UserError& e) {
      return Refusal::ofInputs(fmt::format("the inputs do not fit the segment: {}", e.what()));
    }
    const int max_threads = static_cast<int>(option<int64_t>("max_threads"));
    auto kept = std::make_shared<const ScanFacts>(std::move(facts));
    return std::make_unique<LazyProposal>(
        [&segment, st, kept, info, max_threads]() mutable {
          return std::make_unique<ScanParams>(computeScanParams(
              *st, *kept, collectScanAccesses(segment, *st, *kept, info), max_threads));
        },
        [&segment, st, kept, info](const HeuristicParams& params) mutable {
          return makeScanPlan(segment, *st, *kept, dynamic_cast<const ScanParams&>(params), info);
        });
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(ScanScheduler, "scan", "1.0",
                                 "a cumsum/cumprod/cummax/cummin along the innermost dim with "
                                 "the elementwise ops around it as one block-scan kernel")
