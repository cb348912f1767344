// pointwise: segments of elementwise and data-movement ops become one
// generated CUDA kernel (the same source runs on the cuda and host backends).
// A thin folder over the pointwise kernel generator
// (schedulers/common/pointwise). See docs/schedulers/pointwise.md.
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include "pointwise/scheduler_base.h"

namespace {

using namespace fusebox;
using namespace fusebox::pointwise;

class PointwiseScheduler final : public PointwiseSchedulerBase {
 public:
  std::string name() const override { return "pointwise"; }

  std::vector<OptionSpec> options() const override {
    return {{"threads", OptionType::Int, int64_t{0},
             "Threads per block: 32 to 1024, a multiple of 32 (0: the heuristic decides)"},
            {"unroll", OptionType::Int, int64_t{0},
             "Vector chunks each thread handles in the 1-D schedule, 1 to 16 (0: the "
             "heuristic decides)"},
            {"rows_per_block", OptionType::Int, int64_t{0},
             "Rows each block loops over in the 2-D schedule, 1 to 256 (0: the heuristic "
             "decides)"},
            {"max_vector_width", OptionType::Int, int64_t{0},
             "Most elements a thread accesses at once along the innermost dim, 1 to 16, "
             "rounded down to a power of two (0: as many as 16 bytes hold where alignment "
             "allows; for tuning)"}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "unroll", 0, 16, " (0: the heuristic decides)");
    requireIntInRange(settings, "rows_per_block", 0, 256, " (0: the heuristic decides)");
    requireIntInRange(settings, "threads", 0, 1024, " (0: the heuristic decides)");
    requireIntInRange(settings, "max_vector_width", 0, 16, " (0: the widest alignment allows)");
    if (const int64_t threads = option<int64_t>("threads"); threads % 32 != 0) {
      throw UserError(whereSet(settings, "threads"),
                      fmt::format("scheduler 'pointwise': option 'threads' must be a multiple "
                                  "of 32 (0: the heuristic decides), got {}",
                                  threads));
    }
  }

 protected:
  PointwiseParams chooseParams(const SegmentAnalysis& a, RuntimeInfo& info) const override {
    const LaunchOverrides overrides{static_cast<int>(option<int64_t>("threads")),
                                    static_cast<int>(option<int64_t>("unroll")),
                                    static_cast<int>(option<int64_t>("rows_per_block")),
                                    static_cast<int>(option<int64_t>("max_vector_width"))};
    return computePointwiseParams(a.facts, a.accesses, info.device(), overrides);
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(PointwiseScheduler, "pointwise", "1.0",
                                 "elementwise and data-movement segments as one generated "
                                 "kernel: merged dims, 16-byte vector accesses, 2-D schedule "
                                 "for broadcasts")
