// What `fusebox run` prints beyond the outputs: --validate, --bench and
// --time-compile reports.
#pragma once

#include <fusebox/runtime.h>

#include <iosfwd>
#include <vector>

namespace fusebox::cli {

// Checks every output against evaluateFusion of the fusion as defined, with
// the tolerance model's per-output tolerances (fusebox/eval/tolerance.h);
// prints one line per output and a verdict. `inputs` must be the inputs as
// they were before the run (aliased outputs overwrite them). An output of
// which more than `max_unchecked` (a fraction) of the elements have no error
// bound, and so were not compared, fails too. Returns true when every
// output passed.
bool validateOutputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                     const std::vector<Argument>& outputs, double max_unchecked, std::ostream& out);

// Times each kernel (`iterations` launches, the L2 flushed before each on
// cuda unless `l2` is Warm) and whole cache-hit run() calls.
void benchmarkRun(FusionRuntime& runtime, const std::vector<Argument>& inputs, int64_t iterations,
                  L2State l2, std::ostream& out);

// The stages of the cold (first) run.
void printCompileTimes(const RunReport& cold, BackendChoice backend, std::ostream& out);

}  // namespace fusebox::cli
