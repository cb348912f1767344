#include "differential_check.h"

#include "fuzz_case.h"

#include <fmt/format.h>
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/options.h>
#include <fusebox/runtime.h>

#include <cctype>
#include <cmath>
#include <regex>

namespace fusebox::fuzz {

std::string blurMessage(const std::string& message, size_t max_length) {
  std::string out;
  for (size_t i = 0; i < message.size() && out.size() < 4 * max_length; ++i) {
    unsigned char c = static_cast<unsigned char>(message[i]);
    if (std::isdigit(c)) {
      while (i + 1 < message.size() && std::isdigit(static_cast<unsigned char>(message[i + 1])))
        ++i;
      out += '#';
    } else if (c == '\'' && message.find('\'', i + 1) != std::string::npos &&
               message.find('\'', i + 1) - i < 80) {
      // A quoted token (a name, a character): its text varies between cases.
      i = message.find('\'', i + 1);
      out += "'_'";
    } else if (c == '[' && message.find(']', i) != std::string::npos &&
               message.find(']', i) - i < 120) {
      // Shapes and lists ("T4_g[i0, 3]", "sizes [2, 3]") vary between cases.
      i = message.find(']', i);
      out += "[_]";
    } else if (c == '\n') {
      break;
    } else {
      out += c < 0x20 || c >= 0x7f ? '?' : static_cast<char>(c);
    }
  }
  // Operand lists of any length: "slice(T#_g, #, -#, i#)" -> "slice(_...)".
  static const std::regex list(R"((-?[#]|i#|T#_g)(, (-?[#]|i#|T#_g))+)");
  out = std::regex_replace(out, list, "_...");
  // Hashes in names ("fusebox_pointwise_00009054aea89a76", blurred so far to
  // "_#aea#a#") differ per kernel.
  static const std::regex hash(R"(_[0-9a-f#]*#[0-9a-f#]*)");
  out = std::regex_replace(out, hash, "_#");
  return out.substr(0, max_length);
}

std::string CheckResult::signature() const {
  // Value and layout differences are told apart by dtype only: their messages
  // (which element, which values) differ from case to case of one bug.
  if (category == "mismatch" || category == "exact-mismatch" || category == "layout" ||
      category == "input-modified") {
    size_t open = message.find(" (");
    size_t close = message.find(')', open == std::string::npos ? 0 : open);
    std::string dtype = open != std::string::npos && close != std::string::npos
                            ? message.substr(open + 2, close - open - 2)
                            : "";
    return category + (dtype.empty() ? "" : " (" + dtype + ")");
  }
  return category + ": " + blurMessage(message);
}

namespace {

// A copy with the same sizes and strides (and so the same layout and aliasing
// of elements), for the reference run.
Argument deepCopy(const Argument& a) {
  if (!std::holds_alternative<Tensor>(a)) return a;
  const Tensor& t = std::get<Tensor>(a);
  Tensor c = Tensor::emptyStrided(t.dtype(), t.sizes(), t.strides());
  copyInto(t, c);
  return c;
}

// The script variable passed to each fd.add_output, in order.
std::vector<std::string> outputNames(const std::string& script) {
  static const std::regex add_output(R"(fd\.add_output\(\s*([A-Za-z_][A-Za-z_0-9]*))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), add_output);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1].str());
  return names;
}

bool sameBits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

struct Comparison {
  bool ok = true;
  bool small = true;  // every difference within the precision slack
  std::string what;
};

// Values of `actual` against `expected` (same dtype and sizes): exactly (as
// values: -0.0 equals 0.0), or as the tolerance model says, with the base
// tolerance of `tolerance_dtype` where a case asks for a coarser one.
Comparison compareValues(const Tensor& actual, const Tensor& expected, bool exact,
                         const OutputTolerance& model, double slack, DataType tolerance_dtype) {
  Comparison c;
  const DataType dtype = expected.dtype();
  if (!isFloatingType(dtype)) exact = true;
  OutputTolerance tol = model;
  if (tolerance_dtype != dtype) tol.base = toleranceFor(tolerance_dtype);
  // Inexact floats: the project's comparison decides; the loop below only
  // says how far off a failure is.
  if (!exact && checkClose(actual, expected, tol).pass) return c;
  const bool bitwise = !exact && tol.mode == OutputTolerance::Mode::Exact;
  const int64_t n = expected.numel();
  std::vector<int64_t> index(static_cast<size_t>(expected.dim()), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = rest % expected.sizes()[d];
      rest /= expected.sizes()[d];
    }
    bool equal;
    std::string got, want;
    if (!isFloatingType(dtype)) {
      int64_t a = actual.getInt(index), e = expected.getInt(index);
      equal = a == e;
      got = std::to_string(a);
      want = std::to_string(e);
    } else {
      double a = actual.getDouble(index), e = expected.getDouble(index);
      got = fmt::format("{}", a);
      want = fmt::format("{}", e);
      if (exact) {
        equal = sameBits(a, e);
      } else if (bitwise) {
        equal = sameBits(a, e) && (std::isnan(a) || std::signbit(a) == std::signbit(e));
        c.small = c.small && equal;
      } else if (sameBits(a, e)) {
        equal = true;
      } else if (std::isinf(tol.allowed(linear, e))) {
        equal = true;  // the model has no bound here
      } else if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
        equal = false;
        c.small = false;
      } else {
        double bound = tol.allowed(linear, e);
        equal = std::fabs(a - e) <= bound;
        if (std::fabs(a - e) > slack * bound) c.small = false;
      }
    }
    if (!equal) {
      if (c.ok) c.what = fmt::format("element {} of {}: got {}, expected {}", linear, n, got, want);
      c.ok = false;
      if (exact) c.small = false;
    }
  }
  return c;
}

// Strides only matter where there are elements: an empty tensor passes.
// "dim 1 has size 9, but its extent is the constant 3", or "" when every
// constant extent of `tv` holds in `t`.
std::string constantExtentMismatch(const TensorView& tv, const Tensor& t) {
  const auto dims = tv.logicalNoReductions();
  if (static_cast<int64_t>(dims.size()) != t.dim())
    return fmt::format("{} dims, but the fusion's output has {}", t.dim(), dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const Scalar* extent = dims[d]->logicalExtent();
    if (extent == nullptr || !extent->isConst()) continue;
    int64_t want = toInt(*extent->value());
    if (t.sizes()[d] != want)
      return fmt::format("dim {} has size {}, but its extent is the constant {}", d, t.sizes()[d],
                         want);
  }
  return {};
}

// The input with every extent above 1 one larger (equal extents stay equal,
// broadcast and empty dims stay), contiguous: a new input signature.
InputSpec resized(const InputSpec& spec) {
  InputSpec r = spec;
  for (int64_t& s : r.shape)
    if (s > 1) s += 1;
  r.strides.reset();
  r.base_shape.clear();
  r.storage_offset = 0;
  return r;
}

bool denseInOrder(const Tensor& t, const std::vector<int64_t>& order) {
  if (t.numel() == 0) return true;
  std::vector<int64_t> want = stridesForOrder(t.sizes(), order);
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] != want[d]) return false;
  return true;
}

}  // namespace

