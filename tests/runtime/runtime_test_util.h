// Helpers for the runtime tests: the built-in scheduler plugins, schedulers
// defined in the test itself (in-process entries with no plugin file), sample
// tensors and comparisons with the reference evaluator.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>
#include <fusebox/runtime.h>
#include <fusebox/scheduler_setup.h>

#include <gtest/gtest.h>

#include "support/output_match.h"
#include "support/row_major_fill.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace fusebox::runtime_testing {

inline const PluginRegistry& builtinPlugins() {
  static const PluginRegistry registry = [] {
    PluginRegistry r;
    r.discover({{std::filesystem::path(FUSEBOX_BINARY_DIR) / "lib/fusebox/plugins", {}}});
    return r;
  }();
  return registry;
}

// A scheduler from a built-in plugin.
inline SchedulerEntry pluginScheduler(const std::string& name) {
  return {*builtinPlugins().find(name, PluginKind::Scheduler),
          createScheduler(builtinPlugins(), name)};
}

// A scheduler object made here, as the segmenter and runtime take it.
inline SchedulerEntry inProcess(std::shared_ptr<Scheduler> scheduler) {
  PluginDescriptor d;
  d.name = scheduler->name();
  d.kind = PluginKind::Scheduler;
  d.version = "test";
  return {d, std::move(scheduler)};
}

// Values small, exact in every floating dtype, and different between neighbours.
inline Tensor sampleTensor(const std::vector<int64_t>& sizes, int salt = 0,
                           DataType dtype = DataType::Float) {
  Tensor t = Tensor::empty(dtype, sizes);
  testing::fillRowMajor(t, [&](int64_t linear) {
    return 0.25 * static_cast<double>((linear * 7 + salt * 5) % 13 - 6);
  });
  return t;
}

// A 1-D int64 host tensor holding `values` (indices for gathers).
inline Tensor int64Values(const std::vector<int64_t>& values) {
  Tensor t = Tensor::empty(DataType::Int64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) static_cast<int64_t*>(t.data())[i] = values[i];
  return t;
}

// Bit for bit (NaN equals NaN; -0.0 is not 0.0; integers as integers).
inline void expectSameValues(const Argument& actual, const Argument& expected,
                             const std::string& what = {}) {
  EXPECT_TRUE(testing::matchesExactly(actual, expected)) << what;
}

// Runtime options on the host backend, whatever the machine has: this suite's
// expectations (views sharing storage, no copies) are the host's.
inline RuntimeOptions hostOptions() {
  RuntimeOptions o;
  o.backend = BackendChoice::Host;
  return o;
}

// The runtime's options with dumps and warnings captured, on the host backend
// (the same on a machine with a GPU; tests/runtime_gpu has the cuda variants).
struct Captured {
  std::ostringstream dump;
  std::ostringstream diagnostics;
  RuntimeOptions options() {
    RuntimeOptions o = hostOptions();
    o.dump = &dump;
    o.diagnostics = &diagnostics;
    return o;
  }
};

// A host scheduler whose acceptance and plan the test chooses. Its plan runs
// the reference evaluator on the segment and reports each run to `on_run`.
class TestScheduler : public Scheduler {
 public:
  using Accepts = std::function<Decision(const Fusion&)>;
  using OnRun = std::function<void(const Fusion& segment, const std::vector<Argument>& inputs,
                                   std::vector<Argument>& outputs)>;
  TestScheduler(std::string name, Accepts accepts, OnRun on_run = {})
      : name_(std::move(name)), accepts_(std::move(accepts)), on_run_(std::move(on_run)) {}

  std::string name() const override { return name_; }
  Answer propose(const Fusion& segment, RuntimeInfo&, CompileTimeCache&) override {
    ++proposals;
    if (Decision d = accepts_(segment); !d) return Refusal::ofStructure(d);
    return std::make_unique<LazyProposal>(
        [this, &segment] {
          ++params_made;
          if (throw_in_heuristics) throw std::runtime_error("heuristics exploded");
          return std::make_unique<Params>(segment.structuralHash());
        },
        [this, &segment](const HeuristicParams&) {
          ++plans_made;
          if (throw_in_schedule) throw std::runtime_error("schedule exploded");
          return std::make_unique<Plan>(segment, on_run_);
        });
  }
  bool throw_in_heuristics = false;  // from Proposal::params()
  bool throw_in_schedule = false;    // from Proposal::makePlan()
  // Calls of propose() and of the proposals' two steps.
  int64_t proposals = 0, params_made = 0, plans_made = 0;

 private:
  struct Params : HeuristicParams {
    explicit Params(uint64_t h) : h_(h) {}
    uint64_t hash() const override { return h_; }
    bool sameAs(const HeuristicParams& o) const override { return o.hash() == h_; }
    std::string toString() const override { return "test params"; }
    uint64_t h_;
  };
  struct Plan : HostPlan {
    Plan(const Fusion& s, OnRun r) : segment(s), on_run(std::move(r)) {}
    std::string describe() const override { return "test plan"; }
    std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
      std::vector<Argument> outputs = evaluateFusion(segment, inputs);
      if (on_run) on_run(segment, inputs, outputs);
      return outputs;
    }
    const Fusion& segment;
    OnRun on_run;
  };
  std::string name_;
  Accepts accepts_;
  OnRun on_run_;
};

inline int64_t tensorExprCount(const Fusion& f) {
  return static_cast<int64_t>(f.tensorExprs().size());
}

// Accepts only segments of exactly one tensor expression: every expression
// becomes its own group.
inline TestScheduler::Accepts oneExpression() {
  return [](const Fusion& segment) {
    return tensorExprCount(segment) == 1 ? Decision::accept()
                                         : Decision::reject("more than one expression");
  };
}

inline TestScheduler::Accepts everything() {
  return [](const Fusion&) { return Decision::accept(); };
}

}  // namespace fusebox::runtime_testing
