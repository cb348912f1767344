// `fusebox compare` (A/B: fusion scripts under two or more variants, with a
// verdict per fusion) and `fusebox bench` (one variant over a suite of
// scripts). Both measure with measure.h and write Google Benchmark's JSON.
#include "bench/benchmark_json.h"
#include "cli_common.h"
#include "measure.h"

#include <fusebox/plugin/plugin_api.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

namespace fusebox::cli {
namespace {

struct SuiteOptions {
  std::vector<std::string> paths;
  std::vector<std::string> variants;  // compare
  PassFlags flags;                    // bench: its one variant
  std::vector<std::string> inputs;
  MeasureOptions measure;
  double alpha = 0.05;
  double min_effect = 0.01;
  std::string json;
  std::vector<std::string> baselines;  // bench: JSON files of the runs to compare with
};

void addMeasureOptions(CLI::App* app, SuiteOptions& o) {
  app->add_option("scripts", o.paths, "Fusion scripts, or folders of them (their *.py files)")
      ->required();
  app->add_option("--backend", o.measure.backend,
                  "Where kernels run: cuda, host or eval. Default: cuda when a GPU is usable, "
                  "else host")
      ->check(CLI::IsMember({"cuda", "host", "eval"}));
  app->add_option("--input,-i", o.inputs, "Override an input of every script, as `run --input`")
      ->allow_extra_args(false);
  app->add_option("--seed", o.measure.seed, "Seed for random inputs")
      ->capture_default_str()
      ->check(unsignedInteger());
  app->add_option("--repetitions,-r", o.measure.repetitions,
                  "Timed samples per variant (9 or more for compare.py's U test)")
      ->capture_default_str()
      ->check(integerIn(2, 100000));
  app->add_option("--warmup", o.measure.warmup, "Untimed runs per variant after the first")
      ->capture_default_str()
      ->check(integerIn(0, 100000));
  app->add_option("--min-sample-ms", o.measure.min_sample_ms,
                  "A sample times back-to-back runs for at least this long")
      ->capture_default_str()
      ->check(realIn(0.0, 60000.0));
  app->add_flag("!--no-check", o.measure.check_outputs,
                "Skip checking each variant's outputs against the reference evaluator");
  app->add_option("--json", o.json, "Write the results as Google Benchmark JSON to FILE");
}

// A name per script for tables and JSON: its file name, or its path where
// two scripts share a file name.
std::vector<std::string> scriptNames(const std::vector<std::string>& scripts) {
  std::map<std::string, int> count;
  for (const auto& s : scripts) ++count[std::filesystem::path(s).filename().string()];
  std::vector<std::string> names;
  for (const auto& s : scripts) {
    std::string file = std::filesystem::path(s).filename().string();
    names.push_back(count[file] > 1 ? s : file);
  }
  return names;
}

// "[2/16] bias_gelu.py: repetition 5/20": rewritten in place on a terminal,
// one line per script otherwise (logs).
Progress progressLine(size_t index, size_t total, const std::string& name) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  return [=](int64_t rep, int64_t reps) {
    if (tty) {
      std::cerr << fmt::format("\r\033[K[{}/{}] {}: repetition {}/{}", index + 1, total, name,
                               std::min(rep + 1, reps), reps)
                << (rep == reps ? "\r\033[K" : "") << std::flush;
    } else if (rep == 0) {
      std::cerr << fmt::format("[{}/{}] {}: {} repetitions\n", index + 1, total, name, reps);
    }
  };
}

nlohmann::json segmentsJson(const std::vector<SegmentChoice>& segments) {
  nlohmann::json out = nlohmann::json::array();
  for (const SegmentChoice& s : segments)
    out.push_back({{"group", s.group},
                   {"scheduler", s.scheduler},
                   {"params_hash", fmt::format("{:016x}", s.params_hash)},
                   {"kernel", s.kernel}});
  return out;
}

// One variant's samples against the baseline's: the verdict and its figures.
struct Comparison {
  bench::Verdict verdict = bench::Verdict::NoDifference;
  std::string ratio, p;  // "1.012 [1.004, 1.020]", "0.031"
  nlohmann::json json;
};

Comparison compareSamples(const std::vector<double>& times, const std::vector<double>& baseline,
                          const SuiteOptions& o) {
  const bench::UTest u = bench::mannWhitneyU(times, baseline);
  const bench::RatioEstimate r = bench::ratioOfTimes(times, baseline, 0.95);
  // Significant and large enough: two runtimes with the same decisions
  // differ by a few tenths of a percent (where their buffers landed),
  // which enough samples make significant.
  Comparison c;
  c.verdict = bench::verdict(u, r, o.alpha);
  if (std::abs(std::log(r.ratio)) < std::log1p(o.min_effect))
    c.verdict = bench::Verdict::NoDifference;
  c.ratio = fmt::format("{:.3f} [{:.3f}, {:.3f}]", r.ratio, r.low, r.high);
  c.p = fmt::format("{:.2g}", u.p_value);
  c.json = {{"ratio", r.ratio},
            {"ratio_low", r.low},
            {"ratio_high", r.high},
            {"p_value", u.p_value},
            {"verdict", std::string(bench::toString(c.verdict))},
            {"min_effect", o.min_effect}};
  return c;
}

void checkVerdictOptions(const SuiteOptions& o) {
  FUSEBOX_USER_CHECK(o.alpha > 0 && o.alpha < 1, "--alpha {}: expected a level in (0, 1)", o.alpha);
  FUSEBOX_USER_CHECK(o.min_effect >= 0 && o.min_effect < 1,
                     "--min-effect {}: expected a fraction in [0, 1)", o.min_effect);
}

void writeJson(const std::string& path, const std::vector<bench::BenchmarkRun>& runs,
               const nlohmann::json& context) {
  const nlohmann::json doc = bench::googleBenchmarkJson(runs, context, "fusebox");
  std::ofstream out(path);
  FUSEBOX_USER_CHECK(out.good(), "--json {}: cannot open the file for writing", path);
  out << doc.dump(2) << "\n";
  FUSEBOX_USER_CHECK(out.good(), "--json {}: writing failed", path);
}

// The variants of --variant [NAME=]FLAGS, named A, B, ... where unnamed.
std::vector<Variant> parseVariants(const std::vector<std::string>& texts) {
  std::vector<Variant> variants;
  std::set<std::string> names;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string fallback =
        i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("V{}", i);
    variants.push_back(parseVariant(texts[i], fallback));
    FUSEBOX_USER_CHECK(names.insert(variants.back().name).second,
                       "--variant '{}': the name '{}' is taken by an earlier variant", texts[i],
                       variants.back().name);
  }
  return variants;
}

