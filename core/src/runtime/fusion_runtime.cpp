// FusionRuntime: the cache per input signature, and what a miss builds (the
// concretized fusion after passes, shared per concretization; its
// segmentation and the execution steps).
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/concretization.h>
#include <fusebox/device_spec.h>
#include <fusebox/ir/printer.h>
#include <fusebox/kernel_launch.h>
#include <fusebox/scheduler_setup.h>

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <unordered_map>

#include "runtime/runtime_internal.h"

namespace fusebox {

using namespace runtime_detail;

struct FusionRuntime::Impl {
  std::unique_ptr<Fusion> fusion;
  std::optional<PassPipeline> pipeline;
  std::vector<SchedulerEntry> schedulers;
  Options options;
  RuntimeOptions runtime;
  std::vector<bool> shape_scalars;
  // One segmenter for every signature: its compile-time caches carry over.
  Segmenter segmenter;
  // Declared before `cache`: its entries use the concretized fusions.
  std::unordered_map<std::string, std::unique_ptr<ConcretizedEntry>> concretized;
  std::unordered_map<std::string, std::unique_ptr<CacheEntry>> cache;
  const CacheEntry* last = nullptr;
  RuntimeCounters counters;
  RunReport report;
  // Every kernel's index-error record (ExecutionContext::index_error_records),
  // as long as its plan keeps it.
  std::vector<std::weak_ptr<IndexErrorRecord>> index_error_records;
  BackendChoice choice;              // resolved: Cuda, Host or Eval
  std::shared_ptr<Backend> backend;  // created at first use
  bool device_queried = false;

  Impl(std::unique_ptr<Fusion> f, std::optional<PassPipeline> p, std::vector<SchedulerEntry> s,
       Options o, RuntimeOptions r)
      : fusion(std::move(f)),
        pipeline(std::move(p)),
        schedulers(s),
        options(std::move(o)),
        runtime(std::move(r)),
        segmenter(std::move(s)) {
    FUSEBOX_CHECK(fusion != nullptr, "FusionRuntime needs a fusion");
    FUSEBOX_USER_CHECK(!schedulers.empty(),
                       "no scheduler is enabled, so no segment could run; list schedulers in "
                       "[schedulers] order (e.g. \"expr_eval\", which accepts everything) and "
                       "check that the plugin paths hold them");
    segmenter.setForwardInputs(options.forwardInputs());
    shape_scalars = shapeScalarInputs(*fusion);
    if (runtime.backend_object) {
      FUSEBOX_USER_CHECK(runtime.backend != BackendChoice::Eval,
                         "RuntimeOptions: a backend object was given with the eval backend");
      choice = runtime.backend_object->kind() == BackendKind::Cuda ? BackendChoice::Cuda
                                                                   : BackendChoice::Host;
      backend = runtime.backend_object;
    } else {
      choice = resolveBackendChoice(runtime.backend);
    }
  }

  Backend& getBackend() {
    if (!backend)
      backend =
          sharedBackend(choice == BackendChoice::Cuda ? BackendKind::Cuda : BackendKind::Host);
    if (!device_queried) {
      planDevice();  // a refusal is raised again by the next call, never skipped
      device_queried = true;
    }
    return *backend;
  }

  // The properties the schedulers plan for: the GPU's on cuda, [runtime]
  // device's (or the caller's) on the host; printed with device_properties.
  void planDevice() {
    const std::string& spec = options.device();
    if (choice == BackendChoice::Cuda) {
      if (!spec.empty())
        throw UserError(fmt::format(
            "[runtime] device \"{}\" plans kernels for a GPU on the host backend; the cuda "
            "backend plans for its own GPU (leave device empty, or run with --backend host)",
            displayText(spec)));
      runtime.device = queryDeviceProperties(*backend);
    } else if (!spec.empty()) {
      runtime.device = parseDeviceSpec(spec, {"[runtime] device", 0, 0});
    }
    if (!options.dumpDeviceProperties()) return;
    std::ostream& out = streams().dump;
    const DeviceProperties& d = runtime.device;
    out << "=== device properties ===\n"
        << fmt::format("  name: {}\n  backend: {}\n", d.name,
                       choice == BackendChoice::Cuda ? "cuda" : "host");
    if (d.compute_major == 0) {
      out << fmt::format(
          "  planned for: the host's own properties ({} multiprocessor, {} B of shared memory a "
          "block); set [runtime] device to plan for a GPU\n",
          d.multiprocessor_count, d.shared_memory_per_block);
      return;
    }
    out << fmt::format("  [runtime] device: \"{}\"\n", deviceSpecText(d));
  }

