// Test scheduler: accepts everything and returns the reference evaluator's
// results plus one in every element: a deliberately wrong plan, so tests can
// see `fusebox run --validate` catch a mismatch.
#include "fixture_schedulers.h"

namespace fusebox_test_schedulers {

class WrongByOnePlan final : public fusebox::HostPlan {
 public:
  explicit WrongByOnePlan(const fusebox::Fusion& segment) : segment_(segment.clone()) {}
  std::string describe() const override { return "the evaluator's results plus one"; }
  std::vector<fusebox::Argument> run(const std::vector<fusebox::Argument>& inputs) const override {
    std::vector<fusebox::Argument> outputs = fusebox::evaluateFusion(*segment_, inputs);
    for (auto& o : outputs) {
      auto* t = std::get_if<fusebox::Tensor>(&o);
      if (t == nullptr) continue;
      fusebox::Tensor shifted = t->contiguous(true);
      std::vector<int64_t> index(shifted.dim(), 0);
      for (int64_t i = 0; i < shifted.numel(); ++i) {
        int64_t rest = i;
        for (size_t d = index.size(); d-- > 0;) {
          index[d] = rest % shifted.sizes()[d];
          rest /= shifted.sizes()[d];
        }
        shifted.setDouble(index, shifted.getDouble(index) + 1);
      }
      o = shifted;
    }
    return outputs;
  }

 private:
  std::unique_ptr<fusebox::Fusion> segment_;
};

class WrongByOne final : public HostScheduler {
 public:
  std::string name() const override { return "wrong_by_one"; }

 protected:
  std::unique_ptr<fusebox::SegmentPlan> makePlan(const fusebox::Fusion& segment) override {
    return std::make_unique<WrongByOnePlan>(segment);
  }
};

}  // namespace fusebox_test_schedulers

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(
    fusebox_test_schedulers::WrongByOne, "wrong_by_one", "1.0",
    "test: accepts everything, returns the evaluator's results plus one")