void writeCompareJson(const SuiteOptions& o, const std::vector<Variant>& variants,
                      const std::vector<bench::BenchmarkRun>& runs, const std::string& backend) {
  nlohmann::json variants_json = nlohmann::json::array();
  for (const Variant& v : variants)
    variants_json.push_back({{"name", v.name}, {"flags", v.flags_text}});
  writeJson(o.json, runs,
            {{"fusebox_version", FUSEBOX_VERSION_STRING},
             {"fusebox_command", "compare"},
             {"backend", backend},
             {"alpha", o.alpha},
             {"min_effect", o.min_effect},
             {"variants", variants_json}});
  std::cout << fmt::format("wrote {}\n", o.json);
}

int compareCommand(SuiteOptions& o) {
  FUSEBOX_USER_CHECK(o.variants.size() >= 2,
                     "compare needs two variants or more (--variant [NAME=]FLAGS, repeated), "
                     "got {}",
                     o.variants.size());
  checkVerdictOptions(o);
  const std::vector<Variant> variants = parseVariants(o.variants);
  for (const auto& text : o.inputs) o.measure.inputs.push_back(parseInputOverride(text));
  const std::vector<std::string> scripts = expandScripts(o.paths);
  const std::vector<std::string> script_names = scriptNames(scripts);
  const std::string& base = variants[0].name;

  std::cout << fmt::format(
      "compare: {} variants, {} script{}, {} repetitions, alpha {}, min effect {:g}%\n",
      variants.size(), scripts.size(), scripts.size() == 1 ? "" : "s", o.measure.repetitions,
      o.alpha, 100 * o.min_effect);
  for (const Variant& v : variants)
    std::cout << fmt::format("  {}{}: {}\n", v.name, v.name == base ? " (baseline)" : "",
                             v.flags_text.empty() ? "(the default config)" : v.flags_text);

  std::vector<bench::BenchmarkRun> runs;
  std::map<std::string, std::map<bench::Verdict, int>> tally;
  bool outputs_ok = true;
  std::string backend;
  for (size_t f = 0; f < scripts.size(); ++f) {
    const FusionMeasurement m = measureFusion(scripts[f], variants, o.measure,
                                              progressLine(f, scripts.size(), script_names[f]));
    backend = m.backend;
    std::cout << fmt::format("\n{} ({}; {} run{} per sample)\n", script_names[f], m.backend,
                             m.runs_per_sample, m.runs_per_sample == 1 ? "" : "s");
    std::cout << fmt::format("  {:<10} {:>10} {:>10} {:>10}  {:<25} {:>9}  {:<14} {}\n", "variant",
                             "median ms", "min ms", "IQR ms", fmt::format("vs {} [95% CI]", base),
                             "p", "verdict", "segments");
    const VariantMeasurement& a = m.variants[0];
    for (size_t i = 0; i < m.variants.size(); ++i) {
      const VariantMeasurement& v = m.variants[i];
      std::string ratio = "(baseline)", p, verdict;
      nlohmann::json extra = {{"variant", v.variant},
                              {"variant_flags", variants[i].flags_text},
                              {"script", scripts[f]},
                              {"segments", segmentsJson(v.segments)}};
      if (i > 0) {
        Comparison c = compareSamples(v.times_ms, a.times_ms, o);
        ++tally[v.variant][c.verdict];
        ratio = c.ratio;
        p = c.p;
        verdict = std::string(bench::toString(c.verdict));
        c.json["baseline"] = base;
        c.json["same_decision"] = v.segments == a.segments;
        extra["vs_baseline"] = c.json;
      }
      std::string segments = describeSegments(v.segments);
      if (i > 0 && v.segments == a.segments) segments += fmt::format(" (same as {})", base);
      std::cout << fmt::format("  {:<10} {:>10.4f} {:>10.4f} {:>10.4f}  {:<25} {:>9}  {:<14} {}\n",
                               v.variant, v.summary.median, v.summary.min, v.summary.iqr, ratio, p,
                               verdict, segments);
      runs.push_back({script_names[f] + "/" + v.variant, v.times_ms, m.runs_per_sample, extra});
    }
    bool agree = true;
    for (const VariantMeasurement& v : m.variants)
      for (const std::string& problem : v.output_problems) {
        std::cout << fmt::format("  outputs: {} {}: FAIL\n", v.variant, problem);
        agree = false;
      }
    if (o.measure.check_outputs && agree)
      std::cout << "  outputs: every variant validates against the evaluator\n";
    outputs_ok &= agree;
  }
  std::cout << "\n";
  for (size_t i = 1; i < variants.size(); ++i) {
    auto& t = tally[variants[i].name];
    std::cout << fmt::format("{} vs {}: {} faster, {} slower, {} no difference\n", variants[i].name,
                             base, t[bench::Verdict::Faster], t[bench::Verdict::Slower],
                             t[bench::Verdict::NoDifference]);
  }
  if (!o.json.empty()) writeCompareJson(o, variants, runs, backend);
  return outputs_ok ? kOk : kUserError;
}

