// `fusebox run FILE.py`: parse, make inputs, run through the runtime (passes,
// segmentation, schedulers), print the IR and a summary of inputs and outputs.
#include "cli_common.h"
#include "pass_options.h"
#include "run_reports.h"

#include <fusebox/ir/printer.h>
#include <fusebox/npy.h>
#include <fusebox/runtime.h>

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace fusebox::cli {
namespace {

struct RunOptions {
  std::string file;
  std::vector<std::string> inputs;
  // --sweep: one more run per entry, with these overrides over --input's.
  std::vector<std::string> sweep;
  std::string save_outputs;
  uint64_t seed = 0;
  bool quiet_ir = false;
  int64_t repeat = 1;
  std::string backend;  // empty: cuda when a GPU is usable, else host
  bool validate = false;
  double max_unchecked = 0.01;  // --validate: elements without an error bound, at most
  int64_t bench = 0;
  bool bench_warm_l2 = false;
  bool time_compile = false;
  bool plan_only = false;
  PassFlags passes;
};

// --repeat and --bench: enough for any measurement, and a run that ends.
constexpr int64_t kMaxRepeat = 1000000;

// "T0=8x64:float,T1=64:float" -> one override each.
std::vector<std::string> splitSweepEntry(const std::string& entry) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= entry.size()) {
    size_t comma = entry.find(',', pos);
    std::string part =
        entry.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  FUSEBOX_USER_CHECK(!parts.empty(), "--sweep '{}': expected NAME=SPEC[,NAME=SPEC...]", entry);
  return parts;
}

std::unique_ptr<FusionRuntime> makeRuntime(PythonDefinition& def, const RunOptions& o) {
  RuntimeOptions runtime;
  runtime.input_names = def.input_names;
  runtime.dump = &std::cout;
  runtime.diagnostics = &std::cerr;
  return makeConfiguredRuntime(std::move(def.fusion), o.passes, o.backend, runtime);
}

// "run 2: cache hit; 2 segments in 0.412 ms: group 0 by no_op, group 1 by expr_eval";
// a miss says how its concretization and kernels were found.
std::string describeRun(int64_t index, const RunReport& report) {
  std::vector<std::string> segments;
  for (const auto& s : report.segments)
    segments.push_back(fmt::format("group {} by {}", s.group, s.scheduler));
  std::string cache =
      report.cache_hit
          ? "cache hit"
          : fmt::format(
                "cache miss (passes and segmentation {:.3f} ms; concretization #{} "
                "{}; {}kernels: {} reused, {} new, {} of them from the kernel cache)",
                report.setup_milliseconds, report.concretization_id,
                report.concretization_reused ? "reused" : "new",
                report.symbolic_shapes ? "symbolic sizes; " : "", report.kernels_reused,
                report.kernels_new, report.compile.kernels_from_cache);
  return fmt::format("run {}: {}; {} segment{} in {:.3f} ms: {}", index, cache,
                     report.segments.size(), report.segments.size() == 1 ? "" : "s",
                     report.milliseconds, fmt::join(segments, ", "));
}

void saveOutputs(const std::string& folder, const Fusion& fusion,
                 const std::vector<Argument>& outputs) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  FUSEBOX_USER_CHECK(!ec, "--save-outputs {}: cannot create the folder: {}", folder, ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = (std::filesystem::path(folder) / fmt::format("output_{}.npy", i)).string();
    if (auto* t = std::get_if<Tensor>(&outputs[i])) {
      saveNpy(path, *t);
    } else {
      double v = toDouble(std::get<ScalarValue>(outputs[i]));
      saveNpy(path, Tensor::scalar(fusion.outputs()[i]->dtype(), v));
    }
    std::cout << "saved " << path << "\n";
  }
}

