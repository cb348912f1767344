// expr_eval: the universal fallback. It accepts every segment and runs it on
// the host with the reference evaluator, so every fusion runs even where no
// kernel scheduler applies. It is the last entry of the default order.
#include <fusebox/eval/evaluator.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

namespace {

using namespace fusebox;

// Nothing to choose: the params only identify the segment they were made for.
class ExprEvalParams final : public HeuristicParams {
 public:
  explicit ExprEvalParams(uint64_t segment_hash) : segment_hash_(segment_hash) {}
  uint64_t hash() const override { return segment_hash_; }
  bool sameAs(const HeuristicParams& other) const override {
    const auto* o = dynamic_cast<const ExprEvalParams*>(&other);
    return o != nullptr && o->segment_hash_ == segment_hash_;
  }
  std::string toString() const override {
    return fmt::format("segment hash {:016x} (the reference evaluator has no parameters)",
                       segment_hash_);
  }

 private:
  uint64_t segment_hash_;
};

class EvaluatorPlan final : public HostPlan {
 public:
  explicit EvaluatorPlan(const Fusion& segment) : segment_(segment) {
    for (const Expr* e : segment.exprs())
      if (e->isTensorOp()) ++tensor_exprs_;
  }
  std::string describe() const override {
    return fmt::format("host evaluation of {} tensor expression{} (reference evaluator)",
                       tensor_exprs_, tensor_exprs_ == 1 ? "" : "s");
  }
  std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
    return evaluateFusion(segment_, inputs);
  }

 private:
  // The runtime keeps the segment alive as long as the plan.
  const Fusion& segment_;
  int64_t tensor_exprs_ = 0;
};

class ExprEvalScheduler final : public Scheduler {
 public:
  std::string name() const override { return "expr_eval"; }

  Decision canScheduleCompileTime(const Fusion&, CompileTimeCache&) override {
    return Decision::accept();
  }
  Decision canScheduleRunTime(const Fusion&, RuntimeInfo&, CompileTimeCache&) override {
    return Decision::accept();
  }
  std::unique_ptr<HeuristicParams> computeHeuristics(const Fusion& segment, RuntimeInfo&,
                                                     CompileTimeCache& cache) override {
    uint64_t hash =
        cache.get<uint64_t>("expr_eval.structural_hash", [&] { return segment.structuralHash(); });
    return std::make_unique<ExprEvalParams>(hash);
  }
  std::unique_ptr<SegmentPlan> schedule(const Fusion& segment, const HeuristicParams&,
                                        RuntimeInfo&) override {
    return std::make_unique<EvaluatorPlan>(segment);
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(ExprEvalScheduler, "expr_eval", "1.0",
                                 "Runs any segment on the host with the reference evaluator "
                                 "(accepts everything: the fallback)")
