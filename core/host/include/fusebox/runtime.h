// The runtime: runs a fusion end to end (concretization, pass pipeline,
// segmenter, one scheduler per segment) and caches what it can, so a second
// call with the same signature goes straight to running the segments' plans.
// nvFuser users know it as FusionExecutorCache. docs/runtime.md.
//
// Three levels: an input signature (below) maps to its segments' plans; a
// new signature is concretized (concretization.h) and signatures whose
// concretization facts agree share the concretized fusion after passes;
// within one, a segment whose scheduler makes the same decisions (params
// sameAs) with the same kernel source reuses the compiled kernel, which with
// [runtime] shapes = "symbolic" happens across sizes.
//
//   FusionRuntime runtime(std::move(fusion), config, registry, options);
//   std::vector<Argument> outputs = runtime.run(inputs);   // miss: passes, segmentation...
//   outputs = runtime.run(inputs);                         // hit: plans only
//
// The cache key (inputSignature) of a call is, per fusion input as the
// kernels read it (on cuda, after host tensors are copied to the GPU):
//   - a tensor: dtype, sizes, strides, and the alignment of its data address
//     (the largest power of two dividing it, recorded up to 16 bytes: the
//     widest vector access; beyond that it would split the cache for
//     nothing);
//   - a scalar: its kind (bool, int, double), and its value only when the value
//     feeds a shape: the scalar reaches (directly or through scalar arithmetic)
//     an extent of some tensor, or a shape operand of reshape, expand, full,
//     iota (length), slice, pad (widths) or rand. Other scalar values (a
//     multiplier, a fill value, a seed) change per call without a miss, so a
//     scheduler must never bake such a value into a plan.
#pragma once

#include <fusebox/backend/backend_choice.h>
#include <fusebox/backend/kernel.h>
#include <fusebox/config.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/options.h>
#include <fusebox/pass_pipeline.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/scheduler.h>
#include <fusebox/segmenter.h>

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

// Alignment is recorded up to this many bytes (see above).
inline constexpr int64_t kMaxRecordedAlignment = 16;
// The largest power of two dividing `address`, at most kMaxRecordedAlignment.
int64_t recordedAlignment(const void* address);
// What schedulers see of one argument: sizes, strides and recorded alignment of
// a tensor, or a scalar's value.
ArgumentInfo argumentInfo(const Argument& argument);

// For each fusion input: true when it is a scalar whose value feeds a shape.
std::vector<bool> shapeScalarInputs(const Fusion& fusion);

// The cache key of one call, as canonical text, readable in dumps:
//   "float[2, 3]{3, 1}@16; int=4; double"
// (a tensor: dtype, sizes, strides, recorded alignment; a scalar: its kind,
// and "=value" when it feeds a shape).
std::string inputSignature(const std::vector<Argument>& inputs,
                           const std::vector<bool>& shape_scalars);

// Running totals, for tests and for seeing the cache at work.
struct RuntimeCounters {
  int64_t runs = 0;
  int64_t cache_hits = 0;
  int64_t cache_misses = 0;
  int64_t pass_pipeline_runs = 0;
  int64_t segmentations = 0;
  // Segments scheduled with the proposal the segmenter kept (made for the
  // same inputs), and with a proposal asked for again (other inputs: an
  // earlier segment's output turned out otherwise, or a fallback).
  int64_t proposals_reused = 0;
  int64_t proposals_made = 0;
  int64_t plans_made = 0;           // Proposal::makePlan calls (code generation)
  int64_t fallbacks = 0;            // segments handed to a later scheduler
  int64_t segments_run = 0;         // plans run
  int64_t intermediates_freed = 0;  // segment outputs dropped after their last use
  int64_t layout_copies = 0;        // outputs copied into their required stride order
  int64_t in_place_writes = 0;      // aliased outputs a kernel wrote over their input
  int64_t alias_copies = 0;         // aliased outputs copied into their input after the call
  int64_t concretizations = 0;      // new concretizations (first level misses)
  int64_t kernels_compiled = 0;     // kernels compiled for a concretization
  int64_t kernels_reused = 0;       // a concretization's kernel reused by a new signature
  // Same scheduler and params sameAs, but another source: the params miss a
  // decision that changed the code (compiled anew; a scheduler to fix).
  int64_t same_params_other_source = 0;
};

