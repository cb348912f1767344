// The test scheduler classes (tests/scheduler_fixtures/CMakeLists.txt says what
// each does). Each plugin library declares one of them; benchmarks make them
// directly. Every one that accepts returns a plan running the reference
// evaluator on the host.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace fusebox_test_schedulers {

using namespace fusebox;

class NoParams final : public HeuristicParams {
 public:
  explicit NoParams(std::string scheduler) : scheduler_(std::move(scheduler)) {}
  uint64_t hash() const override { return std::hash<std::string>()(scheduler_); }
  bool sameAs(const HeuristicParams& other) const override {
    auto* o = dynamic_cast<const NoParams*>(&other);
    return o != nullptr && o->scheduler_ == scheduler_;
  }
  std::string toString() const override { return scheduler_ + ": no choices\n"; }

 private:
  std::string scheduler_;
};

// Runs its own copy of the segment, so it stays valid however long it is kept.
class EvaluatorPlan final : public HostPlan {
 public:
  explicit EvaluatorPlan(const Fusion& segment) : segment_(segment.clone()) {}
  std::string describe() const override {
    return fmt::format("host evaluation of {} expressions", segment_->tensorExprs().size());
  }
  std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
    return evaluateFusion(*segment_, inputs);
  }

 private:
  std::unique_ptr<Fusion> segment_;
};

// A structural check, a check of the inputs, and a plan: each fixture says
// which of them it changes.
class HostScheduler : public Scheduler {
 public:
  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache&) override {
    if (Decision d = checkStructure(segment); !d) return Refusal::ofStructure(d);
    if (Decision d = checkInputs(segment, info); !d) return Refusal::ofInputs(d);
    return std::make_unique<LazyProposal>(
        [scheduler = name()] { return std::make_unique<NoParams>(scheduler); },
        [this, &segment](const HeuristicParams&) { return makePlan(segment); });
  }

 protected:
  virtual Decision checkStructure(const Fusion&) { return Decision::accept(); }
  virtual Decision checkInputs(const Fusion&, RuntimeInfo&) { return Decision::accept(); }
  virtual std::unique_ptr<SegmentPlan> makePlan(const Fusion& segment) {
    return std::make_unique<EvaluatorPlan>(segment);
  }
};

// "T5_g = sum" for reasons.
inline std::string describeExpr(const Expr* e) {
  return fmt::format("{} = {}", e->output(0)->toString(), e->opName());
}

inline bool isReductionLike(const Expr* e) {
  switch (e->op()) {
    case OpType::Reduction:
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford:
    case OpType::Matmul:
    case OpType::Linear:
      return true;
    default:
      return false;
  }
}

// Accepts segments with no reduction-like expression.
class PointwiseOnly final : public HostScheduler {
 public:
  std::string name() const override { return "pointwise_only"; }
  Decision checkStructure(const Fusion& segment) override {
    for (const Expr* e : segment.tensorExprs())
      if (isReductionLike(e))
        return Decision::reject(fmt::format("{} is not pointwise", describeExpr(e)));
    return Decision::accept();
  }
};

// Accepts exactly one reduction, alone or with set/cast.
class SingleReduction final : public HostScheduler {
 public:
  std::string name() const override { return "single_reduction"; }
  Decision checkStructure(const Fusion& segment) override {
    int reductions = 0;
    for (const Expr* e : segment.tensorExprs()) {
      if (e->op() == OpType::Reduction) {
        if (++reductions > 1)
          return Decision::reject(fmt::format("{} is a second reduction", describeExpr(e)));
        continue;
      }
      if (isReductionLike(e))
        return Decision::reject(fmt::format("{} is not a plain reduction", describeExpr(e)));
      if (e->op() != OpType::Set && e->op() != OpType::Cast)
        return Decision::reject(
            fmt::format("{} is neither the reduction nor a set or cast", describeExpr(e)));
    }
    if (reductions == 0) return Decision::reject("no reduction");
    return Decision::accept();
  }
};

// Rejects every segment.
class RejectAll final : public HostScheduler {
 public:
  std::string name() const override { return "reject_all"; }
  Decision checkStructure(const Fusion&) override {
    return Decision::reject("reject_all rejects every segment");
  }
};

// Throws from propose.
class ThrowsAlways final : public HostScheduler {
 public:
  std::string name() const override { return "throws_always"; }
  Decision checkStructure(const Fusion&) override {
    throw std::runtime_error("throws_always throws from propose");
  }
};

// Accepts at compile time, rejects at run time, naming the
// output sizes it saw (so tests can tell the run-time check had real sizes).
class RuntimeReject final : public HostScheduler {
 public:
  std::string name() const override { return "runtime_reject"; }
  Decision checkInputs(const Fusion& segment, RuntimeInfo& info) override {
    std::vector<std::string> shapes;
    for (const Val* v : segment.outputs())
      if (v->isTensor())
        shapes.push_back(fmt::format("{} [{}]", v->toString(),
                                     fmt::join(info.sizes(v->as<TensorView>()), ", ")));
    return Decision::reject(
        fmt::format("rejected at run time with outputs {}", fmt::join(shapes, ", ")));
  }
};

// Accepts everything; its plan runs the reference evaluator.
class AcceptAllHost final : public HostScheduler {
 public:
  std::string name() const override { return "accept_all_host"; }
};

// Like accept_all_host, but a fallback (as expr_eval): only offered what no
// other scheduler accepts.
class FallbackHost final : public HostScheduler {
 public:
  std::string name() const override { return "fallback_host"; }
  bool isFallback() const override { return true; }
};

}  // namespace fusebox_test_schedulers
