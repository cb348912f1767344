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
    return {{"max_threads", OptionType::Int, int64_t{1024},
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

  Decision canScheduleCompileTime(const Fusion& segment, CompileTimeCache& cache) override {
    return cache.get<Decision>("scan.compile_time", [&] {
      ScanStructure st;
      return analyzeScan(segment, st);
    });
  }

  Decision canScheduleRunTime(const Fusion& segment, RuntimeInfo& info,
                              CompileTimeCache& cache) override {
    if (Decision d = canScheduleCompileTime(segment, cache); !d) return d;
    const ScanStructure st = structureOf(segment);
    try {
      return checkScanRunTime(segment, st, computeScanFacts(segment, st, info), info);
    } catch (const UserError& e) {
      return Decision::reject(fmt::format("the inputs do not fit the segment: {}", e.what()));
    }
  }

  std::unique_ptr<HeuristicParams> computeHeuristics(const Fusion& segment, RuntimeInfo& info,
                                                     CompileTimeCache&) override {
    const ScanStructure st = structureOf(segment);
    const ScanFacts facts = computeScanFacts(segment, st, info);
    return std::make_unique<ScanParams>(
        computeScanParams(st, facts, collectScanAccesses(segment, st, facts, info),
                          static_cast<int>(option<int64_t>("max_threads"))));
  }

  std::unique_ptr<SegmentPlan> schedule(const Fusion& segment, const HeuristicParams& params,
                                        RuntimeInfo& info) override {
    const auto* p = dynamic_cast<const ScanParams*>(&params);
    FUSEBOX_CHECK(p != nullptr, "scan: schedule() got another scheduler's params");
    const ScanStructure st = structureOf(segment);
    return makeScanPlan(segment, st, computeScanFacts(segment, st, info), *p, info);
  }

 private:
  static ScanStructure structureOf(const Fusion& segment) {
    ScanStructure st;
    FUSEBOX_CHECK(analyzeScan(segment, st).accepted(), "scan: the segment is not a scan segment");
    return st;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(ScanScheduler, "scan", "1.0",
                                 "a cumsum/cumprod/cummax/cummin along the innermost dim with "
                                 "the elementwise ops around it as one block-scan kernel")
