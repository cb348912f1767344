// fusebox.compare's C++ half: the statistics of `fusebox compare` (the U
// test, the ratio of typical times and its interval, the verdict) on samples
// timed in Python, and each variant's outputs checked against the reference
// evaluator under the tolerance model, as the CLI checks them.
#pragma once

#include <pybind11/pybind11.h>

#include "fusion_cache.h"

namespace fusebox::python {

namespace py = pybind11;

// compare_samples(times, baseline, alpha, min_effect) and summarize(times).
void bindCompareStatistics(py::module_& m);

// Problems of one run's outputs, one line per output that does not validate
// ("output 1 T5: max abs error ..."); empty when every output does.
// `before`: the call's inputs as they were (input descriptors of host
// tensors and numbers); `after`: the same tensors after the run (outputs
// written into an input are read there); `returned`: descriptors of the
// outputs the call returned, in order.
py::list checkOutputs(const CachedFusion& c, py::list before, py::list after, py::list returned);

}  // namespace fusebox::python