// One segment of the last run.
struct SegmentRunRecord {
  int64_t group = 0;
  std::string scheduler;  // the scheduler whose plan ran it
  double milliseconds = 0;
  std::string kernel;  // the kernel's name when a KernelPlan ran it, else empty
  // The scheduler's HeuristicParams::hash(): two runs (or two configs) whose
  // segments have the same scheduler and hash made the same decision.
  uint64_t params_hash = 0;
};

// Where the time of a miss went (--time-compile); all 0 on a hit.
struct CompileReport {
  double concretize_ms = 0;  // analysis and, for a new concretization, the copy
  double passes_ms = 0;
  double segmentation_ms = 0;
  double heuristics_ms = 0;    // params and plans (code generation) of every segment
  double compile_ms = 0;       // NVRTC or the host compiler, summed over kernels
  double load_ms = 0;          // module / library loads, summed over kernels
  double compile_wall_ms = 0;  // the parallel compile step, start to end
  int64_t kernels = 0;
  int64_t kernels_from_cache = 0;  // found in the kernel cache (memory or disk)
};

// One kernel's time over repeated launches (FusionRuntime::benchmarkKernels).
struct KernelBenchmark {
  int64_t group = 0;
  std::string kernel;
  double median_ms = 0;
  int64_t bytes_moved = 0;  // KernelPlan::bytes_moved
  double gigabytesPerSecond() const {
    return median_ms > 0 ? static_cast<double>(bytes_moved) / (median_ms * 1e6) : 0;
  }
};

struct RunReport {
  bool cache_hit = false;
  std::string signature;
  // On a miss: the concretization's key and whether an earlier signature had made it.
  std::string concretization;
  int64_t concretization_id = 0;  // 1, 2, ... in the order the runtime made them
  bool concretization_reused = false;
  bool symbolic_shapes = false;  // on a miss: its kernels read sizes from parameters
  int64_t kernels_reused = 0;    // on a miss: kernels a new signature found compiled
  int64_t kernels_new = 0;       // on a miss: kernels compiled (or loaded from the kernel cache)
  std::vector<SegmentRunRecord> segments;
  double setup_milliseconds = 0;  // passes and segmentation (0 on a hit)
  double milliseconds = 0;        // the whole call
  CompileReport compile;
};

struct RuntimeOptions {
  // Names of the fusion inputs for messages (e.g. the script's variables).
  std::vector<std::string> input_names;
  // The machine schedulers see: replaced by queryDeviceProperties on cuda.
  DeviceProperties device;
  // Where plans run (docs/runtime.md): KernelPlans on cuda or host; eval
  // refuses KernelPlans, so segments fall to host plans (expr_eval).
  BackendChoice backend = BackendChoice::Default;
  // A backend object to use instead of the process's shared one (tests); its
  // kind decides cuda or host, `backend` must not be Eval then.
  std::shared_ptr<Backend> backend_object;
  // On cuda, outputs are copied to the host (true) or returned as device
  // tensors (false). Host inputs are copied to the device either way; device
  // inputs are used in place.
  bool outputs_on_host = true;
  // Kernels with indirect loads record an index out of range instead of
  // reading past their tensor. false: the runtime reads that record right
  // after each such launch (one wait for the kernel) and fails the call.
  // true: the call does not wait; the kernel also writes the record into
  // host memory (IndexErrorRecord), which a later run() reads without
  // waiting and raises once the kernel has written it, as does
  // checkDeferredIndexErrors (the Python module's mode, as torch's
  // asynchronous device asserts).
  bool defer_index_errors = false;
  // Where dumps go (default std::cout) and warnings (default std::cerr).
  std::ostream* dump = nullptr;
  std::ostream* diagnostics = nullptr;
};

