// The transpose scheduler's cases (tests/transpose/transpose_cases.h) on the
// GPU: the same scheduler takes each, and the outputs match the evaluator
// bit for bit. Every test skips without a usable GPU.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/config.h>
#include <fusebox/eval/evaluator.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/output_match.h"
#include "transpose/transpose_cases.h"

namespace fusebox {
namespace {

using namespace transpose_testing;

class TransposeCuda : public ::testing::TestWithParam<TransposeCase> {
 protected:
  void SetUp() override {
    CudaAvailability cuda = cudaAvailable();
    if (!cuda.available) GTEST_SKIP() << "no usable GPU: " << cuda.reason;
  }
};

TEST_P(TransposeCuda, MatchesTheEvaluatorOnTheExpectedScheduler) {
  const TransposeCase& c = GetParam();
  const PythonDefinition def = parseCase(c);
  runtime_testing::Captured captured;
  RuntimeOptions o = captured.options();
  o.backend = BackendChoice::Cuda;
  o.input_names = def.input_names;
  FusionRuntime rt(def.fusion->clone(), loadConfigFile(defaultConfigFile()),
                   runtime_testing::builtinPlugins(), Options(), o);
  const std::vector<Argument> inputs(c.inputs.begin(), c.inputs.end());
  const std::vector<Argument> expected = evaluateFusion(*def.fusion, inputs);
  const std::vector<Argument> got = rt.run(inputs);
  ASSERT_EQ(rt.lastRun().segments.size(), 1u);
  EXPECT_EQ(rt.lastRun().segments[0].scheduler, c.scheduler);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_TRUE(testing::matchesExactly(got[k], expected[k])) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(Cases, TransposeCuda, ::testing::ValuesIn(transposeCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace fusebox
