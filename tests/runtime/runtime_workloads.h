// The examples and benchmark workloads with small inputs, and which scheduler
// runs each of their segments: shared by the host (tests/runtime) and cuda
// (tests/runtime_gpu) runtime suites.
#pragma once

#include <fusebox/eval/check_close.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/runtime.h>

#include <gmock/gmock.h>

#include <map>
#include <string>
#include <vector>

namespace fusebox::runtime_testing {

struct Workload {
  std::string file;
  std::map<std::string, std::vector<int64_t>> smaller;  // input name -> sizes
  // One per segment, in run order.
  std::vector<std::string> schedulers;
};

// Which scheduler runs each segment, by hand: fusions without reductions or
// matmuls are one pointwise kernel; the cast chain of issue 3635 folds away
// into a view (no_op); a reduction with its pointwise prologue, epilogue and
// outputs beside it is one reduction kernel (nvFuser issue 785); layer norm
// needs a persistent buffer, so its statistics are one reduction kernel and
// the normalization a pointwise one.
inline const std::vector<Workload> kWorkloads = {
    {"examples/bias_gelu.py", {{"T0", {8, 64}}, {"T1", {64}}}, {"pointwise"}},
    {"examples/cast_squeeze_issue3635.py", {}, {"no_op"}},
    {"examples/channels_last_relu.py", {}, {"pointwise"}},
    {"examples/gelu_bias_grad.py",
     {{"T0", {2, 8, 16}}, {"T1", {2, 8, 16}}, {"T2", {16}}},
     {"reduction"}},
    {"examples/layer_norm.py", {{"T0", {4, 32}}, {"T1", {32}}, {"T2", {32}}}, {"inner_persistent"}},
    {"examples/rope.py", {}, {"pointwise"}},
    // gather_before_pointwise: the row kernel keeps per-row values only and
    // the mean over the rows picks the target logits itself.
    {"examples/cross_entropy.py",
     {{"T0", {6, 200}}, {"T1", {6}}},
     {"inner_persistent", "reduction"}},
    {"examples/segmented_issue785.py", {{"T4", {2, 8, 16}}, {"T6", {2, 8, 16}}}, {"reduction"}},
    {"benchmarks/workloads/bf16_cast_mul_add.py",
     {{"T0", {8, 66}}, {"T1", {8, 66}}, {"T2", {8, 66}}},
     {"pointwise"}},
    {"benchmarks/workloads/bias_gelu.py", {{"T0", {8, 130}}, {"T1", {130}}}, {"pointwise"}},
    // b read through the transpose scheduler's tile; partial tiles both ways.
    {"benchmarks/workloads/transpose_add_f32.py",
     {{"T0", {67, 130}}, {"T1", {130, 67}}},
     {"transpose"}},
    // Three outputs aliased to inputs (written in place on cuda).
    {"benchmarks/workloads/adam_step_f32.py",
     {{"T0", {1003}}, {"T1", {1003}}, {"T2", {1003}}, {"T3", {1003}}},
     {"pointwise"}},
    {"benchmarks/workloads/broadcast_heavy.py",
     {{"T0", {4, 8, 16}}, {"T1", {8}}, {"T2", {16}}, {"T3", {4}}},
     {"pointwise"}},
    {"benchmarks/workloads/gelu_backward_pointwise.py",
     {{"T0", {2, 8, 17}}, {"T1", {2, 8, 17}}, {"T2", {17}}},
     {"pointwise"}},
    {"benchmarks/workloads/layernorm_fwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {200}}, {"T2", {200}}},
     {"inner_persistent"}},
    {"benchmarks/workloads/rmsnorm_fwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {200}}},
     {"inner_persistent"}},
    {"benchmarks/workloads/softmax_fwd_bf16.py", {{"T0", {6, 200}}}, {"inner_persistent"}},
    {"benchmarks/workloads/cross_entropy_smoothed_bf16.py",
     {{"T0", {6, 200}}, {"T1", {6}}},
     {"inner_persistent", "reduction"}},
    // The softmax minus the one-hot (iota == target), scaled: one row kernel.
    {"benchmarks/workloads/cross_entropy_bwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {6}}},
     {"inner_persistent"}},
    {"benchmarks/workloads/softmax_bwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {6, 200}}},
     {"inner_persistent"}},
    // Inner-outer: grad input, grad weight and grad bias in one cooperative kernel.
    {"benchmarks/workloads/layernorm_bwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {6, 200}}, {"T2", {6}}, {"T3", {6}}, {"T4", {200}}},
     {"inner_outer_persistent"}},
    {"benchmarks/workloads/rmsnorm_bwd_bf16.py",
     {{"T0", {6, 200}}, {"T1", {6, 200}}, {"T2", {6}}, {"T3", {200}}},
     {"inner_outer_persistent"}},
};

// The schedulers of a run's segments against the table: exactly those listed
// (none is expr_eval: every segment of these workloads is a kernel or a view).
inline void expectRanAsExpected(const Workload& w, const std::vector<std::string>& ran) {
  EXPECT_EQ(ran, w.schedulers);
}

// `call` picks other floating values of the same shapes (a second call of a
// cached fusion must not find what the first left in kept scratch); integer
// inputs, indices among them, stay those of call 0, which are in range.
inline std::vector<Argument> inputsFor(const PythonDefinition& def, const Workload& w,
                                       uint64_t call = 0) {
  std::vector<Argument> inputs;
  for (size_t i = 0; i < def.fusion->inputs().size(); ++i) {
    const std::string& name = def.input_names[i];
    const uint64_t other = isIntegralType(def.fusion->inputs()[i]->dtype()) ? 0 : 1000 * call;
    if (auto it = w.smaller.find(name); it != w.smaller.end()) {
      InputSpec spec;
      spec.shape = it->second;
      spec.dtype = def.fusion->inputs()[i]->dtype();
      inputs.push_back(materializeInput(spec, 100 + i + other));
    } else {
      inputs.push_back(materializeInput(def.inputs.at(i), i + other));
    }
  }
  return inputs;
}

// Call `call` of workload `w` through `rt` (inputsFor): the schedulers that
// ran its segments are the table's, a call after the first is a cache hit,
// and every output matches the evaluator. Returns the outputs.
inline std::vector<Argument> expectWorkloadCallMatches(FusionRuntime& rt,
                                                       const PythonDefinition& def,
                                                       const Workload& w, uint64_t call) {
  SCOPED_TRACE(call);
  std::vector<Argument> inputs = inputsFor(def, w, call);
  const std::vector<OutputTolerance> tolerances = outputTolerances(*def.fusion, inputs);
  std::vector<Argument> expected = evaluateFusion(*def.fusion, inputs);
  std::vector<Argument> got = rt.run(inputs);
  EXPECT_EQ(rt.lastRun().cache_hit, call > 0);
  std::vector<std::string> ran;
  for (const auto& s : rt.lastRun().segments) ran.push_back(s.scheduler);
  expectRanAsExpected(w, ran);
  EXPECT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size() && k < expected.size(); ++k) {
    CloseResult r = checkClose(got[k], expected[k], tolerances[k]);
    EXPECT_TRUE(r.pass) << "output " << k << ": " << r.shape_error << r.first_mismatch;
  }
  return got;
}

}  // namespace fusebox::runtime_testing
