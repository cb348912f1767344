// Benchmark results in Google Benchmark's JSON format (--benchmark_format=json,
// json_schema_version 1), so that its tools/compare.py can compare two runs:
//   compare.py benchmarks a.json b.json
//   compare.py filters both.json <regex baseline> <regex contender>
// compare.py matches entries by "name" (exactly, across the two files; in
// `filters` mode after replacing the matched part of the name), and runs its
// U test on all the entries that share a name: the per-repetition entries.
// It needs at least 2 of them on each side (9 for it not to warn).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::bench {

struct BenchmarkRun {
  // Matched across files by compare.py: keep it stable from run to run and
  // free of anything that changes (dates, paths of temporary files).
  std::string name;
  // One per repetition: the mean time of one iteration in that repetition, in
  // milliseconds. Positive and finite.
  std::vector<double> times_ms;
  // Iterations timed together for each sample (Google Benchmark's "iterations").
  int64_t iterations_per_sample = 1;
  // More keys for every entry of the run ("variant", "segments",
  // "params_hash"): an object or null. Keys Google Benchmark itself writes are
  // refused, since compare.py reads some of them.
  nlohmann::json extra = nlohmann::json::object();
};

// Every time is written in microseconds ("time_unit": "us"), always: compare.py
// drops the contender's entries whose unit differs from the baseline's, so two
// files are only comparable with one unit.
inline constexpr std::string_view kTimeUnit = "us";

// {"context": {...}, "benchmarks": [...]}.
//
// "context": what Google Benchmark writes (date, host_name, executable,
// num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches, load_avg,
// library_build_type, json_schema_version = 1), then the keys of
// `context_extra` (an object or null), which win over those.
//
// "benchmarks": for each run, in order, one "iteration" entry per sample
// (repetition_index 0..n-1, the run's name), then, with two samples or more,
// the "aggregate" entries mean, median, stddev (with n - 1) and cv (stddev /
// mean, "aggregate_unit": "percentage", as a fraction), named
// "<name>_<aggregate>". cpu_time repeats real_time (fusebox measures
// wall-clock time only). Runs must have distinct, non-empty names
// and at least one sample; every entry name must be unique in the file.
nlohmann::json googleBenchmarkJson(const std::vector<BenchmarkRun>& runs,
                                   const nlohmann::json& context_extra,
                                   std::string_view executable);

// The samples of every run in a Google Benchmark JSON file (fusebox's, or
// Google Benchmark's own): each "iteration" entry's real_time, in
// milliseconds, under its name, in file order (aggregate entries are left
// out). Throws UserError naming the file (and the entry) when it cannot be
// read, is not JSON, has no "benchmarks" array, or an entry lacks a name, a
// positive real_time or a known time_unit (ns, us, ms, s).
std::map<std::string, std::vector<double>> readSampleTimesMs(const std::string& path);

}  // namespace fusebox::bench
