// The runtime's cache entry and the pieces of FusionRuntime's implementation
// shared by its files: building an entry (fusion_runtime.cpp), scheduling and
// running segments (segment_execution.cpp), dumps (runtime_dumps.cpp).
#pragma once

#include <fusebox/backend_plan.h>
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
};

// The scheduler that took a segment, with what it chose and made. The scheduler
// is declared first so that the params and plan (made by its plugin) are
// destroyed while its library is still loaded.
struct ScheduledSegment {
  std::shared_ptr<Scheduler> scheduler;
  PluginDescriptor plugin;
  std::unique_ptr<HeuristicParams> params;
  uint64_t params_hash = 0;  // params->hash(), once
  std::unique_ptr<SegmentPlan> plan;
  // Exactly one of these is set once the segment is scheduled.
  const HostPlan* host_plan = nullptr;
  const BackendPlan* backend_plan = nullptr;
  const KernelPlan* kernel_plan = nullptr;
  std::shared_ptr<CompiledKernel> kernel;  // kernel_plan's, once compiled
  // The inputs the plan was made for. A plan may rely on its tensor inputs'
  // sizes, strides and alignment; the runtime checks them before each run.
  std::vector<ArgumentInfo> made_for;
  bool ready() const {
    return host_plan != nullptr || backend_plan != nullptr || kernel != nullptr;
  }
};

// Everything kept for one input signature. Member order matters: the plans
// refer to the segments' fusions, which the segmentation owns, which refers to
// the fusion after passes; destruction runs bottom-up.
struct CacheEntry {
  std::string signature;
  std::unique_ptr<Fusion> fusion;              // after passes
  std::unique_ptr<SegmentedFusion> segmented;  // of `fusion`
  std::vector<SegmenterLogEntry> log;
  std::vector<GroupSteps> steps;  // one per group, in run order
  std::vector<ValueSource> outputs;
  int64_t slot_count = 0;
  std::vector<bool> slot_is_intermediate;
  bool needs_evaluator = false;             // some source is a scalar to evaluate
  std::vector<ScheduledSegment> scheduled;  // one per group once it ran the first time
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
  std::vector<KernelBenchmark>* bench = nullptr;
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

// Compiles the kernel of a scheduled KernelPlan (one segment), adding to
// ctx.report.compile.
void compileKernel(ScheduledSegment& scheduled, ExecutionContext& ctx);

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
