// Host overhead of the runtime: a cache-hit FusionRuntime::run() of a
// one-kernel pointwise fusion against the bare launch of the same compiled
// kernel (CompiledKernel::launch with a prefilled KernelParams), on the host
// backend and, where a GPU is usable, on cuda (device inputs and outputs, so
// no copies). The target (issue 5): run() costs at most 5 microseconds more
// than the bare launch. docs/perf.md has the figures.
//
// BM_NewSize*: the cold start of a new input size whose kernel is already
// compiled (issue 13: under 1 ms of host time): every iteration runs a size
// the runtime has not seen, so it concretizes (a first-level hit), segments,
// computes heuristics and generates the plan, and with shapes = "symbolic"
// reuses the compiled kernel. Pointwise (exp(x) * 2 + x) and a row sum.
//
//   build/release/benchmarks/fusebox_runtime_overhead_benchmark
#include <fusebox/backend/backend_choice.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/config.h>
#include <fusebox/ir/ops.h>
#include <fusebox/kernel_launch.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/runtime.h>
#include <fusebox/scheduler_setup.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>

namespace {

using namespace fusebox;

// exp(x) * 2 + x on a float[1, 128]: one small kernel, so launch costs dominate.
std::unique_ptr<Fusion> oneKernelFusion() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(add(mul(exp(x), f->constantDouble(2.0)), x));
  return f;
}

Tensor input(Backend& backend) {
  Tensor t = Tensor::empty(DataType::Float, {1, 128});
  for (int64_t j = 0; j < 128; ++j) t.setDouble({0, j}, 0.01 * static_cast<double>(j));
  return backend.kind() == BackendKind::Cuda ? backend.toBackend(t) : t;
}

struct Setup {
  Config config = loadConfig();
  PluginRegistry registry;
  Setup() { registry.discover(config.plugin_paths); }
};
Setup& setup() {
  static Setup s;
  return s;
}

bool usable(BackendKind kind, benchmark::State& state) {
  if (kind == BackendKind::Cuda && !cudaAvailable().available) {
    state.SkipWithError("no usable GPU");
    return false;
  }
  return true;
}

BackendChoice choiceOf(BackendKind kind) {
  return kind == BackendKind::Cuda ? BackendChoice::Cuda : BackendChoice::Host;
}

void runCacheHit(benchmark::State& state, BackendKind kind) {
  if (!usable(kind, state)) return;
  RuntimeOptions o;
  o.backend = choiceOf(kind);
  o.outputs_on_host = false;
  FusionRuntime runtime(oneKernelFusion(), setup().config, setup().registry, Options(), o);
  Backend& backend = *runtime.backend();
  std::vector<Argument> inputs = {input(backend)};
  runtime.run(inputs);  // the miss: passes, segmentation, codegen, compile
  for (auto _ : state) benchmark::DoNotOptimize(runtime.run(inputs));
  backend.synchronize();
  if (runtime.lastRun().segments.size() != 1 || runtime.lastRun().segments[0].kernel.empty())
    state.SkipWithError("the fusion did not run as one kernel");
}

// The same kernel, scheduled by the pointwise plugin directly and compiled by
// the same backend (a kernel cache hit), launched with prefilled params.
void bareLaunch(benchmark::State& state, BackendKind kind) {
  if (!usable(kind, state)) return;
  std::shared_ptr<Backend> backend = sharedBackend(kind);
  std::unique_ptr<Fusion> fusion = oneKernelFusion();
  std::vector<Argument> inputs = {input(*backend)};
  auto scheduler = createScheduler(setup().registry, "pointwise");
  DeviceProperties device = queryDeviceProperties(*backend);
  RuntimeInfo info(*fusion, {argumentInfo(inputs[0])}, device);
  CompileTimeCache cache;
  Answer answer = scheduler->propose(*fusion, info, cache);
  if (!answer.proposed()) {
    state.SkipWithError(("pointwise refused: " + answer.refusal().describe()).c_str());
    return;
  }
  auto plan = answer.takeProposal()->makePlan();
  const auto* kernel_plan = dynamic_cast<const KernelPlan*>(plan.get());
  if (kernel_plan == nullptr) {
    state.SkipWithError("pointwise did not make a KernelPlan");
    return;
  }
  auto kernel = backend->compile(kernel_plan->kernel);
  std::vector<Tensor> outputs = allocateKernelOutputs(*backend, *kernel_plan);
  const KernelParams kernel_params = bindKernelParams(*kernel_plan, inputs, outputs);
  for (auto _ : state) kernel->launch(kernel_plan->launch, kernel_params);
  backend->synchronize();
}

// x [rows, 256] -> sum over dim 1.
std::unique_ptr<Fusion> rowSumFusion() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  f->addOutput(sum(x, {1}));
  return f;
}

