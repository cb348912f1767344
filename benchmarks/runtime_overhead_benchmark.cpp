// Host overhead of the runtime: a cache-hit FusionRuntime::run() of a
// one-kernel pointwise fusion against the bare launch of the same compiled
// kernel (CompiledKernel::launch with a prefilled KernelParams), on the host
// backend and, where a GPU is usable, on cuda (device inputs and outputs, so
// no copies). The target (issue 5): run() costs at most 5 microseconds more
// than the bare launch. docs/perf.md has the figures.
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
  auto params = scheduler->computeHeuristics(*fusion, info, cache);
  auto plan = scheduler->schedule(*fusion, *params, info);
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

BENCHMARK(BM_BareLaunch_Host)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunCacheHit_Host)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BareLaunch_Cuda)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunCacheHit_Cuda)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
