// The measurement of `fusebox compare` and `fusebox bench` (measure.h).
#include "measure.h"

#include <fusebox/eval/check_close.h>
#include <fusebox/eval/tolerance.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

namespace fusebox::cli {

namespace {

namespace fs = std::filesystem;

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

// One variant's runtime and its own copy of the inputs, resident where its
// kernels run (copied once: a timed run() moves no input).
struct Runner {
  std::unique_ptr<FusionRuntime> runtime;
  std::vector<Argument> inputs;
  bool cuda = false;

  void synchronize() {
    if (cuda) runtime->backend()->synchronize();
  }
  Argument toHost(const Argument& a) {
    const auto* t = std::get_if<Tensor>(&a);
    if (t == nullptr || t->device() == Device::Host) return a;
    return runtime->backend()->toHost(*t);
  }
  // Milliseconds per run() over `runs` back-to-back calls.
  double time(int64_t runs) {
    synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < runs; ++i) runtime->run(inputs);
    synchronize();
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / static_cast<double>(runs);
  }
};

Runner makeRunner(const PythonDefinition& def, const Variant& v, const MeasureOptions& o,
                  const std::vector<Argument>& host_inputs) {
  RuntimeOptions options;
  options.input_names = def.input_names;
  options.dump = &std::cerr;  // stdout carries the table
  options.diagnostics = &std::cerr;
  options.outputs_on_host = false;
  Runner r;
  // Each runtime owns its copy of the fusion.
  r.runtime = makeConfiguredRuntime(def.fusion->clone(), v.flags, o.backend, options);
  r.cuda = r.runtime->backendChoice() == BackendChoice::Cuda;
  for (Argument& a : cloneArguments(host_inputs)) {
    const auto* t = std::get_if<Tensor>(&a);
    r.inputs.push_back(t != nullptr && r.cuda ? r.runtime->backend()->toBackend(*t) : a);
  }
  return r;
}

std::vector<std::string> outputProblems(const Fusion& fusion, const std::vector<Argument>& actual,
                                        const std::vector<Argument>& expected,
                                        const std::vector<OutputTolerance>& tolerances) {
  std::vector<std::string> problems;
  if (actual.size() != expected.size())
    problems.push_back(
        fmt::format("{} outputs, the evaluator gives {}", actual.size(), expected.size()));
  for (size_t k = 0; k < actual.size() && k < expected.size(); ++k) {
    const CloseResult r = checkClose(actual[k], expected[k], tolerances[k]);
    if (r.pass) continue;
    problems.push_back(fmt::format(
        "output {} {}: {}", k, fusion.outputs()[k]->toString(),
        !r.shape_error.empty()
            ? r.shape_error
            : fmt::format("max abs error {:.3g} ({}); {} mismatched, first at {}", r.max_abs_error,
                          r.tolerance, r.mismatches, r.first_mismatch)));
  }
  return problems;
}

}  // namespace

Variant parseVariant(const std::string& text, const std::string& fallback_name) {
  Variant v;
  v.name = fallback_name;
  std::string_view flags = text;
  const size_t eq = text.find('=');
  const auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  if (eq != std::string::npos && eq > 0 && text[0] != '-' &&
      std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(eq), is_name_char)) {
    v.name = text.substr(0, eq);
    flags = std::string_view(text).substr(eq + 1);
  }
  v.flags_text = trim(flags);
  CLI::App app{"a variant's flags"};
  app.set_help_flag();
  addPassFlags(&app, v.flags);
  app.add_option("--disable-scheduler", v.flags.disabled_schedulers,
                 "Do not use this scheduler (repeatable)")
      ->allow_extra_args(false);
  try {
    app.parse(v.flags_text, false);
  } catch (const CLI::ParseError& e) {
    throw UserError(fmt::format(
        "--variant '{}': {} (a variant is [NAME=]FLAGS with FLAGS among --config, --set, "
        "--disable-pass, --disable-scheduler, --no-passes)",
        displayText(text, 200), displayText(e.what(), 200)));
  }
  return v;
}

