// The segmenter: splits a fusion into groups that schedulers accept, as a DAG
// (Boost.Graph). First the whole fusion is offered to every scheduler in order;
// otherwise every tensor expression starts as its own group and neighbouring
// groups are merged, level by level and then greedily, while the merged group
// stays acyclic with the rest and some scheduler accepts it. Same fusion and
// same input signature give the same segments, every run.
#pragma once

#include <fusebox/ir/fusion.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/scheduler.h>

#include <map>

#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

// One segment: a set of expressions of the complete fusion and the scheduler
// that accepted them, with its own self-contained sub-fusion.
struct SegmentGroup {
  int64_t id = 0;
  std::vector<Expr*> exprs;   // of the complete fusion, topological order
  std::vector<Val*> inputs;   // complete-fusion values read from outside the group
  std::vector<Val*> outputs;  // complete-fusion values the group produces for others
  std::string scheduler;      // the name of the scheduler that accepted it
  // The sub-fusion (inputs/outputs correspond one to one with `inputs`/`outputs`).
  std::unique_ptr<Fusion> fusion;
};

// One refusal, for the segmenter_log dump.
struct SegmenterLogEntry {
  std::vector<int64_t> groups;  // the groups a merge was tried on (one: a single group)
  std::string scheduler;
  std::string reason;
};

class SegmentedFusion {
 public:
  const Fusion& complete() const { return *complete_; }
  // Groups in an order that respects dependencies (the run order).
  const std::vector<SegmentGroup>& groups() const { return groups_; }
  // Edges between groups: (producer, consumer, value carried).
  struct Edge {
    int64_t from, to;
    Val* value;
  };
  std::vector<Edge> edges() const;
  // The fusion printed once, each expression labelled with its group and
  // scheduler, then each group's inputs and outputs, then the edges
  // (nvFuser issue 785).
  std::string toString() const;
  // Graphviz text of the segment graph.
  void writeGraphviz(std::ostream& os) const;

 private:
  friend class Segmenter;
  const Fusion* complete_ = nullptr;
  std::vector<SegmentGroup> groups_;
  std::vector<Edge> edges_;
};

// A scheduler as the segmenter sees it: the object, and the plugin that made it
// (so every call can be guarded and failures named).
struct SchedulerEntry {
  PluginDescriptor plugin;
  std::shared_ptr<Scheduler> scheduler;
};

// Run-time facts of the complete fusion for one input signature, from which
// each candidate segment's RuntimeInfo is derived: the sizes of intermediates
// come from evaluating their extents; their strides are dense in allocation
// order and their alignment that of a fresh allocation.
class FusionRuntimeFacts {
 public:
  FusionRuntimeFacts(const Fusion& complete, std::vector<ArgumentInfo> inputs,
                     DeviceProperties device);
  // `complete_inputs` are the complete-fusion values that became the segment's
  // inputs, in the segment's input order.
  RuntimeInfo forSegment(const Fusion& segment, const std::vector<Val*>& complete_inputs);
  const DeviceProperties& device() const { return device_; }

 private:
  const Fusion* complete_;
  std::vector<ArgumentInfo> inputs_;
  DeviceProperties device_;
  ExpressionEvaluator evaluator_;
};

class Segmenter {
 public:
  // Schedulers in the configured order.
  explicit Segmenter(std::vector<SchedulerEntry> schedulers);
  // Segments `complete` for the signature `facts` describes. Refusals go to
  // `log` when given. Throws UserError when some expression is accepted by no
  // scheduler at all (naming it and each scheduler's reason).
  std::unique_ptr<SegmentedFusion> segment(const Fusion& complete, FusionRuntimeFacts& facts,
                                           std::vector<SegmenterLogEntry>* log = nullptr);
  // The first scheduler (in order) that accepts `segment`, or null; refusals go
  // to `log`. Compile-time checks are cached per (scheduler, segment structure).
  const SchedulerEntry* findScheduler(const Fusion& segment, RuntimeInfo& info,
                                      std::vector<SegmenterLogEntry>* log,
                                      const std::vector<int64_t>& groups);
  // The compile-time cache of a scheduler for a segment of this structure.
  CompileTimeCache& compileTimeCache(const std::string& scheduler, const Fusion& segment);
  const std::vector<SchedulerEntry>& schedulers() const { return schedulers_; }

 private:
  std::vector<SchedulerEntry> schedulers_;
  std::map<std::pair<std::string, uint64_t>, CompileTimeCache> caches_;
  std::map<std::pair<std::string, uint64_t>, Decision> compile_time_decisions_;
};

// Builds the self-contained fusion of a group of expressions of `complete`:
// boundary values become inputs and outputs, scalar operands computed outside
// become scalar inputs. `map` receives complete-value -> segment-value.
std::unique_ptr<Fusion> extractSegment(const Fusion& complete, const std::vector<Expr*>& exprs,
                                       const std::vector<Val*>& inputs,
                                       const std::vector<Val*>& outputs,
                                       std::unordered_map<const Val*, Val*>* map = nullptr);

}  // namespace fusebox
