// fusebox.compare's statistics and output checks (compare.h).
#include "compare.h"

#include <fmt/format.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/tolerance.h>
#include <pybind11/stl.h>

#include <cmath>

#include "bench/statistics.h"
#include "torch_io.h"

namespace fusebox::python {

namespace {

py::dict summaryDict(const bench::Summary& s) {
  py::dict d;
  d["n"] = s.n;
  d["median_ms"] = s.median;
  d["min_ms"] = s.min;
  d["max_ms"] = s.max;
  d["mean_ms"] = s.mean;
  d["q1_ms"] = s.q1;
  d["q3_ms"] = s.q3;
  d["iqr_ms"] = s.iqr;
  return d;
}

// A scalar output comes back to Python as a 0-dim tensor: compared as the
// scalar the evaluator gives (integers read as integers: a double holds 53
// bits).
Argument asExpectedKind(const Argument& actual, const Argument& expected) {
  const auto* t = std::get_if<Tensor>(&actual);
  const auto* s = std::get_if<ScalarValue>(&expected);
  if (t == nullptr || s == nullptr || t->numel() != 1) return actual;
  if (std::holds_alternative<double>(*s)) return ScalarValue(t->getDoubleLinear(0));
  const std::vector<int64_t> first(static_cast<size_t>(t->dim()), 0);
  if (isFloatingType(t->dtype())) {
    const double v = t->getDoubleLinear(0);
    if (std::holds_alternative<bool>(*s)) return ScalarValue(v != 0.0);
    return ScalarValue(static_cast<int64_t>(std::llround(v)));
  }
  const int64_t v = t->getInt(first);
  if (std::holds_alternative<bool>(*s)) return ScalarValue(v != 0);
  return ScalarValue(v);
}

}  // namespace

void bindCompareStatistics(py::module_& m) {
  m.def(
      "compare_samples",
      [](const std::vector<double>& times, const std::vector<double>& baseline, double alpha,
         double min_effect) {
        FUSEBOX_USER_CHECK(alpha > 0 && alpha < 1, "alpha {}: expected a level in (0, 1)", alpha);
        FUSEBOX_USER_CHECK(min_effect >= 0 && min_effect < 1,
                           "min_effect {}: expected a fraction in [0, 1)", min_effect);
        const bench::UTest u = bench::mannWhitneyU(times, baseline);
        const bench::RatioEstimate r = bench::ratioOfTimes(times, baseline, 0.95);
        // As `fusebox compare`: significant and at least min_effect apart.
        bench::Verdict verdict = bench::verdict(u, r, alpha);
        if (std::abs(std::log(r.ratio)) < std::log1p(min_effect))
          verdict = bench::Verdict::NoDifference;
        py::dict d;
        d["verdict"] = std::string(bench::toString(verdict));
        d["ratio"] = r.ratio;
        d["interval"] = py::make_tuple(r.low, r.high);
        d["confidence"] = r.confidence;
        d["p_value"] = u.p_value;
        d["u"] = u.u;
        d["z"] = u.z;
        d["exact"] = u.exact;
        return d;
      },
      py::arg("times"), py::arg("baseline"), py::arg("alpha") = 0.05, py::arg("min_effect") = 0.01);
  m.def("summarize",
        [](const std::vector<double>& times) { return summaryDict(bench::summarize(times)); });
}

py::list checkOutputs(const CachedFusion& c, py::list before, py::list after, py::list returned) {
  const Fusion& fusion = c.fusion();
  CallInputs in = toCallInputs(before, c.inputNames());
  CallInputs post = toCallInputs(after, c.inputNames());
  FUSEBOX_USER_CHECK(!in.on_cuda && !post.on_cuda,
                     "check_outputs: the inputs must be host tensors (copy them with .cpu())");
  std::vector<std::string> names;
  for (size_t k = 0; k < returned.size(); ++k) names.push_back(fmt::format("output {}", k));
  CallInputs got = toCallInputs(returned, names);
  FUSEBOX_USER_CHECK(!got.on_cuda, "check_outputs: the outputs must be host tensors");

  // Both write the inputs that outputs alias: each gets its own copy.
  std::vector<Argument> for_tolerances = cloneArguments(in.arguments);
  const std::vector<OutputTolerance> tolerances = outputTolerances(fusion, for_tolerances);
  std::vector<Argument> for_values = cloneArguments(in.arguments);
  const std::vector<Argument> expected = evaluateFusion(fusion, for_values, c.evaluatorOptions());

  py::list problems;
  const auto& inputs = fusion.inputs();
  size_t next = 0;
  for (size_t k = 0; k < fusion.outputs().size(); ++k) {
    const Val* out = fusion.outputs()[k];
    Argument actual;
    if (const Val* aliased = fusion.aliasedInput(out)) {
      const size_t at = std::find(inputs.begin(), inputs.end(), aliased) - inputs.begin();
      actual = post.arguments.at(at);
    } else {
      FUSEBOX_USER_CHECK(next < got.arguments.size(),
                         "check_outputs: {} outputs returned, the fusion has more",
                         got.arguments.size());
      actual = got.arguments[next++];
    }
    const CloseResult r =
        checkClose(asExpectedKind(actual, expected[k]), expected[k], tolerances[k]);
    if (r.pass) continue;
    problems.append(fmt::format(
        "output {} {}: {}", k, out->toString(),
        !r.shape_error.empty()
            ? r.shape_error
            : fmt::format("max abs error {:.3g} ({}); {} mismatched, first at {}", r.max_abs_error,
                          r.tolerance, r.mismatches, r.first_mismatch)));
  }
  return problems;
}

}  // namespace fusebox::python
