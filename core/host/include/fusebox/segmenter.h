// The segmenter: splits a fusion into groups that schedulers accept, as a DAG
// (Boost.Graph). First the whole fusion is offered to every scheduler in order;
// otherwise every tensor expression starts as its own group and neighbouring
// groups are merged, level by level and then greedily, while the merged group
// stays acyclic with the rest and some scheduler accepts it. Same fusion and
// same input signature give the same segments, every run. docs/segmentation.md
// describes the algorithm and the dumps.
//
// Running a SegmentedFusion (what the runtime does): groups() in order; each
// group's fusion takes, for its i-th input, the value of the complete-fusion
// value inputs[i]:
//   - a complete-fusion input: the argument given for it;
//   - a tensor some earlier group produced: that group's output (outputs[j]),
//     through boundaryView (stride 0 on expanded broadcast dims);
//   - a scalar that is not a fusion input (an extent such as T1.size(0), or a
//     scalar computed from extents and scalar inputs): its value evaluated from
//     the complete fusion's inputs (FusionRuntimeFacts::scalarValue, or an
//     ExpressionEvaluator bound to the complete fusion's inputs).
// Complete-fusion outputs that no group produces are fusion inputs passed
// through or scalars; evaluate them from the inputs the same way.
#pragma once

#include <fusebox/ir/fusion.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/scheduler.h>
#include <fusebox/scheduler_entry.h>

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

// One segment: a set of expressions of the complete fusion and the scheduler
// that accepted them, with its own self-contained sub-fusion.
struct SegmentGroup {
  int64_t id = 0;             // == its index in SegmentedFusion::groups() (run order)
  std::vector<Expr*> exprs;   // of the complete fusion, topological order
  std::vector<Val*> inputs;   // complete-fusion values read from outside the group
  std::vector<Val*> outputs;  // complete-fusion values the group produces for others
  // Forwarded expressions (Segmenter::setForwardInputs) the group recomputes
  // from fusion inputs before its own; they belong to no group, and every
  // group reading their values lists them here (topological order). A chain
  // all of whose readers ended in one group is in that group's `exprs`
  // instead.
  std::vector<Expr*> forwarded;
  std::string scheduler;      // the name of the scheduler that accepted it
  // The sub-fusion (inputs/outputs correspond one to one with `inputs`/`outputs`).
  std::unique_ptr<Fusion> fusion;
  // The proposal the scheduler accepted the group with, made for the inputs
  // `proposed_for` (what the segmenter derived from the complete fusion's
  // inputs) in `proposed_mode`. The runtime plans with it when the group's
  // inputs turn out the same, so the scheduler's analysis and code generation
  // run once. `proposer` keeps the proposal's plugin loaded (declared first:
  // destroyed after the proposal, which is destroyed before the fusion).
  std::shared_ptr<Scheduler> proposer;
  std::unique_ptr<Proposal> proposal;
  std::vector<ArgumentInfo> proposed_for;
  ShapeMode proposed_mode = ShapeMode::Static;
};

// One refusal, for the segmenter_log dump.
struct SegmenterLogEntry {
  // Which attempt: "whole fusion", "single expression", "merge round N", "greedy merge".
  std::string stage;
  // The groups a merge was tried on (one: a single group or the whole fusion),
  // by working id: the position of the group's first expression among the
  // complete fusion's tensor expressions, forwarded ones left out (stable
  // while segmenting; the final groups are renumbered in run order).
  std::vector<int64_t> groups;
  // For each of `groups`, the tensors its expressions produce ("T8_g, T10_g").
  std::vector<std::string> group_labels;
  // The scheduler that refused, or "(segmenter)" for a merge the segmenter
  // itself refused (a cycle, a segment_set boundary).
  std::string scheduler;
  std::string reason;
};

// The segmenter_log dump: one line per refusal, grouped by stage.
std::string formatSegmenterLog(const std::vector<SegmenterLogEntry>& log);

