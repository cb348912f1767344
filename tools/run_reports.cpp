// --validate, --bench and --time-compile for `fusebox run`.
#include "run_reports.h"

#include <fusebox/backend/cuda_backend.h>
#include <fusebox/eval/check_close.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>

namespace fusebox::cli {

bool validateOutputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                     const std::vector<Argument>& outputs, double max_unchecked,
                     std::ostream& out) {
  // Tolerances first: evaluateFusion writes aliased outputs into `inputs`.
  const std::vector<OutputTolerance> tolerances = outputTolerances(fusion, inputs);
  const std::vector<Argument> expected = evaluateFusion(fusion, inputs);
  int64_t failed = 0, largest = 1;
  for (size_t k = 0; k < expected.size() && k < outputs.size(); ++k) {
    const Val* v = fusion.outputs()[k];
    largest = std::max(largest, tolerances[k].reduction_size);
    CloseResult r = checkClose(outputs[k], expected[k], tolerances[k]);
    std::string detail;
    if (!r.shape_error.empty())
      detail = r.shape_error;
    else
      detail = fmt::format("max abs error {:.3g}, max rel error {:.3g} ({})", r.max_abs_error,
                           r.max_rel_error, r.tolerance);
    if (!r.pass && r.shape_error.empty())
      detail += fmt::format("; {} mismatched, first at {}", r.mismatches, r.first_mismatch);
    // Elements without a bound pass whatever they hold: too many of them and
    // the output was not really checked.
    const auto* t = std::get_if<Tensor>(&expected[k]);
    const int64_t numel = t != nullptr ? t->numel() : 1;
    if (r.unbounded > 0 && static_cast<double>(r.unbounded) > max_unchecked * numel) {
      detail += fmt::format(
          "; {} of {} elements ({:.3g}%) have no error bound and were not checked, more than "
          "the {:.3g}% allowed (--max-unchecked)",
          r.unbounded, numel, 100.0 * r.unbounded / numel, 100 * max_unchecked);
      r.pass = false;
    }
    out << fmt::format("validate output {} {}: {}: {}\n", k, v->toString(), detail,
                       r.pass ? "PASS" : "FAIL");
    failed += !r.pass;
  }
  if (expected.size() != outputs.size()) {
    out << fmt::format("validate: {} outputs, the evaluator gives {}\n", outputs.size(),
                       expected.size());
    ++failed;
  }
  out << fmt::format("validate: {} ({} output{}{}, largest reduction {})\n",
                     failed == 0 ? "PASS" : "FAIL", expected.size(),
                     expected.size() == 1 ? "" : "s",
                     failed == 0 ? "" : fmt::format(", {} failed", failed), largest);
  return failed == 0;
}

namespace {

int64_t tensorBytes(const std::vector<Argument>& arguments) {
  int64_t bytes = 0;
  for (const Argument& a : arguments)
    if (const auto* t = std::get_if<Tensor>(&a)) bytes += t->numel() * t->elementSize();
  return bytes;
}

}  // namespace

void benchmarkRun(FusionRuntime& runtime, const std::vector<Argument>& inputs, int64_t iterations,
                  L2State l2, std::ostream& out) {
  const int n = static_cast<int>(std::min<int64_t>(iterations, 1 << 30));
  const bool cuda = runtime.backendChoice() == BackendChoice::Cuda;
  const char* clock = !cuda                    ? "steady_clock"
                      : l2 == L2State::Flushed ? "CUDA events, L2 flushed"
                                               : "CUDA events, L2 warm";
  std::vector<KernelBenchmark> kernels = runtime.benchmarkKernels(inputs, n, l2);
  if (kernels.empty()) out << "bench: no kernels ran (every segment ran a host plan)\n";
  for (const auto& k : kernels)
    out << fmt::format(
        "bench: group {} kernel {}: median {:.4f} ms over {} launches ({}), "
        "{:.2f} GB/s ({} bytes moved)\n",
        k.group, k.kernel, k.median_ms, n, clock, k.gigabytesPerSecond(), k.bytes_moved);
  // run() as a caller with data already on the GPU sees it: inputs copied
  // there once, outputs left there.
  std::vector<Argument> resident = inputs;
  if (cuda) {
    for (Argument& a : resident)
      if (const auto* t = std::get_if<Tensor>(&a)) a = runtime.backend()->toBackend(*t);
    // As the Python module on CUDA tensors runs: outputs left on the GPU,
    // index errors read back behind the kernels instead of waited for.
    runtime.setOutputsOnHost(false);
    runtime.setDeferIndexErrors(true);
    // The whole call between two events, flushed once before it: the figure
    // triton.testing.do_bench gives a function of several kernels, where each
    // kernel's line above was flushed before it. The inputs' copies on the
    // GPU are the signature the kernels above ran for: every call a cache hit.
    std::vector<Argument> kept;       // the last call's outputs, freed after its end event
    std::vector<double> returned_ms;  // host time until run() returns, GPU work still queued
    const double call_ms = timeCallMs(
        *runtime.backend(),
        [&] {
          const auto start = std::chrono::steady_clock::now();
          kept = runtime.run(resident);
          returned_ms.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count());
        },
        n, l2, "run() on a cache hit");
    std::sort(returned_ms.begin(), returned_ms.end());
    const int64_t bytes = tensorBytes(resident) + tensorBytes(kept);
    out << fmt::format(
        "bench: call: median {:.4f} ms over {} calls ({}, once a call), {:.2f} GB/s ({} "
        "bytes of inputs and outputs); run() returned after a median {:.4f} ms\n",
        call_ms, n, clock, call_ms > 0 ? static_cast<double>(bytes) / (call_ms * 1e6) : 0.0, bytes,
        returned_ms[returned_ms.size() / 2]);
  }
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    runtime.run(resident);
    if (cuda) runtime.backend()->synchronize();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (cuda) {
    runtime.setDeferIndexErrors(false);  // raises an index error any timed call met
    runtime.setOutputsOnHost(true);
  }
  std::sort(times.begin(), times.end());
  out << fmt::format("bench: run() on a cache hit: median {:.4f} ms over {} calls{}\n",
                     times[times.size() / 2], n, cuda ? " (inputs and outputs on the GPU)" : "");
}

void printCompileTimes(const RunReport& cold, BackendChoice backend, std::ostream& out) {
  const CompileReport& c = cold.compile;
  const char* compiler = backend == BackendChoice::Cuda ? "NVRTC" : "host compiler";
  out << fmt::format("time-compile: passes {:.3f} ms\n", c.passes_ms);
  out << fmt::format("time-compile: segmentation {:.3f} ms\n", c.segmentation_ms);
  out << fmt::format("time-compile: heuristics+codegen {:.3f} ms\n", c.heuristics_ms);
  out << fmt::format(
      "time-compile: compile ({}) {:.3f} ms over {} kernel{} ({} from the kernel cache; "
      "parallel wall time {:.3f} ms)\n",
      compiler, c.compile_ms, c.kernels, c.kernels == 1 ? "" : "s", c.kernels_from_cache,
      c.compile_wall_ms);
  out << fmt::format("time-compile: load {:.3f} ms\n", c.load_ms);
}

}  // namespace fusebox::cli
