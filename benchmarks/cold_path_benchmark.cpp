// The cold path of the runtime: from a parsed fusion definition to kernels
// ready, without the kernel compile. Each iteration builds a fresh
// FusionRuntime (pass pipeline and schedulers from the default config) and
// makes its first run(): input checks, concretization, passes, segmentation,
// scheduler checks, heuristics and code generation (the kernel source).
//
// The compiler is left out twice over. The runtime gets a backend whose
// compile() compiles nothing and whose kernels launch as no-ops; and the
// iteration time (manual time) is the wall time of construction + run() less
// what the run reports as the compile step (CompileReport::compile_wall_ms)
// and as running the plans (SegmentRunRecord::milliseconds: allocations, the
// no-op launches, expr_eval's host plans): the `excluded_ms` counter. The
// CompileReport split is in the other counters; `first_ms` is the workload's
// first iteration in the process (plugin code touched for the first time).
// Only runtime-level API and the Backend interface: no Scheduler calls.
//
// Workloads: benchmarks/workloads/layernorm_bwd_bf16.py at its own sizes (one
// inner_outer_persistent kernel), and a definition the default schedulers
// split into 5 segments (pointwise, matmul, softmax, matmul, column sum).
// Each checks its segment count.
//
//   build/release/bin/fusebox_cold_path_benchmark --benchmark_repetitions=5
#include <fusebox/backend/backend.h>
#include <fusebox/backend/backend_choice.h>
#include <fusebox/config.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/runtime.h>
#include <fusebox/tensor.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace fusebox;
using Clock = std::chrono::steady_clock;

// Softmax between two matmuls: matmuls go to expr_eval, which the kernel
// schedulers around them cannot merge across, so 5 segments.
constexpr const char* kFiveSegments = R"(import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.tanh(T3)
    T5 = fd.ops.matmul(T4, T1)
    T6 = fd.ops.max(T5, dims=[1], keepdim=True, dtype=DataType.Null)
    T7 = fd.ops.sub(T5, T6)
    T8 = fd.ops.exp(T7)
    T9 = fd.ops.sum(T8, dims=[1], keepdim=True, dtype=DataType.Null)
    T10 = fd.ops.div(T8, T9)
    T11 = fd.ops.matmul(T10, T2)
    T12 = fd.ops.mul(T11, T11)
    T13 = fd.ops.sum(T12, dims=[0], keepdim=False, dtype=DataType.Null)
    T14 = fd.ops.sqrt(T13)
    fd.add_output(T14)

inputs = [
    torch.randn(64, 128, dtype=torch.bfloat16, device="cuda"),
    torch.randn(128, 256, dtype=torch.float32, device="cuda"),
    torch.randn(256, 64, dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)
)";

// A compiled kernel that does nothing when launched.
class NullKernel final : public CompiledKernel {
 public:
  explicit NullKernel(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  void launch(const LaunchConfig&, const KernelParams&) override {}

 private:
  std::string name_;
};

// The host backend's memory with a compile() that only counts.
class NoCompileBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Host; }
  std::string describe() const override { return "host memory, no compiler"; }
  std::shared_ptr<CompiledKernel> compile(const KernelSource& kernel,
                                          CompileTimings* /*timings*/) override {
    source_bytes += static_cast<int64_t>(kernel.source.size());
    return std::make_shared<NullKernel>(kernel.name);
  }
  // Every allocation is a view of one zeroed arena (no kernel writes it), so
  // an allocation costs what a caching allocator's hit does, not a memset of
  // a [16384, 4096] output. Scratch is zeroed by memsetZero as usual.
  Tensor allocate(DataType dtype, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides) override {
    int64_t span = 1;
    for (size_t d = 0; d < sizes.size(); ++d) span += (sizes[d] - 1) * strides[d];
    for (int64_t size : sizes) span = size == 0 ? 0 : span;
    const int64_t bytes = span * dataTypeSize(dtype);
    if (!arena_.defined() || arena_.numel() < bytes)
      arena_ = Tensor::empty(DataType::Bool, {bytes});
    return Tensor::fromBlob(arena_.data(), dtype, sizes, strides, Device::Host,
                            [keep = arena_](void*) {});
  }
  Tensor toBackend(const Tensor& t) override { return host_->toBackend(t); }
  Tensor toHost(const Tensor& t) override { return host_->toHost(t); }
  void memsetZero(const Tensor& t) override { host_->memsetZero(t); }
  void copy(const Tensor& src, const Tensor& dst) override { host_->copy(src, dst); }
  void synchronize() override { host_->synchronize(); }

  std::atomic<int64_t> source_bytes{0};

 private:
  std::shared_ptr<Backend> host_ = sharedBackend(BackendKind::Host);
  Tensor arena_;
};