struct DifferentialChecker::Impl {
  Config config;
  PluginRegistry registry;
  Options options;
};

DifferentialChecker::DifferentialChecker(const CheckOptions& options)
    : options_(options), impl_(std::make_unique<Impl>()) {
  impl_->config = options.config_file.empty() ? loadConfig() : loadConfigFile(options.config_file);
  impl_->options.applyConfig(impl_->config);
  // The verifier after every pass: a pass that breaks an IR invariant is a
  // finding even when the result happens to be right.
  impl_->options.apply("runtime", {{"verify_passes", {true, {"fusebox_fuzz", 0, 0}}}});
  impl_->registry.discover(impl_->config.plugin_paths);
}

DifferentialChecker::~DifferentialChecker() = default;

CheckResult DifferentialChecker::check(const std::string& script, BackendChoice backend) {
  const CaseExpectations expect = readExpectations(script);
  CheckResult r;
  auto fail = [&](std::string category, std::string message) {
    r.verdict = Verdict::Fail;
    r.category = std::move(category);
    r.message = std::move(message);
    return r;
  };
  PythonDefinition def;
  try {
    def = parsePythonDefinition(script, "case.py");
  } catch (const UserError& e) {
    r.verdict = Verdict::Invalid;
    r.category = "parse";
    r.message = e.what();
    return r;
  } catch (const std::exception& e) {
    return fail("internal-error", fmt::format("parsing: {}", e.what()));
  }
  const Fusion& fusion = *def.fusion;
  const std::vector<std::string> names = outputNames(script);
  auto isExact = [&](size_t k) {
    return k < names.size() &&
           std::find(expect.exact.begin(), expect.exact.end(), names[k]) != expect.exact.end();
  };
  // The dtype whose tolerance output k gets: its own unless the case says less.
  auto toleranceDtype = [&](size_t k, DataType own) {
    for (const auto& [name, dtype] : expect.tolerance)
      if (k < names.size() && name == names[k])
        if (std::optional<DataType> d = parseDataType(dtype)) return *d;
    return own;
  };

  // The runtime keeps a pointer to its diagnostics stream for every call.
  std::ostringstream diagnostics;
  std::unique_ptr<FusionRuntime> runtime;
  const int runs = !options_.second_run                                     ? 1
                   : options_.resized_run && backend == BackendChoice::Eval ? 3
                                                                            : 2;
  bool any_small = false;
  for (int run = 0; run < runs; ++run) {
    std::vector<Argument> inputs, ref_inputs;
    std::vector<Argument> expected, actual;
    std::vector<OutputTolerance> tolerances;
    std::string ref_error, rt_error;
    try {
      for (size_t i = 0; i < def.inputs.size(); ++i)
        inputs.push_back(
            materializeInput(run == 2 ? resized(def.inputs[i]) : def.inputs[i], run * 1000 + i));
      for (const auto& a : inputs) ref_inputs.push_back(deepCopy(a));
    } catch (const UserError& e) {
      r.verdict = Verdict::Invalid;
      r.category = "inputs";
      r.message = e.what();
      return r;
    } catch (const std::exception& e) {
      return fail("internal-error", fmt::format("making inputs: {}", e.what()));
    }
    try {
      // Before the evaluator writes aliased outputs into its inputs.
      tolerances = outputTolerances(fusion, ref_inputs);
      expected = evaluateFusion(fusion, ref_inputs);
    } catch (const UserError& e) {
      ref_error = e.what();
    } catch (const std::exception& e) {
      return fail("internal-error", fmt::format("reference evaluator: {}", e.what()));
    }
    try {
      if (!runtime) {
        RuntimeOptions ro;
        ro.backend = backend;
        ro.input_names = def.input_names;
        ro.diagnostics = &diagnostics;
        std::vector<NamedSetting> disabled;
        for (const auto& name : expect.disabled_passes)
          disabled.push_back({name, {"fuzz-disable-passes", 0, 0}});
        runtime = std::make_unique<FusionRuntime>(fusion.clone(), impl_->config, impl_->registry,
                                                  impl_->options, ro, disabled);
      }
      actual = runtime->run(inputs);
      r.kernels_compiled +=
          runtime->lastRun().compile.kernels - runtime->lastRun().compile.kernels_from_cache;
    } catch (const UserError& e) {
      rt_error = e.what();
    } catch (const std::exception& e) {
      return fail("internal-error", fmt::format("runtime (run {}): {}", run + 1, e.what()));
    }
    // A later call's values may make a case invalid: an integer divisor that
    // is 0 now (division, ceil division, fmod, remainder: "integer <op> by
    // zero"), which kernels answer with 0 where the evaluator refuses; that
    // call is skipped and the first call's verdict stands. Any other refusal
    // of a later call (an index out of range with the new values, sizes that
    // no longer fit a constant in the script on the third call) the runtime
    // must make too: running it is a `reference-rejects` failure; both
    // refusing leaves the earlier verdict. A later call the evaluator accepts
    // must still agree.
    if (run >= 1 && !ref_error.empty() && ref_error.find(" by zero") != std::string::npos) break;
    // Later values or sizes refused by both (an index out of range now): the
    // earlier calls' verdict stands.
    if (run >= 1 && !ref_error.empty() && !rt_error.empty()) break;
    if (!ref_error.empty() && !rt_error.empty()) {
      r.verdict = Verdict::Invalid;
      r.category = "both-reject";
      r.message = ref_error;
      return r;
    }
    if (!rt_error.empty()) return fail("runtime-rejects", rt_error);
    if (!ref_error.empty())
      return fail("reference-rejects",
                  fmt::format("the evaluator refuses ({}) what the runtime ran{}", ref_error,
                              run == 2 ? " (third call: every extent above 1 grown by one)" : ""));

    const auto& outs = fusion.outputs();
    if (actual.size() != expected.size())
      return fail("shape", fmt::format("{} outputs, expected {}", actual.size(), expected.size()));
    for (size_t k = 0; k < expected.size(); ++k) {
      std::string out_name = k < names.size() ? names[k] : fmt::format("#{}", k);
      if (actual[k].index() != expected[k].index())
        return fail("shape", fmt::format("output {} is a {}, expected a {}", out_name,
                                         describe(actual[k]), describe(expected[k])));
      if (const auto* es = std::get_if<ScalarValue>(&expected[k])) {
        const ScalarValue& as = std::get<ScalarValue>(actual[k]);
        double a = toDouble(as), e = toDouble(*es);
        if (!sameBits(a, e) && (isIntegralType(outs[k]->dtype()) || toInt(as) != toInt(*es) ||
                                std::fabs(a - e) > 1e-12 * std::fabs(e)))
          return fail("mismatch", fmt::format("scalar output {}: got {}, expected {}", out_name,
                                              toString(as), toString(*es)));
        continue;
      }
      const Tensor& a = std::get<Tensor>(actual[k]);
      const Tensor& e = std::get<Tensor>(expected[k]);
      if (a.dtype() != e.dtype() || a.sizes() != e.sizes())
        return fail("shape", fmt::format("output {}: got {}, expected {}", out_name, a.describe(),
                                         e.describe()));
      // A dim whose extent is a constant in the IR has that size, whatever
      // the inputs (broadcast_in_dim's shape, full's shape...): a check of
      // both sides that does not trust either.
      for (const Tensor* t : {&a, &e})
        if (std::string why = constantExtentMismatch(*outs[k]->as<TensorView>(), *t); !why.empty())
          return fail("shape", fmt::format("{} output {}: {}", t == &a ? "runtime" : "evaluator",
                                           out_name, why));
      if (const auto* order = fusion.requiredStrideOrder(outs[k]->as<TensorView>()))
        if (!denseInOrder(a, *order))
          return fail("layout", fmt::format("output {} must be dense in stride order [{}], got {}",
                                            out_name, fmt::join(*order, ", "), a.describe()));
      // The generator keeps inexact values small and away from edges for the
      // first call's values only: later calls compare what must be exact.
      if (run > 0 && !isExact(k) && isFloatingType(e.dtype())) continue;
      Comparison c = compareValues(a, e, isExact(k), tolerances[k], options_.precision_slack,
                                   toleranceDtype(k, e.dtype()));
      if (!c.ok) {
        const bool exact = isExact(k) || !isFloatingType(e.dtype()) ||
                           tolerances[k].mode == OutputTolerance::Mode::Exact;
        std::string kind = exact ? "exact-mismatch" : "mismatch";
        if (!c.small || isExact(k))
          return fail(kind,
                      fmt::format("output {} ({}): {}", out_name, dtypeName(e.dtype()), c.what));
        any_small = true;
        r.message = fmt::format("output {} ({}): {}", out_name, dtypeName(e.dtype()), c.what);
      }
    }
    // Inputs after the call: aliased ones hold what the evaluator wrote into
    // its copy, the others are untouched.
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto* t = std::get_if<Tensor>(&inputs[i]);
      if (t == nullptr) continue;
      const Tensor& want = std::get<Tensor>(ref_inputs[i]);
      bool aliased = false, exact = true;
      OutputTolerance tol;  // unused for an input that must be untouched (exact)
      DataType precision = want.dtype();
      for (size_t k = 0; k < outs.size(); ++k)
        if (fusion.aliasedInput(outs[k]) == fusion.inputs()[i]) {
          aliased = true;
          exact = isExact(k);
          tol = tolerances[k];
          // What was written holds the aliasing output's rounding (a float
          // atanh cast to double), so it is compared as that output is.
          precision = toleranceDtype(k, want.dtype());
        }
      if (aliased && run > 0 && !exact && isFloatingType(want.dtype())) continue;
      Comparison c = compareValues(*t, want, exact, tol, options_.precision_slack, precision);
      if (!c.ok && (!c.small || exact))
        return fail("input-modified",
                    fmt::format("input {} ({}) after the call: {}",
                                i < def.input_names.size() ? def.input_names[i] : "?",
                                aliased ? "aliased by an output" : "not aliased", c.what));
      if (!c.ok) any_small = true;
    }
  }
  if (any_small) {
    r.verdict = Verdict::Precision;
    r.category = "precision";
  }
  return r;
}

}  // namespace fusebox::fuzz