int runCommand(const RunOptions& o) {
  FUSEBOX_USER_CHECK(o.bench >= 0, "--bench {}: expected a count of at least 1", o.bench);
  PythonDefinition def = parsePythonFile(o.file);
  std::vector<InputOverride> overrides;
  for (const auto& text : o.inputs) overrides.push_back(parseInputOverride(text));
  std::vector<Argument> args = makeInputs(def, overrides, o.seed);
  std::unique_ptr<FusionRuntime> runtime = makeRuntime(def, o);
  if (o.plan_only) {
    const FusionRuntime::PlanSummary plan = runtime->plan(args);
    std::vector<std::string> segments;
    for (size_t g = 0; g < plan.schedulers.size(); ++g)
      segments.push_back(plan.schedulers[g].empty()
                             ? fmt::format("group {} when it runs", g)
                             : fmt::format("group {} by {}", g, plan.schedulers[g]));
    std::cout << "backend: " << runtime->describeBackend() << "\n"
              << fmt::format("plan only: {} segment{} ({}), {} generated kernel{}; nothing ran\n",
                             plan.schedulers.size(), plan.schedulers.size() == 1 ? "" : "s",
                             fmt::join(segments, ", "), plan.kernels, plan.kernels == 1 ? "" : "s");
    return kOk;
  }

  // An aliased output overwrites its input, so --validate compares with the
  // evaluator run on the inputs as they were before the last run.
  const bool writes_inputs = hasAliasedOutputs(runtime->fusion());
  std::vector<Argument> validate_inputs = args;
  std::vector<Argument> outputs;
  std::vector<std::string> run_lines;
  RunReport cold;
  for (int64_t i = 1; i <= o.repeat; ++i) {
    if (o.validate && writes_inputs && i == o.repeat && o.sweep.empty())
      validate_inputs = cloneArguments(args);
    outputs = runtime->run(args);
    run_lines.push_back(describeRun(i, runtime->lastRun()));
    if (i == 1) cold = runtime->lastRun();
  }
  // Each --sweep entry: other inputs through the same runtime (its cache
  // levels at work); --validate and the summary are of the last.
  if (!o.sweep.empty()) def.fusion = runtime->fusion().clone();  // makeInputs reads it
  for (size_t k = 0; k < o.sweep.size(); ++k) {
    std::vector<InputOverride> more = overrides;
    for (const auto& text : splitSweepEntry(o.sweep[k])) more.push_back(parseInputOverride(text));
    args = makeInputs(def, more, o.seed);
    validate_inputs = writes_inputs ? cloneArguments(args) : args;
    outputs = runtime->run(args);
    run_lines.push_back(fmt::format(
        "{} ({})", describeRun(o.repeat + 1 + static_cast<int64_t>(k), runtime->lastRun()),
        o.sweep[k]));
  }

  // The fusion as the segmenter saw it: after the passes.
  const Fusion& fusion = runtime->lastFusion();
  if (!o.quiet_ir) std::cout << printFusion(fusion) << "\n";
  for (size_t i = 0; i < args.size(); ++i)
    std::cout << fmt::format("input {} {}: {}\n", i,
                             i < def.input_names.size() ? def.input_names[i] : "?",
                             summarize(args[i]));
  for (size_t i = 0; i < outputs.size(); ++i)
    std::cout << fmt::format("output {} {}: {}\n", i, fusion.outputs()[i]->toString(),
                             summarize(outputs[i]));
  std::cout << "backend: " << runtime->describeBackend() << "\n";
  for (const auto& line : run_lines) std::cout << line << "\n";
  if (o.time_compile) printCompileTimes(cold, runtime->backendChoice(), std::cout);
  if (!o.save_outputs.empty()) saveOutputs(o.save_outputs, fusion, outputs);
  bool valid = true;
  if (o.validate)
    valid =
        validateOutputs(runtime->fusion(), validate_inputs, outputs, o.max_unchecked, std::cout);
  if (o.bench > 0)
    benchmarkRun(*runtime, args, o.bench, o.bench_warm_l2 ? L2State::Warm : L2State::Flushed,
                 std::cout);
  return valid ? kOk : kUserError;
}

}  // namespace

Command addRunCommand(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand(
      "run",
      "Parse an nvFuser Python definition and run it through passes, segmentation and "
      "schedulers; summarize its outputs");
  app->add_option("file", options->file, "nvFuser Python definition or repro script")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_option("--input,-i", options->inputs,
                  "Override an input: NAME=16x512:float (random), NAME=x.npy, NAME=1.5; NAME is "
                  "the script's variable (T0) or a position (#0)")
      ->allow_extra_args(false);
  app->add_option("--sweep", options->sweep,
                  "After the --repeat runs, one more run with these input overrides "
                  "(NAME=SPEC[,NAME=SPEC...], as --input; repeatable): new sizes through the "
                  "same runtime, so its run lines show which cache level served each")
      ->allow_extra_args(false);
  app->add_option("--save-outputs", options->save_outputs,
                  "Write each output to DIR/output_<index>.npy")
      ->check(
          [](const std::string& dir) {
            return dir.empty() ? std::string(
                                     "expected a folder to write the outputs to, got an "
                                     "empty name")
                               : std::string();
          },
          "DIR");
  app->add_option("--seed", options->seed, "Seed for random inputs")
      ->capture_default_str()
      ->check(unsignedInteger());
  app->add_flag("--no-ir", options->quiet_ir, "Do not print the fusion IR");
  app->add_option("--repeat", options->repeat,
                  "Run N times with the same inputs (the first run fills the cache; later runs "
                  "hit it)")
      ->capture_default_str()
      ->check(integerIn(1, kMaxRepeat));
  app->add_option("--backend", options->backend,
                  "Where kernels run: cuda, host (the CPU), or eval (no kernels: the reference "
                  "evaluator). Default: cuda when a GPU is usable, else host")
      ->check(CLI::IsMember({"cuda", "host", "eval"}));
  app->add_flag("--validate", options->validate,
                "Check every output against the reference evaluator (exit code 1 on a mismatch)");
  app->add_option("--max-unchecked", options->max_unchecked,
                  "--validate fails an output of which more than this fraction of the elements "
                  "have no error bound (and so are not compared)")
      ->capture_default_str()
      ->check(realIn(0.0, 1.0));
  app->add_option("--bench", options->bench,
                  "Time each kernel over N launches (median, GB/s; on cuda each launch after "
                  "an L2 flush, as triton.testing.do_bench) and run() on a cache hit (on cuda "
                  "also between CUDA events, one flush a call)")
      ->check(integerIn(0, kMaxRepeat));
  app->add_flag("--bench-warm-l2", options->bench_warm_l2,
                "--bench on cuda: time launches back to back, without flushing the L2 between "
                "them (inputs that fit the L2 are read from it)");
  app->add_flag("--time-compile", options->time_compile,
                "Print the first run's passes, segmentation, heuristics+codegen, compile and "
                "load times");
  CLI::Option* plan_only =
      app->add_flag("--plan-only", options->plan_only,
                    "Plan the first call (passes, segmentation, heuristics, code generation and "
                    "the dumps asked for) without compiling or running a kernel: with --set "
                    "runtime.device=h100 on the host backend, an H100's plans from any machine");
  for (const char* other : {"--validate", "--bench", "--sweep", "--save-outputs", "--time-compile",
                            "--repeat", "--bench-warm-l2"})
    plan_only->excludes(other);
  addPassFlags(app, options->passes);
  addRuntimeFlags(app, options->passes);
  return {app, [options] { return runCommand(*options); }};
}

}  // namespace fusebox::cli