struct Workload {
  PythonDefinition definition;
  std::vector<Argument> inputs;
  double first_ms = -1;  // the first iteration in this process
};

struct Setup {
  Config config = loadConfig();
  PluginRegistry registry;
  Options options;
  std::map<std::string, Workload> workloads;  // parsed and materialized once
  Setup() {
    registry.discover(config.plugin_paths);
    options.applyConfig(config);
  }
  Workload& workload(const std::string& name) {
    auto it = workloads.find(name);
    if (it != workloads.end()) return it->second;
    Workload w;
    w.definition = name == "five_segments"
                       ? parsePythonDefinition(kFiveSegments, "five_segments.py")
                       : parsePythonFile(std::string(FUSEBOX_SOURCE_DIR) + "/" + name);
    for (size_t i = 0; i < w.definition.inputs.size(); ++i)
      w.inputs.push_back(materializeInput(w.definition.inputs[i], 1 + i));
    return workloads.emplace(name, std::move(w)).first->second;
  }
};
Setup& setup() {
  static Setup s;
  return s;
}

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void coldPath(benchmark::State& state, const std::string& name, size_t expected_segments) {
  Workload& w = setup().workload(name);
  auto backend = std::make_shared<NoCompileBackend>();
  RuntimeOptions ro;
  ro.backend_object = backend;
  ro.input_names = w.definition.input_names;
  std::map<std::string, double> sums;  // averaged over the iterations
  size_t segments = 0;
  int64_t kernels = 0;
  for (auto _ : state) {
    std::unique_ptr<Fusion> fusion = w.definition.fusion->clone();
    const auto start = Clock::now();
    FusionRuntime runtime(std::move(fusion), setup().config, setup().registry, setup().options, ro);
    const auto built = Clock::now();
    std::vector<Argument> outputs = runtime.run(w.inputs);  // freed after the clock stops
    const auto end = Clock::now();
    benchmark::DoNotOptimize(outputs);
    const RunReport& r = runtime.lastRun();
    double not_cold = r.compile.compile_wall_ms;
    for (const SegmentRunRecord& s : r.segments) not_cold += s.milliseconds;
    const double cold = msBetween(start, end) - not_cold;
    state.SetIterationTime(cold / 1000.0);
    if (w.first_ms < 0) w.first_ms = cold;
    sums["construct_ms"] += msBetween(start, built);
    sums["concretize_ms"] += r.compile.concretize_ms;
    sums["passes_ms"] += r.compile.passes_ms;
    sums["segment_ms"] += r.compile.segmentation_ms;
    sums["sched_codegen_ms"] += r.compile.heuristics_ms;
    sums["excluded_ms"] += not_cold;
    segments = r.segments.size();
    kernels = r.compile.kernels;
    if (r.cache_hit || segments != expected_segments) {
      state.SkipWithError(("expected a cache miss with " + std::to_string(expected_segments) +
                           " segments, got " + std::to_string(segments))
                              .c_str());
      break;
    }
  }
  sums["source_kb"] = static_cast<double>(backend->source_bytes) / 1024.0;
  for (const auto& [counter, sum] : sums)
    state.counters[counter] = benchmark::Counter(sum, benchmark::Counter::kAvgIterations);
  state.counters["segments"] = static_cast<double>(segments);
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["first_ms"] = w.first_ms;
}

void BM_ColdPath_LayerNormBwd(benchmark::State& s) {
  coldPath(s, "benchmarks/workloads/layernorm_bwd_bf16.py", 1);
}
void BM_ColdPath_FiveSegments(benchmark::State& s) {
  coldPath(s, "five_segments", 5);
}

BENCHMARK(BM_ColdPath_LayerNormBwd)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ColdPath_FiveSegments)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
