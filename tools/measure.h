// The measurement behind `fusebox compare` and `fusebox bench`: one fusion
// script run under one or more variants (configs, --set, disabled passes or
// schedulers), with inputs resident where the kernels run, warm-up, and
// interleaved repetitions, so drift and the order of variants hit each alike.
#pragma once

#include "bench/statistics.h"
#include "cli_common.h"
#include "pass_options.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fusebox::cli {

// One variant: a name and the flags that select it.
struct Variant {
  std::string name;
  std::string flags_text;  // as given ("" = the default config)
  PassFlags flags;
};

// `[NAME=]FLAGS`: FLAGS are `fusebox run`'s config flags (--config, --set,
// --disable-pass, --disable-scheduler, --no-passes); NAME, when the text
// starts with one ("waves=--config w.toml"), else `fallback_name`. Throws
// UserError naming `text` for an unknown flag.
Variant parseVariant(const std::string& text, const std::string& fallback_name);

struct MeasureOptions {
  std::string backend;  // "" = cuda when a GPU is usable, else host
  std::vector<InputOverride> inputs;
  uint64_t seed = 0;
  int64_t repetitions = 20;  // timed samples per variant
  int64_t warmup = 3;        // untimed runs per variant after the first
  // Each sample times this many milliseconds or more of back-to-back runs
  // (the same run count for every variant of a fusion).
  double min_sample_ms = 2.0;
  bool check_outputs = true;  // each variant's outputs against the evaluator
};

// A segment as a variant's runtime scheduled it.
struct SegmentChoice {
  int64_t group = 0;
  std::string scheduler;
  uint64_t params_hash = 0;
  std::string kernel;
  bool operator==(const SegmentChoice&) const = default;
};

struct VariantMeasurement {
  std::string variant;
  std::vector<double> times_ms;  // per sample: one run()'s mean time
  bench::Summary summary;
  std::vector<SegmentChoice> segments;
  // Empty when every output validated; else one line per failing output.
  std::vector<std::string> output_problems;
};

struct FusionMeasurement {
  std::string file;
  std::string backend;  // describeBackend() of the first variant
  int64_t runs_per_sample = 1;
  std::vector<VariantMeasurement> variants;  // in the order given
};

// Called before each repetition (and once with repetition == repetitions
// when the fusion is done), for a progress line.
using Progress = std::function<void(int64_t repetition, int64_t repetitions)>;

FusionMeasurement measureFusion(const std::string& file, const std::vector<Variant>& variants,
                                const MeasureOptions& options, const Progress& progress);

// The scripts named: files as they are, folders by their *.py files (sorted).
// Throws UserError for a path that is neither, or a folder without scripts.
std::vector<std::string> expandScripts(const std::vector<std::string>& paths);

// "pointwise#1a2b3c4d" per segment, joined by ", ".
std::string describeSegments(const std::vector<SegmentChoice>& segments);

}  // namespace fusebox::cli