class FusionRuntime {
 public:
  // The pipeline and schedulers `config` describes with the plugins `registry`
  // found (PassPipeline::build, buildSchedulers; their UserErrors pass through).
  // `disabled_passes` / `disabled_schedulers` add names (command-line flags).
  FusionRuntime(std::unique_ptr<Fusion> fusion, const Config& config,
                const PluginRegistry& registry, Options options, RuntimeOptions runtime = {},
                const std::vector<NamedSetting>& disabled_passes = {},
                const std::vector<NamedSetting>& disabled_schedulers = {});
  // Ready-made parts. `pipeline` nullopt: no passes. Throws UserError when
  // `schedulers` is empty.
  FusionRuntime(std::unique_ptr<Fusion> fusion, std::optional<PassPipeline> pipeline,
                std::vector<SchedulerEntry> schedulers, Options options,
                RuntimeOptions runtime = {});
  ~FusionRuntime();
  FusionRuntime(const FusionRuntime&) = delete;
  FusionRuntime& operator=(const FusionRuntime&) = delete;

  // Runs the fusion. A new signature validates the inputs (validateInputs),
  // runs the passes on a copy of the fusion, segments it, writes the dumps the
  // options ask for, and schedules each segment as it first runs; all of it is
  // kept for the next call with that signature. Segments run in dependency
  // order; a segment output is dropped after its last reader ran. Outputs with
  // a required stride order are returned in it (copied when a plan produced
  // another layout); an output aliased to an input is written into it. Other
  // outputs may share storage with inputs (views made by no_op).
  std::vector<Argument> run(const std::vector<Argument>& inputs);

  // What plan() made: the segments, and for each its scheduler, or none
  // when the segment is scheduled only as it runs (its inputs come from a
  // segment that runs on the host, so their layout is not known ahead).
  struct PlanSummary {
    std::vector<std::string> schedulers;  // per segment; "" when not planned ahead
    int kernels = 0;                      // segments planned as a generated kernel
  };
  // Everything run() does on a first call up to running (passes,
  // segmentation, heuristics, code generation and the dumps the options ask
  // for), without compiling or running a kernel or keeping the result:
  // what a GPU's plans look like, from a machine without one, with
  // [runtime] device on the host backend (docs/cli.md, --plan-only).
  PlanSummary plan(const std::vector<Argument>& inputs);

  // Runs the fusion like run() and then times each segment a KernelPlan ran:
  // `iterations` launches with the same parameters after one warm-up, median
  // (CUDA events on cuda, each launch after an L2 flush unless `l2` is Warm;
  // steady_clock on host). Aliased outputs are not written in place here:
  // each relaunch would update the input again.
  std::vector<KernelBenchmark> benchmarkKernels(const std::vector<Argument>& inputs, int iterations,
                                                L2State l2 = L2State::Flushed);

  // With defer_index_errors: raises the index error of an earlier call whose
  // kernel has finished (with `wait`, of every earlier call, waiting for
  // them), as a UserError naming the kernel, the op and the index; the
  // outputs of that call hold element 0 where the index was out of range.
  // Each error is raised once. run() calls it first, without waiting
  // (benchmarkKernels with waiting: it checks its own launches at once).
  void checkDeferredIndexErrors(bool wait);

  // RuntimeOptions::outputs_on_host from now on (benchmarks keep outputs on
  // the device, so a timed run() copies nothing).
  void setOutputsOnHost(bool on);
  // RuntimeOptions::defer_index_errors for later calls; turning it off first
  // waits for the deferred checks and raises any error they hold.
  void setDeferIndexErrors(bool on);
  // "cuda", "host" or "eval": where this runtime's plans run.
  BackendChoice backendChoice() const;
  // The backend object (the host backend for eval: host plans that run on a
  // backend get it); created at first use.
  Backend* backend();
  std::string describeBackend();

  const Fusion& fusion() const;  // as given
  const std::vector<SchedulerEntry>& schedulers() const;
  const RuntimeCounters& counters() const;
  const RunReport& lastRun() const;
  // The cache entry of the last successful run: the fusion after passes, its
  // segmentation, and each group's scheduler. Throw InternalError before a run.
  const Fusion& lastFusion() const;
  const SegmentedFusion& lastSegmentation() const;
  // The generated kernels of the last successful run, in run order
  // (segments another kind of plan ran are left out).
  std::vector<KernelSource> lastKernels() const;
  size_t cacheSize() const;            // input signatures
  size_t concretizationCount() const;  // first-level entries

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fusebox
