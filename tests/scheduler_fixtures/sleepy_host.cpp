// Test scheduler: accepts everything; its plan runs the reference evaluator
// and then sleeps `sleep_us` microseconds (option, default 3000): a variant
// `fusebox compare` must report slower.
#include <chrono>
#include <thread>

#include "fixture_schedulers.h"

namespace fusebox_test_schedulers {

class SleepyPlan final : public HostPlan {
 public:
  SleepyPlan(const Fusion& segment, int64_t sleep_us)
      : segment_(segment.clone()), sleep_us_(sleep_us) {}
  std::string describe() const override {
    return fmt::format("host evaluation, then {} us of sleep", sleep_us_);
  }
  std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
    std::vector<Argument> outputs = evaluateFusion(*segment_, inputs);
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    return outputs;
  }

 private:
  std::unique_ptr<Fusion> segment_;
  int64_t sleep_us_;
};

class SleepyHost final : public HostScheduler {
 public:
  std::string name() const override { return "sleepy_host"; }
  std::vector<OptionSpec> options() const override {
    return {{"sleep_us", OptionType::Int, int64_t{3000}, "Microseconds each run sleeps"}};
  }

 protected:
  std::unique_ptr<SegmentPlan> makePlan(const Fusion& segment) override {
    return std::make_unique<SleepyPlan>(segment, option<int64_t>("sleep_us"));
  }
};

}  // namespace fusebox_test_schedulers

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::SleepyHost, "sleepy_host", "1.0",
                                 "test: runs the reference evaluator, then sleeps")