FusionMeasurement measureFusion(const std::string& file, const std::vector<Variant>& variants,
                                const MeasureOptions& o, const Progress& progress) {
  FUSEBOX_CHECK(!variants.empty(), "measureFusion: no variants");
  FusionMeasurement m;
  m.file = file;
  const PythonDefinition def = parsePythonFile(file);
  const std::vector<Argument> host_inputs = makeInputs(def, o.inputs, o.seed);
  std::vector<Argument> expected;
  std::vector<OutputTolerance> tolerances;
  if (o.check_outputs) {
    std::vector<Argument> inputs = cloneArguments(host_inputs);  // aliased outputs write them
    tolerances = outputTolerances(*def.fusion, inputs);
    expected = evaluateFusion(*def.fusion, inputs);
  }

  // The first run of each variant compiles; its outputs are checked and its
  // segments recorded.
  std::vector<Runner> runners;
  for (const Variant& v : variants) {
    Runner r = makeRunner(def, v, o, host_inputs);
    std::vector<Argument> outputs = r.runtime->run(r.inputs);
    VariantMeasurement vm;
    vm.variant = v.name;
    for (const SegmentRunRecord& s : r.runtime->lastRun().segments)
      vm.segments.push_back({s.group, s.scheduler, s.params_hash, s.kernel});
    if (o.check_outputs) {
      for (Argument& a : outputs) a = r.toHost(a);
      vm.output_problems = outputProblems(*def.fusion, outputs, expected, tolerances);
    }
    if (m.variants.empty()) m.backend = r.runtime->describeBackend();
    m.variants.push_back(std::move(vm));
    runners.push_back(std::move(r));
  }
  for (int64_t w = 0; w < o.warmup; ++w)
    for (Runner& r : runners) r.time(1);

  // One run count per sample for every variant, from the fastest.
  double fastest = INFINITY;
  for (Runner& r : runners) fastest = std::min(fastest, r.time(3));
  m.runs_per_sample = static_cast<int64_t>(
      std::clamp(std::ceil(o.min_sample_ms / std::max(fastest, 1e-6)), 1.0, 1e6));

  // A B, then B A, ...: a drift over time, or a cost of coming second, hits
  // every variant alike.
  const size_t n = runners.size();
  for (int64_t rep = 0; rep < o.repetitions; ++rep) {
    if (progress) progress(rep, o.repetitions);
    for (size_t j = 0; j < n; ++j) {
      const size_t i = rep % 2 == 0 ? j : n - 1 - j;
      m.variants[i].times_ms.push_back(runners[i].time(m.runs_per_sample));
    }
  }
  if (progress) progress(o.repetitions, o.repetitions);
  for (VariantMeasurement& vm : m.variants) vm.summary = bench::summarize(vm.times_ms);
  return m;
}

std::vector<std::string> expandScripts(const std::vector<std::string>& paths) {
  std::vector<std::string> scripts;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      scripts.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".py")
          found.push_back(entry.path().string());
      FUSEBOX_USER_CHECK(!found.empty(), "{}: the folder holds no .py fusion scripts",
                         displayText(p, 200));
      std::sort(found.begin(), found.end());
      scripts.insert(scripts.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      // A device, pipe or socket: the script reader refuses it with the
      // message `run` gives ("... is a character device, not a regular file").
      parsePythonFile(p);
      throw UserError(
          fmt::format("{}: expected a fusion script or a folder of them, got a file "
                      "that is neither",
                      displayText(p, 200)));
    } else {
      throw UserError(fmt::format("{}: expected a fusion script or a folder of them: {}",
                                  displayText(p, 200), ec ? ec.message() : "no such file"));
    }
  }
  return scripts;
}

std::string describeSegments(const std::vector<SegmentChoice>& segments) {
  std::vector<std::string> parts;
  for (const SegmentChoice& s : segments)
    parts.push_back(fmt::format("{}#{:08x}", s.scheduler, s.params_hash & 0xffffffffu));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace fusebox::cli
