// Aliased outputs written into device inputs (tests/runtime/in_place_fusions.h):
// by the kernel itself where the pointwise scheduler honours the request, by
// one device copy after the call where the input is read at other elements,
// and through the host where the input's layout has gaps. Every test skips
// without a usable GPU.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/eval/tolerance.h>

#include <gmock/gmock.h>

#include "runtime/in_place_fusions.h"
#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using namespace runtime_testing;

class InPlaceCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    CudaAvailability cuda = cudaAvailable();
    if (!cuda.available) GTEST_SKIP() << "no usable GPU: " << cuda.reason;
  }
  std::unique_ptr<FusionRuntime> runtime(const PythonDefinition& def) {
    RuntimeOptions o = captured.options();
    o.backend = BackendChoice::Cuda;
    o.outputs_on_host = false;
    o.input_names = def.input_names;
    return std::make_unique<FusionRuntime>(def.fusion->clone(), loadConfigFile(defaultConfigFile()),
                                           builtinPlugins(), Options(), o);
  }
  // Runs `def` on device copies of `host` and checks the outputs and the
  // inputs after the call against the evaluator on the host.
  void expectLikeTheEvaluator(const PythonDefinition& def, FusionRuntime& rt,
                              const std::vector<Tensor>& host, const std::vector<Tensor>& device) {
    std::vector<Argument> expected_inputs;
    for (const Tensor& t : host) expected_inputs.push_back(t.clone());
    const std::vector<OutputTolerance> tolerances = outputTolerances(*def.fusion, expected_inputs);
    const std::vector<Argument> expected = evaluateFusion(*def.fusion, expected_inputs);
    std::vector<Argument> args(device.begin(), device.end());
    std::vector<Argument> got = rt.run(args);
    Backend& backend = *rt.backend();
    for (size_t k = 0; k < got.size(); ++k) {
      const CloseResult r = checkClose(Argument(backend.toHost(std::get<Tensor>(got[k]))),
                                       expected[k], tolerances[k]);
      EXPECT_TRUE(r.pass) << "output " << k << ": " << r.first_mismatch;
    }
    for (size_t i = 0; i < device.size(); ++i)
      EXPECT_TRUE(checkClose(backend.toHost(device[i]), std::get<Tensor>(expected_inputs[i])).pass)
          << "input " << i;
  }
  Captured captured;
};

std::vector<Tensor> onDevice(Backend& backend, const std::vector<Tensor>& host) {
  std::vector<Tensor> out;
  for (const Tensor& t : host) out.push_back(backend.toBackend(t));
  return out;
}

TEST_F(InPlaceCuda, AnAdamStepUpdatesItsDeviceStateInPlace) {
  const PythonDefinition def = adamStep();
  auto rt = runtime(def);
  const int64_t n = (int64_t{1} << 20) + 3;
  std::vector<Tensor> host = {sampleTensor({n}, 1), sampleTensor({n}, 2), sampleTensor({n}, 3),
                              sampleTensor({n}, 4)};
  for (Tensor& v : host) v = v.contiguous(true);
  // The second moment must be non-negative (its square root is taken).
  for (int64_t i = 0; i < n; ++i)
    static_cast<float*>(host[3].data())[i] = std::abs(static_cast<float*>(host[3].data())[i]);
  std::vector<Tensor> device = onDevice(*rt->backend(), host);
  expectLikeTheEvaluator(def, *rt, host, device);
  EXPECT_EQ(rt->counters().in_place_writes, 3);
  EXPECT_EQ(rt->counters().alias_copies, 0);
}

TEST_F(InPlaceCuda, AReadOfTheOverwrittenInputSeesItsOldValue) {
  const PythonDefinition def = overwrittenThenRead();
  auto rt = runtime(def);
  std::vector<Tensor> host = {sampleTensor({513, 1027}, 5), sampleTensor({513, 1027}, 6)};
  expectLikeTheEvaluator(def, *rt, host, onDevice(*rt->backend(), host));
  EXPECT_EQ(rt->counters().in_place_writes, 1);
}

TEST_F(InPlaceCuda, AnInputReadAtOtherElementsIsCopiedOnTheDevice) {
  const PythonDefinition def = readTransposed();
  auto rt = runtime(def);
  std::vector<Tensor> host = {sampleTensor({257, 257}, 7)};
  expectLikeTheEvaluator(def, *rt, host, onDevice(*rt->backend(), host));
  EXPECT_EQ(rt->counters().in_place_writes, 0);
  EXPECT_EQ(rt->counters().alias_copies, 1);
}

TEST_F(InPlaceCuda, AnInputWithGapsIsWrittenThroughTheHost) {
  const PythonDefinition def = overwrittenThenRead();
  auto rt = runtime(def);
  Backend& backend = *rt->backend();
  Tensor wide_host = sampleTensor({64, 32}, 8);
  Tensor wide = backend.toBackend(wide_host);
  // Every other column of the device tensor.
  Tensor x = wide.asStrided({64, 16}, {32, 2}, 0);
  Tensor x_host = wide_host.asStrided({64, 16}, {32, 2}, 0);
  std::vector<Tensor> host = {x_host, sampleTensor({64, 16}, 9)};
  expectLikeTheEvaluator(def, *rt, host, {x, backend.toBackend(host[1])});
  EXPECT_EQ(rt->counters().alias_copies, 1);
  const Tensor after = backend.toHost(wide);
  for (int64_t c = 1; c < 32; c += 2)
    EXPECT_EQ(after.getDouble({0, c}), wide_host.getDouble({0, c})) << "untouched column " << c;
}

}  // namespace
}  // namespace fusebox