int benchCommand(SuiteOptions& o) {
  for (const auto& text : o.inputs) o.measure.inputs.push_back(parseInputOverride(text));
  const std::vector<std::string> scripts = expandScripts(o.paths);
  const std::vector<std::string> script_names = scriptNames(scripts);
  Variant variant{"bench", "", o.flags};
  // The baseline files' samples, pooled by name (several files: runs of the
  // other build interleaved with this one's).
  checkVerdictOptions(o);
  std::map<std::string, std::vector<double>> baseline;
  for (const std::string& file : o.baselines)
    for (auto& [name, times] : bench::readSampleTimesMs(file))
      baseline[name].insert(baseline[name].end(), times.begin(), times.end());
  std::map<bench::Verdict, int> tally;
  int without_baseline = 0;
  std::vector<bench::BenchmarkRun> runs;
  std::string backend;
  bool outputs_ok = true;
  std::cout << fmt::format("bench: {} script{}, {} repetitions\n", scripts.size(),
                           scripts.size() == 1 ? "" : "s", o.measure.repetitions);
  std::cout << fmt::format(
      "{:<28} {:>10} {:>10} {:>10} {:>6}  {}\n", "script", "median ms", "min ms", "IQR ms", "runs",
      o.baselines.empty()
          ? "segments"
          : fmt::format("{:<25} {:>9}  {:<14} segments", "vs baseline [95% CI]", "p", "verdict"));
  for (size_t f = 0; f < scripts.size(); ++f) {
    const FusionMeasurement m = measureFusion(scripts[f], {variant}, o.measure,
                                              progressLine(f, scripts.size(), script_names[f]));
    backend = m.backend;
    const VariantMeasurement& v = m.variants[0];
    nlohmann::json extra = {{"script", scripts[f]}, {"segments", segmentsJson(v.segments)}};
    std::string versus;
    if (!o.baselines.empty()) {
      const auto it = baseline.find(script_names[f]);
      if (it == baseline.end()) {
        ++without_baseline;
        versus = fmt::format("{:<25} {:>9}  {:<14} ", "(not in the baseline)", "", "");
      } else {
        Comparison c = compareSamples(v.times_ms, it->second, o);
        ++tally[c.verdict];
        versus = fmt::format("{:<25} {:>9}  {:<14} ", c.ratio, c.p, bench::toString(c.verdict));
        c.json["baseline_samples"] = it->second.size();
        extra["vs_baseline"] = c.json;
      }
    }
    std::cout << fmt::format("{:<28} {:>10.4f} {:>10.4f} {:>10.4f} {:>6}  {}{}\n", script_names[f],
                             v.summary.median, v.summary.min, v.summary.iqr, m.runs_per_sample,
                             versus, describeSegments(v.segments));
    for (const std::string& problem : v.output_problems) {
      std::cout << fmt::format("  outputs: {}: FAIL\n", problem);
      outputs_ok = false;
    }
    runs.push_back({script_names[f], v.times_ms, m.runs_per_sample, extra});
  }
  std::cout << fmt::format("backend: {}\n", backend);
  if (!o.baselines.empty())
    std::cout << fmt::format(
        "vs baseline: {} faster, {} slower, {} no difference, {} not in the baseline\n",
        tally[bench::Verdict::Faster], tally[bench::Verdict::Slower],
        tally[bench::Verdict::NoDifference], without_baseline);
  if (!o.json.empty()) {
    writeJson(o.json, runs,
              {{"fusebox_version", FUSEBOX_VERSION_STRING},
               {"fusebox_command", "bench"},
               {"backend", backend}});
    std::cout << fmt::format("wrote {}\n", o.json);
  }
  return outputs_ok ? kOk : kUserError;
}

}  // namespace

