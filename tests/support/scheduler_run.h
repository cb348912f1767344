// Shared by the kernel scheduler suites (pointwise, reduction; host backend
// and cuda): a built-in scheduler plugin loaded from the build tree, random
// inputs, a driver that runs a KernelPlan on a backend (outputs, scratch and
// KernelParams through the runtime's own kernel_launch.h), and a comparison
// with the reference evaluator.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/kernel_launch.h>
#include <fusebox/kernel_plan.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/runtime.h>
#include <fusebox/scheduler.h>

#include <gtest/gtest.h>

#include "support/output_match.h"
#include "support/scheduler_answers.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace fusebox::test {

// A built-in scheduler plugin, loaded from the build tree (one registry per
// plugin; objects are fresh, so options set on one do not leak into another).
inline std::shared_ptr<Scheduler> builtinScheduler(const std::string& name) {
  static std::map<std::string, PluginRegistry*> registries;
  PluginRegistry*& registry = registries[name];
  if (registry == nullptr) {
    registry = new PluginRegistry();
    registry->addLibrary(std::string(FUSEBOX_BINARY_DIR) +
                         "/lib/fusebox/plugins/libfusebox_scheduler_" + name + ".so");
  }
  return std::static_pointer_cast<Scheduler>(registry->createObject(name, PluginKind::Scheduler));
}

// Uniform values in [-2, 2] (integers in [-50, 50], bools half true).
inline Tensor randomTensor(DataType dtype, std::vector<int64_t> sizes, uint32_t seed) {
  Tensor t = Tensor::empty(dtype, sizes);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> integer(-50, 50);
  const int64_t n = t.numel();
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i;
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    if (isFloatingType(dtype))
      t.setDouble(index, real(gen));
    else if (dtype == DataType::Bool)
      t.setInt(index, integer(gen) > 0 ? 1 : 0);
    else
      t.setInt(index, integer(gen));
  }
  return t;
}

// The shape mode a run uses when the call names none: Static, or what a
// fixture that runs the shared cases (pointwise_cases.inc, ...) over symbolic
// sizes sets for its tests.
inline ShapeMode& casesShapeMode() {
  static ShapeMode mode = ShapeMode::Static;
  return mode;
}

// A fixture base that runs its tests over symbolic sizes (the shared cases
// included, through casesShapeMode).
class SymbolicShapesFixture : public ::testing::Test {
 protected:
  void SetUp() override { casesShapeMode() = ShapeMode::Symbolic; }
  void TearDown() override { casesShapeMode() = ShapeMode::Static; }
};

struct SchedulerRun {
  // A refusal of the structure (compile time) or of these inputs (run time).
  Decision compile_time = Decision::accept();
  Decision run_time = Decision::accept();
  std::string params;  // HeuristicParams::toString()
  std::shared_ptr<const HeuristicParams> heuristics;
  std::string source;
  KernelPlan plan;
  std::vector<Tensor> outputs;  // host copies
};

// Runs `fusion` through a kernel scheduler and a backend. Input views
// (offsets, strides) are reproduced on the backend exactly.
inline SchedulerRun runScheduler(Scheduler& scheduler, Backend& backend, const Fusion& fusion,
                                 const std::vector<Argument>& inputs,
                                 const DeviceProperties& device = {},
                                 ShapeMode shape_mode = casesShapeMode()) {
  SchedulerRun r;
  std::vector<Argument> backend_inputs;
  std::vector<ArgumentInfo> infos;
  for (const Argument& a : inputs) {
    if (const auto* t = std::get_if<Tensor>(&a)) {
      const int64_t esize = t->elementSize();
      Tensor base =
          Tensor::fromBlob(t->storage()->data, t->dtype(), {t->storage()->nbytes / esize}, {1});
      Tensor on_backend =
          backend.toBackend(base).asStrided(t->sizes(), t->strides(), t->storageOffset());
      backend_inputs.emplace_back(on_backend);
    } else {
      backend_inputs.push_back(a);
    }
    infos.push_back(argumentInfo(backend_inputs.back()));
  }
  RuntimeInfo info(fusion, infos, device, shape_mode);
  CompileTimeCache cache;
  Answer answer = scheduler.propose(fusion, info, cache);
  if (!answer.proposed()) {
    (answer.refusal().structural() ? r.compile_time : r.run_time) =
        Decision::reject(answer.refusal().reason());
    return r;
  }
  std::unique_ptr<Proposal> proposal = answer.takeProposal();
  std::shared_ptr<const HeuristicParams> params = proposal->params();
  r.params = params->toString();
  r.heuristics = params;
  auto plan = proposal->makePlan();
  auto* kp = dynamic_cast<KernelPlan*>(plan.get());
  EXPECT_NE(kp, nullptr);
  if (kp == nullptr) return r;
  r.plan = *kp;
  r.source = kp->kernel.source;
  // The runtime's own allocation and binding (kernel_launch.h).
  std::vector<Tensor> outs = allocateKernelOutputs(backend, *kp);
  SharedScratch shared;
  const std::vector<Tensor> scratch = allocateKernelScratch(backend, *kp, shared);
  const KernelParams kparams = bindKernelParams(*kp, backend_inputs, outs, scratch);
  auto kernel = backend.compile(kp->kernel);
  kernel->launch(kp->launch, kparams);
  checkIndexErrors(shared.index_errors.get());
  backend.synchronize();
  for (const Tensor& o : outs) r.outputs.push_back(backend.toHost(o));
  return r;
}

// Runs on the backend and compares every output with evaluateFusion: values
// as the tolerance model says (fusebox/eval/tolerance.h: data movement bit for
// bit, integers exactly, other floats within the dtype's tolerance), and the
// layout with the evaluator's (the layout the fusion asks for).
inline SchedulerRun expectSchedulerMatchesEvaluator(Scheduler& scheduler, Backend& backend,
                                                    const Fusion& fusion,
                                                    const std::vector<Argument>& inputs,
                                                    const DeviceProperties& device = {},
                                                    ShapeMode shape_mode = casesShapeMode()) {
  SchedulerRun r = runScheduler(scheduler, backend, fusion, inputs, device, shape_mode);
  // FUSEBOX_TEST_PRINT_SOURCE=1 shows each generated kernel (for docs and debugging).
  if (std::getenv("FUSEBOX_TEST_PRINT_SOURCE") != nullptr) std::cout << r.source << std::endl;
  EXPECT_TRUE(r.compile_time.accepted()) << r.compile_time.reason();
  EXPECT_TRUE(r.run_time.accepted()) << r.run_time.reason();
  if (!r.compile_time || !r.run_time) return r;
  const std::vector<OutputTolerance> tolerances = outputTolerances(fusion, inputs);
  const std::vector<Argument> expected = evaluateFusion(fusion, inputs);
  EXPECT_EQ(expected.size(), r.outputs.size());
  for (size_t k = 0; k < expected.size() && k < r.outputs.size(); ++k) {
    const Tensor& want = std::get<Tensor>(expected[k]);
    const Tensor& got = r.outputs[k];
    if (want.sizes() == got.sizes()) {
      EXPECT_EQ(want.strides(), got.strides()) << "output " << k;
    }
    EXPECT_TRUE(testing::matchesWithin(got, want, tolerances[k])) << "output " << k << "\n"
                                                                  << r.source;
  }
  return r;
}

// The value of one "name: value" line of a params dump.
inline std::string paramLine(const std::string& params, const std::string& name) {
  const std::string key = name + ": ";
  size_t at = params.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return params.substr(at, params.find('\n', at) - at);
}

}  // namespace fusebox::test
