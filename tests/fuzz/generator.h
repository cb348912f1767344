// Random valid fusions, as nvFuser repro scripts: a pure function of the seed
// (and the options), so a seed is a reproducible name for a case.
//
// The generator writes one statement at a time and keeps only statements the
// frontend accepts and the reference evaluator runs on the case's inputs, so
// every case is a valid fusion. It tracks each value's sizes, broadcast dims,
// dtype and actual values (by evaluating the script so far), and whether the
// value is *exact*: computed bit for bit alike by every correct backend (no
// transcendental functions, no reassociated sums). Discontinuous ops
// (comparisons, floor, casts to integers, domain edges of log/sqrt...) only
// take exact operands, and inexact values feed further ops only while they stay
// small, so legitimate rounding differences never turn into false failures.
#pragma once

#include <fusebox/dtype.h>

#include "fuzz_case.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace fusebox::fuzz {

struct GeneratorOptions {
  int64_t max_statements = 14;  // ops after the input definitions
  int64_t max_inputs = 4;       // tensor inputs (scalar inputs come on top)
  int64_t max_numel = 512;      // elements of the base shape
  // Cases with up to 64K elements (rows of 128 or more), for the kernels'
  // vectorized and multi-threaded paths; slower to generate and check.
  double large_probability = 0.02;
  double deep_probability = 0.0005;  // cases ending in a chain of 12,000+ ops
  // Cases ending in an indexing op at data-made indices (gen_hostile.cpp).
  double hostile_index_probability = 0.15;
  // Features left out (names listed by generatorFeatures()), e.g. "alias" or
  // "float-scalar", to keep known bugs from hiding new ones.
  std::set<std::string> excluded;
};

// Every feature name the generator can leave out, with what it covers.
struct FeatureInfo {
  const char* name;
  const char* what;
};
const std::vector<FeatureInfo>& generatorFeatures();

struct GeneratedCase {
  FuzzCase fuzz_case;
  std::vector<std::string> features;  // features this case uses
  // A statement the frontend or evaluator failed on with something other than
  // a UserError while the case was being made (a bug found by generating):
  // the message, and `fuzz_case` ends with that statement.
  std::string generator_failure;
  // "generator" (an exception other than UserError) or "frontend-rejects" (a
  // UserError for an op the generator's model knows to be valid).
  std::string generator_failure_category;
  int64_t rejected = 0;  // candidate statements dropped (invalid for the model)
  // Why each dropped statement was refused ("fd.ops.squeeze: <message>"): the
  // generator's model was wrong, or the frontend refuses a valid op.
  std::vector<std::string> rejections;
};

GeneratedCase generateCase(uint64_t seed, const GeneratorOptions& options);

// Whether a floating `prod` over `reduced` values of magnitude at most
// `max_abs` has a result dtype `result` whose accumulator (float32 for
// float32 and narrower, float64 for double) holds every partial product in any
// order. When it may not, a kernel's partial product can overflow to inf and
// meet a zero (NaN) where the evaluator's double accumulator gives 0, and
// both are valid float arithmetic: such cases cannot be compared.
bool productFitsAccumulator(double max_abs, int64_t reduced, DataType result);

}  // namespace fusebox::fuzz
