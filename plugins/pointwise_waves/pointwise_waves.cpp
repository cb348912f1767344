// pointwise_waves: the built-in pointwise kernels with another launch
// heuristic. The built-in rule picks threads and unroll by size thresholds;
// this one picks, among 128/256/512 threads and 1/2/4/8 chunks a thread, the
// launch whose last wave of blocks is fullest (wave quantization: a grid of
// 1.1 waves takes about as long as 2), preferring more work per thread on a
// tie. Only the 1-D schedule differs; 2-D segments keep the built-in choice.
//
// Written as a third party would: it includes only the installed SDK's
// headers and links fusebox::pointwise (docs/writing-a-scheduler-plugin.md).
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include <cmath>

#include "pointwise/scheduler_base.h"

namespace {

using namespace fusebox;
using namespace fusebox::pointwise;

class PointwiseWavesScheduler final : public PointwiseSchedulerBase {
 public:
  std::string name() const override { return "pointwise_waves"; }

  std::vector<OptionSpec> options() const override {
    return {{"resident_threads_per_sm", OptionType::Int, int64_t{2048},
             "Threads an SM holds at once (2048 on sm_80 and sm_90): the size of a wave"}};
  }

  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "resident_threads_per_sm", 128, 4096);
  }

 protected:
  PointwiseParams chooseParams(const SegmentAnalysis& a, RuntimeInfo& info) const override {
    PointwiseParams p = computePointwiseParams(a.facts, a.accesses, info.device());
    if (p.break_point != 0 || p.chunks() == 0) return p;
    const double sms = std::max(1, info.device().multiprocessor_count);
    const double resident = static_cast<double>(option<int64_t>("resident_threads_per_sm"));
    double best_fill = -1;
    for (int unroll : {8, 4, 2, 1}) {
      for (int threads : {256, 512, 128}) {
        const double blocks = std::ceil(static_cast<double>(p.chunks()) / (threads * unroll));
        const double waves = blocks * threads / (resident * sms);
        const double fill = waves / std::ceil(waves);  // 1: the last wave is full
        // Strictly better only: ties keep the earlier, larger unroll.
        if (fill > best_fill + 1e-9) {
          best_fill = fill;
          p.threads = threads;
          p.unroll = unroll;
        }
      }
    }
    finishLaunch(p, a.facts, a.accesses);
    return p;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(PointwiseWavesScheduler, "pointwise_waves", "1.0",
                                 "pointwise kernels launched to fill the last wave of blocks "
                                 "(a third-party example on fusebox::pointwise)")
