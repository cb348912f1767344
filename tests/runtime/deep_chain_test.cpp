// The runtime on chains of dependent expressions: passes (verified),
// segmentation, scheduling and running give the chains' closed-form results,
// for 100,000 expressions on the eval backend (20,000 for the chain of
// 66,666 segments) and 20,000 with the default pipeline on the host backend
// (generated kernels included).
#include <fusebox/config.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/deep_chains.h"

namespace fusebox {
namespace {

using deep_chains::kHostChainLength;
using namespace runtime_testing;

std::unique_ptr<FusionRuntime> runtimeFor(std::unique_ptr<Fusion> fusion, Captured& captured,
                                          BackendChoice backend) {
  RuntimeOptions o = captured.options();
  o.backend = backend;
  Options options;
  // Every pass's result goes through the verifier and the structural hash
  // (tests/ir/deep_fusion_test.cpp has both on the longest chains).
  if (backend == BackendChoice::Host)
    options.applyEnvironmentText("test", "runtime", "verify_passes");
  return std::make_unique<FusionRuntime>(std::move(fusion), loadConfigFile(defaultConfigFile()),
                                         builtinPlugins(), options, o);
}

void expectClosedForm(const deep_chains::DeepChain& chain, int64_t length,
                      const std::vector<Argument>& got) {
  ASSERT_EQ(got.size(), 1u);
  const Tensor& out = std::get<Tensor>(got[0]);
  const deep_chains::Expected expected = chain.expected(length);
  EXPECT_EQ(out.sizes(), expected.sizes);
  EXPECT_EQ(out.toDoubles(), expected.values);
}

class DeepChainRuntime : public ::testing::TestWithParam<size_t> {
 protected:
  const deep_chains::DeepChain& chain() const { return deep_chains::allDeepChains()[GetParam()]; }
};

TEST_P(DeepChainRuntime, OnTheEvalBackend) {
  Captured captured;
  const int64_t length = chain().runtime_length;
  auto rt = runtimeFor(chain().make(length), captured, BackendChoice::Eval);
  expectClosedForm(chain(), length, rt->run(chain().inputs));
  EXPECT_EQ(captured.diagnostics.str(), "");
}

TEST_P(DeepChainRuntime, WithTheDefaultPipelineOnTheHostBackend) {
  Captured captured;
  auto rt = runtimeFor(chain().make(kHostChainLength), captured, BackendChoice::Host);
  expectClosedForm(chain(), kHostChainLength, rt->run(chain().inputs));
  EXPECT_EQ(captured.diagnostics.str(), "");
}

// A chain longer than one kernel holds (kernelgen's kMaxKernelExprs, 512)
// runs as several pointwise kernels of bounded compile time: 1,100
// negations are at least 3.
TEST(DeepChainKernels, ALongChainIsSplitIntoKernelsOfBoundedLength) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {-1}, DataType::Float);
  for (int k = 0; k < 1100; ++k) t = neg(t);
  f->addOutput(t);
  Captured captured;
  auto rt = runtimeFor(std::move(f), captured, BackendChoice::Host);
  Tensor x = Tensor::empty(DataType::Float, {5});
  for (int64_t i = 0; i < 5; ++i) x.setDouble({i}, 0.5 * static_cast<double>(i) - 1.0);
  const std::vector<Argument> out = rt->run({x});
  EXPECT_TRUE(testing::matchesExactly(out.at(0), x));  // an even number of negations
  const auto& segments = rt->lastRun().segments;
  EXPECT_GE(segments.size(), 3u);
  for (const auto& s : segments) EXPECT_EQ(s.scheduler, "pointwise");
}

// The same bound holds for a scan kernel: a cummax followed by 1,100
// negations does not become one scan kernel of 1,101 ops (whose host
// compile once took minutes); the scan kernel takes at most 512 of them.
TEST(DeepChainKernels, ALongChainAfterAScanIsSplitToo) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = scan(ReductionOpType::Max, defineTensor(*f, {-1, -1}, DataType::Float), 1);
  for (int k = 0; k < 1100; ++k) t = neg(t);
  f->addOutput(t);
  Captured captured;
  auto rt = runtimeFor(std::move(f), captured, BackendChoice::Host);
  Tensor x = Tensor::empty(DataType::Float, {2, 3});
  const double values[2][3] = {{1.0, -2.0, 3.0}, {0.5, 0.25, -1.0}};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) x.setDouble({i, j}, values[i][j]);
  const std::vector<Argument> out = rt->run({x});
  for (int64_t i = 0; i < 2; ++i) {
    double running = values[i][0];
    for (int64_t j = 0; j < 3; ++j) {
      running = std::max(running, values[i][j]);
      EXPECT_EQ(std::get<Tensor>(out.at(0)).getDouble({i, j}), running) << i << "," << j;
    }
  }
  const auto& segments = rt->lastRun().segments;
  EXPECT_GE(segments.size(), 3u);
  for (const auto& s : segments) EXPECT_THAT(s.scheduler, ::testing::AnyOf("scan", "pointwise"));
}

INSTANTIATE_TEST_SUITE_P(Chains, DeepChainRuntime,
                         ::testing::Range<size_t>(0, deep_chains::allDeepChains().size()),
                         [](const auto& info) { return deep_chains::chainTestName(info.param); });

}  // namespace
}  // namespace fusebox