  std::vector<Argument> run(const std::vector<Argument>& inputs, int bench_iterations,
                            std::vector<KernelBenchmark>* bench,
                            L2State bench_l2 = L2State::Flushed,
                            FusionRuntime::PlanSummary* plan_only = nullptr);

  RuntimeStreams streams() const {
    return {runtime.dump ? *runtime.dump : std::cout,
            runtime.diagnostics ? *runtime.diagnostics : std::cerr};
  }

  std::unique_ptr<CacheEntry> build(const std::vector<Argument>& inputs, std::string signature);

  // Raises an error a kernel of an earlier call recorded, once; `wait`: of
  // any call, after waiting for the queued kernels. Without waiting this
  // reads host memory only (IndexErrorRecord::raised).
  void checkDeferred(bool wait) {
    // Records of plans made again, or of an entry whose first call failed, are gone.
    std::erase_if(index_error_records, [](const auto& r) { return r.expired(); });
    if (index_error_records.empty()) return;
    if (wait) getBackend().synchronize();
    for (const std::weak_ptr<IndexErrorRecord>& weak : index_error_records) {
      const std::shared_ptr<IndexErrorRecord> record = weak.lock();
      if (record == nullptr || !record->raised()) continue;
      if (std::string message = record->take(); !message.empty())
        throw UserError(
            fmt::format("an earlier call of this fusion: {} after the call "
                        "returned; that call's outputs hold element 0 where the "
                        "index was out of range (as do those of any later call "
                        "that met one before this was raised)",
                        message));
    }
  }
};

std::unique_ptr<CacheEntry> FusionRuntime::Impl::build(const std::vector<Argument>& inputs,
                                                       std::string signature) {
  RuntimeStreams out = streams();
  EvaluatorOptions eval_options;
  eval_options.input_names = runtime.input_names;
  validateInputs(*fusion, inputs, eval_options);

  auto entry = std::make_unique<CacheEntry>();
  entry->signature = std::move(signature);
  auto start = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  const Concretization facts = analyzeConcretization(
      *fusion, inputs, ConcretizationOptions{options.concretizeResizeExtents()});
  std::unique_ptr<ConcretizedEntry>& level1 = concretized[facts.key()];
  report.concretization = facts.key();
  report.concretization_reused = level1 != nullptr;
  if (!level1) {
    auto made = std::make_unique<ConcretizedEntry>();
    made->key = facts.key();
    made->id = static_cast<int64_t>(concretized.size());
    made->fusion = concretizeFusion(*fusion, facts);
    ++counters.concretizations;
    if (options.dumpConcretizedFusion())
      out.dump << fmt::format("=== concretized fusion #{} (inputs {}) ===\nkey: {}\n", made->id,
                              entry->signature, made->key.empty() ? "(none)" : made->key)
               << printConcretizedFusion(*made->fusion, facts) << "\n";
    report.compile.concretize_ms = since(start);
    start = std::chrono::steady_clock::now();
    if (pipeline) {
      pipeline->run(made->fusion, options, out.dump, &out.diagnostics);
      ++counters.pass_pipeline_runs;
    }
    report.compile.passes_ms = since(start);
    FUSEBOX_CHECK(made->fusion->inputs().size() == fusion->inputs().size() &&
                      made->fusion->outputs().size() == fusion->outputs().size(),
                  "the pass pipeline changed the number of fusion inputs or outputs");
    if (options.dumpFusionIr()) dumpFusionIr(*made->fusion, entry->signature, options, out.dump);
    level1 = std::move(made);
  } else {
    report.compile.concretize_ms = since(start);
  }
  entry->concretized = level1.get();
  report.concretization_id = level1->id;
  const ShapesPolicy shapes = options.shapes();
  entry->shape_mode =
      shapes == ShapesPolicy::Symbolic || (shapes == ShapesPolicy::Auto && level1->signatures > 0)
          ? ShapeMode::Symbolic
          : ShapeMode::Static;
  report.symbolic_shapes = entry->shape_mode == ShapeMode::Symbolic;
  entry->fusion = level1->fusion.get();

  std::vector<ArgumentInfo> infos;
  for (const auto& a : inputs) infos.push_back(argumentInfo(a));
  start = std::chrono::steady_clock::now();
  FusionRuntimeFacts runtime_facts(*entry->fusion, std::move(infos), runtime.device,
                                   entry->shape_mode);
  entry->segmented = segmenter.segment(*entry->fusion, runtime_facts, &entry->log);
  ++counters.segmentations;
  planExecution(*entry);
  report.compile.segmentation_ms = since(start);
  dumpSegmentation(*entry, options, out);
  return entry;
}

FusionRuntime::FusionRuntime(std::unique_ptr<Fusion> fusion, const Config& config,
                             const PluginRegistry& registry, Options options,
                             RuntimeOptions runtime,
                             const std::vector<NamedSetting>& disabled_passes,
                             const std::vector<NamedSetting>& disabled_schedulers) {
  PassPipeline pipeline = PassPipeline::build(config, registry, disabled_passes);
  SchedulerSetup setup = buildSchedulers(config, registry, disabled_schedulers);
  std::ostream& diagnostics = runtime.diagnostics ? *runtime.diagnostics : std::cerr;
  for (const auto& message : setup.diagnostics) diagnostics << "warning: " << message << "\n";
  impl_ = std::make_unique<Impl>(std::move(fusion), std::move(pipeline), std::move(setup.entries),
                                 std::move(options), std::move(runtime));
}

FusionRuntime::FusionRuntime(std::unique_ptr<Fusion> fusion, std::optional<PassPipeline> pipeline,
                             std::vector<SchedulerEntry> schedulers, Options options,
                             RuntimeOptions runtime)
    : impl_(std::make_unique<Impl>(std::move(fusion), std::move(pipeline), std::move(schedulers),
                                   std::move(options), std::move(runtime))) {}

FusionRuntime::~FusionRuntime() = default;

std::vector<Argument> FusionRuntime::Impl::run(const std::vector<Argument>& inputs,
                                               int bench_iterations,
                                               std::vector<KernelBenchmark>* bench,
                                               L2State bench_l2,
                                               FusionRuntime::PlanSummary* plan_only) {
  const auto start = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  Backend& on = getBackend();
  // A timed run checks its own launches at once (benchmarkKernels), so an
  // earlier call's pending error is raised first, not taken as its own.
  if (runtime.defer_index_errors) checkDeferred(/*wait=*/bench != nullptr);
  report = RunReport();
  ++counters.runs;

  // Host tensors move to the GPU on cuda; device tensors are used in place.
  std::vector<Argument> staged;
  const bool cuda = choice == BackendChoice::Cuda;
  if (cuda) {
    staged.reserve(inputs.size());
    for (const Argument& a : inputs) {
      const auto* t = std::get_if<Tensor>(&a);
      staged.push_back(t != nullptr && t->defined() && t->device() == Device::Host
                           ? Argument(on.toBackend(*t))
                           : a);
    }
  }
  const std::vector<Argument>& backend_inputs = cuda ? staged : inputs;
  // Keyed by what the kernels read: a host tensor and a GPU tensor of the
  // same layout and alignment make the same plans, so they share an entry
  // (keyed by the caller's tensors, GPU inputs after a first call with host
  // ones were a second signature, which compiles over symbolic sizes).
  report.signature = inputSignature(backend_inputs, shape_scalars);

  auto found = cache.find(report.signature);
  std::unique_ptr<CacheEntry> fresh;
  CacheEntry* entry = nullptr;
  ExecutionContext ctx{segmenter,
                       runtime.device,
                       options,
                       streams(),
                       counters,
                       report,
                       runtime.input_names,
                       on,
                       choice != BackendChoice::Eval,
                       runtime.outputs_on_host};
  ctx.bench_iterations = bench_iterations;
  ctx.bench_l2 = bench_l2;
  ctx.bench = bench;
  ctx.index_error_records = &index_error_records;
  ctx.defer_index_errors = runtime.defer_index_errors && bench == nullptr;
  ctx.plan_only = plan_only != nullptr;
  if (plan_only != nullptr) {
    // A fresh entry, scheduled ahead and dropped: nothing compiles or runs.
    ++counters.cache_misses;
    std::unique_ptr<CacheEntry> planned = build(backend_inputs, report.signature);
    scheduleAhead(*planned, backend_inputs, ctx);
    for (const ScheduledSegment& s : planned->scheduled) {
      plan_only->schedulers.push_back(s.plan != nullptr ? s.plugin.name : std::string());
      if (s.kernel_plan != nullptr) ++plan_only->kernels;
    }
    report.milliseconds = since(start);
    return {};
  }
  if (found != cache.end()) {
    report.cache_hit = true;
    ++counters.cache_hits;
    entry = found->second.get();
  } else {
    ++counters.cache_misses;
    fresh = build(backend_inputs, report.signature);
    entry = fresh.get();
    report.setup_milliseconds = since(start);
    scheduleAhead(*entry, backend_inputs, ctx);
  }

  std::vector<Argument> outputs = executeEntry(*entry, backend_inputs, inputs, ctx);
  // Kept only once it ran through: a failed first run starts over next time.
  if (fresh) {
    ++entry->concretized->signatures;
    if (options.dumpRuntimeCache())
      dumpCacheDecisions(*entry, report.concretization_reused, streams().dump);
    cache.emplace(report.signature, std::move(fresh));
  }
  last = entry;
  report.milliseconds = since(start);
  return outputs;
}

std::vector<Argument> FusionRuntime::run(const std::vector<Argument>& inputs) {
  return impl_->run(inputs, 0, nullptr);
}

FusionRuntime::PlanSummary FusionRuntime::plan(const std::vector<Argument>& inputs) {
  PlanSummary summary;
  impl_->run(inputs, 0, nullptr, L2State::Flushed, &summary);
  return summary;
}

std::vector<KernelBenchmark> FusionRuntime::benchmarkKernels(const std::vector<Argument>& inputs,
                                                             int iterations, L2State l2) {
  FUSEBOX_USER_CHECK(iterations >= 1, "benchmarkKernels: {} iterations; expected at least 1",
                     iterations);
  std::vector<KernelBenchmark> bench;
  impl_->run(inputs, iterations, &bench, l2);
  return bench;
}

void FusionRuntime::checkDeferredIndexErrors(bool wait) {
  impl_->checkDeferred(wait);
}

void FusionRuntime::setOutputsOnHost(bool on) {
  impl_->runtime.outputs_on_host = on;
}

void FusionRuntime::setDeferIndexErrors(bool on) {
  const bool was = impl_->runtime.defer_index_errors;
  impl_->runtime.defer_index_errors = on;  // off even when a pending error is raised below
  if (was && !on) impl_->checkDeferred(true);
}

BackendChoice FusionRuntime::backendChoice() const {
  return impl_->choice;
}

Backend* FusionRuntime::backend() {
  return &impl_->getBackend();
}

std::string FusionRuntime::describeBackend() {
  if (impl_->choice == BackendChoice::Eval)
    return "eval (reference evaluator on the host; no kernels)";
  return impl_->getBackend().describe();
}

const Fusion& FusionRuntime::fusion() const {
  return *impl_->fusion;
}
const std::vector<SchedulerEntry>& FusionRuntime::schedulers() const {
  return impl_->schedulers;
}
const RuntimeCounters& FusionRuntime::counters() const {
  return impl_->counters;
}
const RunReport& FusionRuntime::lastRun() const {
  return impl_->report;
}
const Fusion& FusionRuntime::lastFusion() const {
  FUSEBOX_CHECK(impl_->last != nullptr, "lastFusion() before a successful run");
  return *impl_->last->fusion;
}
const SegmentedFusion& FusionRuntime::lastSegmentation() const {
  FUSEBOX_CHECK(impl_->last != nullptr, "lastSegmentation() before a successful run");
  return *impl_->last->segmented;
}
std::vector<KernelSource> FusionRuntime::lastKernels() const {
  FUSEBOX_CHECK(impl_->last != nullptr, "lastKernels() before a successful run");
  std::vector<KernelSource> kernels;
  for (const ScheduledSegment& s : impl_->last->scheduled)
    if (s.kernel_plan != nullptr) kernels.push_back(s.kernel_plan->kernel);
  return kernels;
}
size_t FusionRuntime::cacheSize() const {
  return impl_->cache.size();
}
size_t FusionRuntime::concretizationCount() const {
  return impl_->concretized.size();
}

}  // namespace fusebox
