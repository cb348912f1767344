// The runtime's cache entry and the pieces of FusionRuntime's implementation
// shared by its files: building an entry (fusion_runtime.cpp), scheduling and
// running segments (segment_execution.cpp), dumps (runtime_dumps.cpp).
#pragma once

#include <fusebox/backend_plan.h>
#include <fusebox/kernel_launch.h>
#include <fusebox/kernel_plan.h>
#include <fusebox/runtime.h>

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::runtime_detail {

// Where a segment input or a complete-fusion output comes from: a slot of the
// value table (fusion inputs and segment outputs), or a scalar evaluated from
// the complete fusion's inputs (an extent, scalar arithmetic).
struct ValueSource {
  int64_t slot = -1;
  const Val* scalar = nullptr;
};

struct GroupSteps {
  std::vector<ValueSource> inputs;    // one per segment input
  std::vector<int64_t> output_slots;  // one per segment output
  std::vector<int64_t> release;       // slots dropped after the group ran
  // Outputs that may be written over the fusion input they alias: that input
  // is read by this group alone and is not itself a fusion output
  // (planExecution). Passed to the scheduler (RuntimeInfo::requestInPlace).
  std::vector<InPlaceRequest> in_place;
};

// The scheduler that took a segment, with what it chose and made. The scheduler
// is declared first so that the params and plan (made by its plugin) are
// destroyed while its library is still loaded.
struct ScheduledSegment {
  std::shared_ptr<Scheduler> scheduler;
  PluginDescriptor plugin;
  std::shared_ptr<const HeuristicParams> params;  // shared with a KernelVariant
  uint64_t params_hash = 0;                       // params->hash(), once
  std::unique_ptr<SegmentPlan> plan;
  // Exactly one of these is set once the segment is scheduled.
  const HostPlan* host_plan = nullptr;
  const BackendPlan* backend_plan = nullptr;
  const KernelPlan* kernel_plan = nullptr;
  std::shared_ptr<CompiledKernel> kernel;  // kernel_plan's, once compiled
  // What kernel_plan's launches share (kept scratch, the index-error record),
  // made at its first launch.
  SharedScratch shared_scratch;
  // How `kernel` was obtained: reused from the concretization's kernels
  // (same heuristics, same source), or compiled for this signature.
  enum class KernelOrigin { None, Reused, Compiled } kernel_origin = KernelOrigin::None;
  // The inputs the plan was made for. A plan may rely on its tensor inputs'
  // sizes, strides and alignment; the runtime checks them before each run.
  std::vector<ArgumentInfo> made_for;
  bool ready() const {
    return host_plan != nullptr || backend_plan != nullptr || kernel != nullptr;
  }
};

// A compiled kernel of a concretization with the heuristics it was built
// for: the second cache level. A new signature's segment reuses it when its
// scheduler's params are sameAs these and the plan's source is the same (a
// scheduler whose params miss a decision that changed the code compiles
// anew rather than running a wrong kernel).
struct KernelVariant {
  std::shared_ptr<Scheduler> scheduler;  // first: keeps its plugin loaded for params
  std::string scheduler_name;
  std::shared_ptr<const HeuristicParams> params;
  uint64_t params_hash = 0;
  KernelSource source;
  std::shared_ptr<CompiledKernel> kernel;
  int64_t uses = 0;  // signatures that ran it
};

// The first cache level: the fusion concretized for a set of facts and the
// passes run on it, shared by every signature with those facts, and the
// kernels compiled for them.
struct ConcretizedEntry {
  std::string key;
  int64_t id = 0;                  // 1, 2, ... in order of creation (dumps)
  std::unique_ptr<Fusion> fusion;  // concretized, after passes
  std::vector<KernelVariant> kernels;
  int64_t signatures = 0;
};

// Everything kept for one input signature. Member order matters: the plans
// refer to the segments' fusions, which the segmentation owns, which refers to
// the fusion after passes (owned by the concretization, which outlives it);
// destruction runs bottom-up.
struct CacheEntry {
  std::string signature;
  ConcretizedEntry* concretized = nullptr;
  const Fusion* fusion = nullptr;              // concretized->fusion
  std::unique_ptr<SegmentedFusion> segmented;  // of `fusion`
  std::vector<SegmenterLogEntry> log;
  std::vector<GroupSteps> steps;  // one per group, in run order
  std::vector<ValueSource> outputs;
  int64_t slot_count = 0;
  std::vector<bool> slot_is_intermediate;
  bool needs_evaluator = false;              // some source is a scalar to evaluate
  ShapeMode shape_mode = ShapeMode::Static;  // of its kernels ([runtime] shapes)
  std::vector<ScheduledSegment> scheduled;   // one per group once it ran the first time
};

// Fills steps, outputs and slots from the segmentation.
void planExecution(CacheEntry& entry);

struct RuntimeStreams {
  std::ostream& dump;
  std::ostream& diagnostics;
};

// What scheduling and running a cache entry needs from the runtime.
struct ExecutionContext {
  Segmenter& segmenter;
  const DeviceProperties& device;
  const Options& options;
  RuntimeStreams streams;
  RuntimeCounters& counters;
  RunReport& report;
  const std::vector<std::string>& input_names;
  Backend& backend;      // the host backend for eval
  bool kernels_allowed;  // false for eval: KernelPlans are refused
  bool outputs_on_host;
  // benchmarkKernels: time each kernel segment over this many launches.
  int bench_iterations = 0;
  L2State bench_l2 = L2State::Flushed;  // cuda: flush the L2 before each timed launch
  std::vector<KernelBenchmark>* bench = nullptr;
  // The index-error records of the runtime's kernels: a kernel's record is
  // added when it is first launched (FusionRuntime::Impl::checkDeferred reads them).
  std::vector<std::weak_ptr<IndexErrorRecord>>* index_error_records = nullptr;
  // defer_index_errors (and not timing kernels alone): a launch does not wait
  // to check its record.
  bool defer_index_errors = false;
  // FusionRuntime::plan: schedule ahead, compile nothing.
  bool plan_only = false;
};

// Picks a scheduler for group `g` of `entry` and has it make params and a plan,
// given what is known of the segment's inputs: the one the segmenter chose,
// then, if that one fails, each later scheduler that accepts the segment.
// Failures and refusals are logged in entry.log and reported on
// `streams.diagnostics`; the scheduler_params dump goes to `streams.dump`.
// The kernel of a KernelPlan is not compiled here.
ScheduledSegment scheduleGroup(CacheEntry& entry, size_t g, std::vector<ArgumentInfo> inputs,
                               ExecutionContext& ctx);

// On a miss, before anything runs: schedules every group whose inputs are known
// without running anything (fusion inputs, scalars, outputs of kernel groups,
// whose layout the plan fixes) and compiles their kernels in parallel
// (compileAll). Groups downstream of a host plan are scheduled when they run.
void scheduleAhead(CacheEntry& entry, const std::vector<Argument>& inputs, ExecutionContext& ctx);

// Whether tensor inputs described by `actual` can run a plan made for
// `made_for`: same dtypes, sizes and strides, alignment at least as large.
// Scalars are not compared (those that feed shapes are in the cache key).
bool fitsPlan(const std::vector<ArgumentInfo>& made_for, const std::vector<ArgumentInfo>& actual);
// The same against a call's arguments (what argumentInfo would make of them).
bool argumentsFitPlan(const std::vector<ArgumentInfo>& made_for,
                      const std::vector<Argument>& actual);

// Gives a scheduled KernelPlan (one segment of `entry`) its kernel: one of the
// concretization's kernels when its heuristics and source match, else
// compiled (adding to ctx.report.compile) and kept for later signatures.
void compileKernel(CacheEntry& entry, ScheduledSegment& scheduled, ExecutionContext& ctx);

// The runtime_cache dump for the signature `entry` was just built for.
void dumpCacheDecisions(const CacheEntry& entry, bool concretization_reused, std::ostream& out);

// Runs every group of `entry` on `inputs` (backend tensors; scheduling those
// that have not run yet) and returns the complete fusion's outputs;
// `caller_inputs` are the inputs as the caller gave them (aliased outputs are
// written into them).
std::vector<Argument> executeEntry(CacheEntry& entry, const std::vector<Argument>& inputs,
                                   const std::vector<Argument>& caller_inputs,
                                   ExecutionContext& ctx);

// A scalar-extent evaluator bound to the complete fusion's inputs.
std::optional<ExpressionEvaluator> bindFusionInputs(const CacheEntry& entry,
                                                    const std::vector<Argument>& inputs,
                                                    const std::vector<std::string>& names);

// The dumps written when a signature is first seen, after segmentation.
void dumpSegmentation(const CacheEntry& entry, const Options& options, RuntimeStreams streams);
void dumpFusionIr(const Fusion& fusion, const std::string& signature, const Options& options,
                  std::ostream& out);

// True when `t` is laid out densely in `stride_order` (dims of size 1 ignored).
bool hasStrideOrder(const Tensor& t, const std::vector<int64_t>& stride_order);

}  // namespace fusebox::runtime_detail
