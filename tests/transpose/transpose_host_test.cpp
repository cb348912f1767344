// The transpose scheduler on the host backend (the same kernel source as on
// the GPU): each case against the reference evaluator, bit for bit (the
// kernel computes each element with the same ops), and which scheduler took
// it; the reasons it leaves a segment to pointwise.
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/runtime.h>

#include <gmock/gmock.h>

#include <sstream>

#include "runtime/runtime_test_util.h"
#include "support/output_match.h"
#include "transpose/transpose_cases.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace transpose_testing;
using runtime_testing::builtinPlugins;

class TransposeHost : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(TransposeHost, MatchesTheEvaluatorAndRunsOnTheExpectedScheduler) {
  const TransposeCase& c = GetParam();
  const PythonDefinition def = parseCase(c);
  std::ostringstream dump, diagnostics;
  RuntimeOptions o;
  o.backend = BackendChoice::Host;
  o.dump = &dump;
  o.diagnostics = &diagnostics;
  o.input_names = def.input_names;
  Options options;
  options.applyEnvironmentText("test", "dump", "segmenter_log");
  FusionRuntime rt(def.fusion->clone(), loadConfigFile(defaultConfigFile()), builtinPlugins(),
                   std::move(options), o);
  const std::vector<Argument> inputs(c.inputs.begin(), c.inputs.end());
  const std::vector<Argument> expected = evaluateFusion(*def.fusion, inputs);
  const std::vector<Argument> got = rt.run(inputs);
  ASSERT_EQ(rt.lastRun().segments.size(), 1u) << dump.str();
  EXPECT_EQ(rt.lastRun().segments[0].scheduler, c.scheduler) << dump.str();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(testing::matchesExactly(got[k], expected[k])) << "output " << k;
    // Outputs keep the layout the fusion asks for.
    if (const auto* order =
            def.fusion->requiredStrideOrder(def.fusion->outputs()[k]->as<TensorView>())) {
      EXPECT_EQ(std::get<Tensor>(got[k]).strides(),
                stridesForOrder(std::get<Tensor>(got[k]).sizes(), *order));
    }
  }
  if (c.scheduler == "pointwise") {
    EXPECT_THAT(dump.str(), HasSubstr("transpose: run time: "));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TransposeHost, ::testing::ValuesIn(transposeCases()),
                         [](const auto& info) { return info.param.name; });

TEST(TransposeRefuses, WithTheReasonInTheSegmenterLog) {
  for (const TransposeCase& c : transposeCases()) {
    if (c.scheduler != "pointwise") continue;
    SCOPED_TRACE(c.name);
    const PythonDefinition def = parseCase(c);
    std::ostringstream dump, diagnostics;
    RuntimeOptions o;
    o.backend = BackendChoice::Host;
    o.dump = &dump;
    o.diagnostics = &diagnostics;
    Options options;
    options.applyEnvironmentText("test", "dump", "segmenter_log");
    FusionRuntime rt(def.fusion->clone(), loadConfigFile(defaultConfigFile()), builtinPlugins(),
                     std::move(options), o);
    rt.run(std::vector<Argument>(c.inputs.begin(), c.inputs.end()));
    EXPECT_THAT(dump.str(),
                HasSubstr(c.name == "narrow" ? "a tile needs 32 of each" : "nothing to transpose"));
  }
}

}  // namespace
}  // namespace fusebox