void newSize(benchmark::State& state, BackendKind kind, bool reduction, bool symbolic) {
  if (!usable(kind, state)) return;
  RuntimeOptions o;
  o.backend = choiceOf(kind);
  o.outputs_on_host = false;
  Options options;
  options.applyEnvironmentText("benchmark", "runtime",
                               symbolic ? "shapes=symbolic" : "shapes=static");
  FusionRuntime runtime(reduction ? rowSumFusion() : oneKernelFusion(), setup().config,
                        setup().registry, options, o);
  Backend& backend = *runtime.backend();
  const int64_t cols = reduction ? 256 : 128;
  auto inputOf = [&](int64_t rows) {
    Tensor t = Tensor::empty(DataType::Float, {rows, cols});
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble({i / cols, i % cols}, 0.001 * (i % 97));
    return std::vector<Argument>{kind == BackendKind::Cuda ? backend.toBackend(t) : t};
  };
  // Rows 64, 65, ...: small, so the kernel's own time is little of the figure;
  // the counters say how many sizes found their kernel compiled.
  int64_t rows = 64;
  runtime.run(inputOf(rows));  // the first size compiles
  const int64_t compiled_before = runtime.counters().kernels_compiled;
  // The host work of each new signature apart from running its kernel (on
  // the host backend the kernel's own time dominates the iteration):
  // concretization, passes and segmentation, heuristics and codegen.
  double setup_ms = 0;
  for (auto _ : state) {
    state.PauseTiming();
    rows += 1;
    std::vector<Argument> inputs = inputOf(rows);
    backend.synchronize();
    state.ResumeTiming();
    benchmark::DoNotOptimize(runtime.run(inputs));
    backend.synchronize();
    setup_ms += runtime.lastRun().setup_milliseconds + runtime.lastRun().compile.heuristics_ms;
  }
  state.counters["setup_us"] =
      1000.0 * setup_ms / static_cast<double>(std::max<int64_t>(1, state.iterations()));
  const int64_t compiled = runtime.counters().kernels_compiled - compiled_before;
  state.counters["kernels_compiled"] = static_cast<double>(compiled);
  state.counters["kernels_reused"] = static_cast<double>(runtime.counters().kernels_reused);
  if (runtime.lastRun().cache_hit) state.SkipWithError("a size was not new");
}

void BM_NewSizeSymbolic_Host(benchmark::State& s) {
  newSize(s, BackendKind::Host, s.range(0) == 1, true);
}
void BM_NewSizeSymbolic_Cuda(benchmark::State& s) {
  newSize(s, BackendKind::Cuda, s.range(0) == 1, true);
}
void BM_NewSizeStatic_Cuda(benchmark::State& s) {
  newSize(s, BackendKind::Cuda, s.range(0) == 1, false);
}

void BM_RunCacheHit_Host(benchmark::State& s) {
  runCacheHit(s, BackendKind::Host);
}
void BM_BareLaunch_Host(benchmark::State& s) {
  bareLaunch(s, BackendKind::Host);
}
void BM_RunCacheHit_Cuda(benchmark::State& s) {
  runCacheHit(s, BackendKind::Cuda);
}
void BM_BareLaunch_Cuda(benchmark::State& s) {
  bareLaunch(s, BackendKind::Cuda);
}

// Parts of a cache hit's host work, apart from the launch: the cache key
// (inputSignature, the canonical text of the inputs) and the output's
// allocation from the backend's caching allocator.
void BM_InputSignature(benchmark::State& state) {
  std::vector<Argument> inputs = {Tensor::empty(DataType::Float, {1, 128})};
  const std::vector<bool> shape_scalars = {false};
  for (auto _ : state) benchmark::DoNotOptimize(inputSignature(inputs, shape_scalars));
}
void BM_AllocateOutput_Cuda(benchmark::State& state) {
  if (!usable(BackendKind::Cuda, state)) return;
  std::shared_ptr<Backend> backend = sharedBackend(BackendKind::Cuda);
  for (auto _ : state)
    benchmark::DoNotOptimize(backend->allocate(DataType::Float, {1, 128}, {128, 1}));
}

BENCHMARK(BM_InputSignature)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AllocateOutput_Cuda)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BareLaunch_Host)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunCacheHit_Host)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BareLaunch_Cuda)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunCacheHit_Cuda)->Unit(benchmark::kMicrosecond);
// Arg 0: pointwise, 1: row sum. Static compiles every size: a few iterations.
BENCHMARK(BM_NewSizeSymbolic_Host)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Iterations(200);
BENCHMARK(BM_NewSizeSymbolic_Cuda)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Iterations(200);
BENCHMARK(BM_NewSizeStatic_Cuda)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