class SegmentedFusion {
 public:
  const Fusion& complete() const { return *complete_; }
  // Groups in an order that respects dependencies (the run order).
  const std::vector<SegmentGroup>& groups() const { return groups_; }
  // Edges between groups: (producer, consumer, value carried), one per value,
  // ordered by consumer, then by the value's position among its inputs.
  struct Edge {
    int64_t from, to;
    Val* value;
  };
  const std::vector<Edge>& edges() const { return edges_; }
  // Hands over the proposal the segmenter kept for group `g` (null once taken).
  std::unique_ptr<Proposal> takeProposal(size_t g) { return std::move(groups_.at(g).proposal); }
  // The group whose expressions include `e`, or -1 (also for a forwarded
  // expression, which groups recompute: SegmentGroup::forwarded).
  int64_t groupOf(const Expr* e) const;
  // The fusion printed once, each expression labelled with its group and
  // scheduler, then each group's inputs and outputs, then the edges
  // (nvFuser issue 785).
  std::string toString() const;
  // Graphviz text of the segment graph: one node per group (id, scheduler,
  // expression count), one edge per Edge labelled with the value.
  void writeGraphviz(std::ostream& os) const;

 private:
  friend class Segmenter;
  const Fusion* complete_ = nullptr;
  std::vector<SegmentGroup> groups_;
  std::vector<Edge> edges_;
  std::unordered_map<const Expr*, int64_t> group_of_;
};

// Run-time facts of the complete fusion for one input signature, from which
// each candidate segment's RuntimeInfo is derived: the sizes of intermediates
// come from evaluating their extents; their strides are dense in allocation
// order (stride 0 for expanded broadcast dims) and their alignment that of a
// fresh allocation (kMaxRecordedAlignment, as the runtime records it).
class FusionRuntimeFacts {
 public:
  // `inputs` has one entry per complete-fusion input. Throws UserError when the
  // count, a kind, a rank or a size conflicts with the fusion.
  FusionRuntimeFacts(const Fusion& complete, std::vector<ArgumentInfo> inputs,
                     DeviceProperties device, ShapeMode shape_mode = ShapeMode::Static);
  // `complete_inputs` are the complete-fusion values that became the segment's
  // inputs, in the segment's input order (SegmentGroup::inputs).
  RuntimeInfo forSegment(const Fusion& segment, const std::vector<Val*>& complete_inputs);
  // What one complete-fusion value looks like at run time: the argument info
  // of a fusion input, a dense fresh allocation for an intermediate tensor, the
  // value of a scalar.
  ArgumentInfo argumentInfo(const Val* complete_value);
  // The value of a scalar of the complete fusion (an extent, a scalar input, or
  // scalar arithmetic on them). Throws InternalError when it cannot be evaluated.
  ScalarValue scalarValue(const Val* complete_scalar);
  const Fusion& complete() const { return *complete_; }
  const std::vector<ArgumentInfo>& inputs() const { return inputs_; }
  const DeviceProperties& device() const { return device_; }
  ShapeMode shapeMode() const { return shape_mode_; }

 private:
  const Fusion* complete_;
  std::vector<ArgumentInfo> inputs_;
  DeviceProperties device_;
  ShapeMode shape_mode_;
  ExpressionEvaluator evaluator_;
};

// An intermediate tensor as the next segment takes it: `value` (what a segment
// returned for `tv`) viewed with stride 0 on each expanded broadcast dim of
// `tv`. An expanded broadcast repeats one value, but a kernel or the evaluator
// may have written it out in full; a segment input of that type insists on
// stride 0 (as nvFuser's inputs do).
Tensor boundaryView(const TensorView* tv, const Tensor& value);
// The same for a tensor known only by its description (a kernel plan's
// output, before it runs): strides 0 on the expanded broadcast dims of `tv`.
TensorArgInfo boundaryInfo(const TensorView* tv, TensorArgInfo info);

// Which schedulers a question goes to: the primary ones (kernel schedulers,
// no_op, third-party ones), the fallbacks (Scheduler::isFallback), or all.
enum class SchedulerTier { Primary, Fallback, Any };