Command addCompareCommand(CLI::App& parent) {
  auto o = std::make_shared<SuiteOptions>();
  CLI::App* app = parent.add_subcommand(
      "compare",
      "A/B benchmark: run fusion scripts under two or more variants (configs, --set, disabled "
      "passes or schedulers), interleaved, and say per script whether each variant is faster "
      "or slower than the first (Mann-Whitney U) and whether their outputs agree");
  addMeasureOptions(app, *o);
  app->add_option("--variant,-v", o->variants,
                  "[NAME=]FLAGS: a variant, FLAGS among --config FILE, --set KEY=VALUE, "
                  "--disable-pass NAME, --disable-scheduler NAME, --no-passes ('' or NAME= "
                  "alone: the default config). The first is the baseline (repeatable, 2 or more)")
      ->allow_extra_args(false);
  app->add_option("--alpha", o->alpha, "Significance level of the verdicts")->capture_default_str();
  app->add_option("--min-effect", o->min_effect,
                  "Smallest difference a verdict reports, as a fraction of the baseline's time "
                  "(smaller significant differences are 'no difference')")
      ->capture_default_str();
  return {app, [o] { return compareCommand(*o); }};
}

Command addBenchCommand(CLI::App& parent) {
  auto o = std::make_shared<SuiteOptions>();
  CLI::App* app = parent.add_subcommand(
      "bench",
      "Benchmark a suite of fusion scripts under one config (the measurement of `compare`), "
      "with Google Benchmark JSON for compare.py");
  addMeasureOptions(app, *o);
  addPassFlags(app, o->flags);
  app->add_option("--disable-scheduler", o->flags.disabled_schedulers,
                  "Do not use this scheduler (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--baseline", o->baselines,
                  "FILE: a --json of `bench` (another build, another config) to compare each "
                  "script with, by name, as `compare` does (repeatable: the files' samples are "
                  "pooled, so runs of two builds can be interleaved)")
      ->allow_extra_args(false);
  app->add_option("--alpha", o->alpha, "Significance level of the verdicts (with --baseline)")
      ->capture_default_str();
  app->add_option("--min-effect", o->min_effect,
                  "Smallest difference a verdict reports, as a fraction of the baseline's time "
                  "(with --baseline)")
      ->capture_default_str();
  return {app, [o] { return benchCommand(*o); }};
}

}  // namespace fusebox::cli