// A scheduler's proposal for a segment; empty (`entry` null) when none proposed.
struct SchedulerChoice {
  const SchedulerEntry* entry = nullptr;
  std::unique_ptr<Proposal> proposal;
  explicit operator bool() const { return entry != nullptr; }
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
  // Scheduler choice, the one place it is made: asks the schedulers of `tier`
  // in the configured order, from `first` on (all when null), and returns the
  // first proposal `take` accepts (every proposal when `take` is empty; the
  // runtime's `take` makes the plan, and a failure to plan tries the next
  // scheduler). `kept` answers for `first` instead of asking it again (the
  // proposal the segmenter kept). Every refusal and failure goes to `refused`.
  using RefusalSink =
      std::function<void(const SchedulerEntry&, const std::string& reason, bool failed_to_plan)>;
  using Take = std::function<std::optional<std::string>(const SchedulerEntry&, Proposal&)>;
  SchedulerChoice choose(const Fusion& segment, RuntimeInfo& info, SchedulerTier tier,
                         const RefusalSink& refused, const SchedulerEntry* first = nullptr,
                         std::unique_ptr<Proposal> kept = nullptr, const Take& take = {});
  // choose() for the segmenter's search: refusals go to `log` with `groups`
  // and `stage`.
  SchedulerChoice findScheduler(const Fusion& segment, RuntimeInfo& info,
                                std::vector<SegmenterLogEntry>* log,
                                const std::vector<int64_t>& groups,
                                const std::vector<std::string>& group_labels = {},
                                const std::string& stage = {},
                                SchedulerTier tier = SchedulerTier::Any);
  // Input forwarding (on by default; [runtime] forward_inputs): when the
  // fusion is split, a chain of unary ops and casts that starts at a fusion
  // input read by nothing else, each link read only by the next and none a
  // fusion output, and whose last value is read by two or more expressions,
  // joins no group; every group that reads the chain's last value recomputes
  // the chain from the input (SegmentGroup::forwarded; a chain whose readers
  // all end in one group becomes part of it). So a bf16 input's
  // float cast read by a reduction and by the pointwise part after it is
  // read as bf16 by both kernels, instead of one writing the float copy for
  // the other (nvFuser's segmenter forwards inputs the same way).
  void setForwardInputs(bool on) { forward_inputs_ = on; }
  bool forwardInputs() const { return forward_inputs_; }
  // Whether the scheduler declared itself a fallback (asked once, guarded).
  bool isFallback(const SchedulerEntry& entry) const;
  const std::vector<SchedulerEntry>& schedulers() const { return schedulers_; }
  // How many propose() calls were made, how many structural refusals were
  // remembered, and how many questions one answered without a call: for
  // tests and benchmarks.
  struct Counters {
    int64_t proposals_asked = 0;
    int64_t structural_refusals_kept = 0;
    int64_t structural_refusals_reused = 0;
    int64_t extractions = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  // One scheduler's answer for `segment` (whose structuralHash() is
  // `structure`), guarded: a scheduler that throws refuses for these inputs
  // ("threw: ..."). A structural refusal is kept per (scheduler, structure)
  // and given again without asking.
  Answer ask(const SchedulerEntry& entry, const Fusion& segment, uint64_t structure,
             RuntimeInfo& info);

  std::vector<SchedulerEntry> schedulers_;
  std::vector<bool> fallback_;  // by position in schedulers_
  std::map<std::pair<std::string, uint64_t>, CompileTimeCache> caches_;
  std::map<std::pair<std::string, uint64_t>, Refusal> structural_refusals_;
  Counters counters_;
  bool forward_inputs_ = true;
};

// The self-contained fusion of a group of tensor expressions of `complete`.
struct ExtractedSegment {
  std::unique_ptr<Fusion> fusion;
  std::vector<Val*> inputs;   // the complete-fusion value behind each segment input
  std::vector<Val*> outputs;  // the complete-fusion value behind each segment output
  // Forwarded expressions (Segmenter::setForwardInputs) the segment
  // recomputes because it reads their values; not among the expressions
  // asked for, and copied into the segment before them.
  std::vector<Expr*> forwarded;
};

// Builds the self-contained fusion of `exprs` (tensor expressions of
// `complete`, in topological order). Values keep their complete-fusion names.
//   - Tensors read but produced outside become tensor inputs, first, in order of
//     first use: same dtype, IterTypes and allocation hint, reduction axes
//     dropped, constant extents kept and every other extent a free symbolic
//     extent of the input (shared where the complete fusion shares it). A
//     complete-fusion input keeps its contiguity; an intermediate is contiguous
//     (the runtime allocates it densely in its allocation order).
//   - Tensors produced here and read outside, or complete-fusion outputs,
//     become outputs (keeping required stride orders; aliases only when the
//     aliased input is also an input here).
//   - Scalars (operands and extents of produced tensors) are copied with their
//     scalar arithmetic; leaves that are constants are copied, leaves that are
//     extents of this segment's inputs reuse them, and every other free leaf (a
//     scalar input, the extent of a tensor not read here) becomes a scalar
//     input, after the tensor inputs.
// `map` receives complete-value -> segment-value.
ExtractedSegment extractSegment(const Fusion& complete, const std::vector<Expr*>& exprs,
                                std::unordered_map<const Val*, Val*>* map = nullptr);

}  // namespace fusebox
