// The runtime's cache: the same input signature skips passes, segmentation,
// heuristics and scheduling; different sizes, strides, dtypes, alignment or
// shape-feeding scalar values miss (other sizes with the same concretization
// keep the passes: concretization_test.cpp).
#include <fusebox/config.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

// T4 = T0 * S2 + T1 with symbolic 2-D inputs.
std::unique_ptr<Fusion> scaleAdd() {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 2);
  TensorView* t1 = defineSymbolicTensor(*f, 2);
  Scalar* s2 = defineScalar(*f, DataType::Double);
  f->addOutput(add(mul(t0, s2), t1));
  return f;
}

struct DefaultRuntime {
  Captured captured;
  std::unique_ptr<FusionRuntime> runtime;
  explicit DefaultRuntime(std::unique_ptr<Fusion> fusion) {
    RuntimeOptions o = captured.options();
    o.input_names = {"T0", "T1", "S2"};
    runtime = std::make_unique<FusionRuntime>(
        std::move(fusion), loadConfigFile(defaultConfigFile()), builtinPlugins(), Options(), o);
  }
  FusionRuntime* operator->() { return runtime.get(); }
};

void expectMatchesEvaluator(FusionRuntime& rt, const std::vector<Argument>& inputs,
                            const std::vector<Argument>& outputs) {
  auto expected = evaluateFusion(rt.fusion(), inputs);
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t i = 0; i < outputs.size(); ++i) expectSameValues(outputs[i], expected[i]);
}

TEST(RuntimeCache, SameSignatureSkipsPassesSegmentationHeuristicsAndScheduling) {
  DefaultRuntime rt(scaleAdd());
  Tensor a = sampleTensor({2, 3}, 1), b = sampleTensor({2, 3}, 2);
  std::vector<Argument> inputs = {a, b, 2.0};
  auto first = rt->run(inputs);
  expectMatchesEvaluator(*rt.runtime, inputs, first);
  RuntimeCounters c = rt->counters();
  EXPECT_EQ(c.cache_misses, 1);
  EXPECT_EQ(c.cache_hits, 0);
  EXPECT_EQ(c.pass_pipeline_runs, 1);
  EXPECT_EQ(c.segmentations, 1);
  const int64_t groups = static_cast<int64_t>(rt->lastSegmentation().groups().size());
  // Each group planned once, with the proposal the segmenter kept: no
  // scheduler was asked again.
  EXPECT_EQ(c.plans_made, groups);
  EXPECT_EQ(c.proposals_reused, groups);
  EXPECT_EQ(c.proposals_made, 0);
  EXPECT_FALSE(rt->lastRun().cache_hit);

  auto second = rt->run(inputs);
  expectMatchesEvaluator(*rt.runtime, inputs, second);
  c = rt->counters();
  EXPECT_EQ(c.cache_misses, 1);
  EXPECT_EQ(c.cache_hits, 1);
  EXPECT_EQ(c.pass_pipeline_runs, 1);
  EXPECT_EQ(c.segmentations, 1);
  EXPECT_EQ(c.plans_made, groups);
  EXPECT_EQ(c.proposals_made, 0);
  EXPECT_EQ(c.segments_run, 2 * groups);
  EXPECT_TRUE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().setup_milliseconds, 0);
  EXPECT_EQ(rt->cacheSize(), 1u);
}

TEST(RuntimeCache, FreshTensorsOfTheSameLayoutHit) {
  DefaultRuntime rt(scaleAdd());
  rt->run({sampleTensor({2, 3}, 1), sampleTensor({2, 3}, 2), 2.0});
  std::vector<Argument> other = {sampleTensor({2, 3}, 5), sampleTensor({2, 3}, 6), 2.0};
  auto out = rt->run(other);
  EXPECT_TRUE(rt->lastRun().cache_hit);
  expectMatchesEvaluator(*rt.runtime, other, out);
}

TEST(RuntimeCache, AScalarThatFeedsNoShapeChangesWithoutAMiss) {
  DefaultRuntime rt(scaleAdd());
  Tensor a = sampleTensor({2, 3}, 1), b = sampleTensor({2, 3}, 2);
  rt->run({a, b, 2.0});
  std::vector<Argument> inputs = {a, b, 3.0};
  auto out = rt->run(inputs);
  EXPECT_TRUE(rt->lastRun().cache_hit);
  // The plan did not bake in 2.0: element (0, 0) is a*3 + b.
  EXPECT_EQ(std::get<Tensor>(out[0]).getDouble({0, 0}),
            a.getDouble({0, 0}) * 3.0 + b.getDouble({0, 0}));
  expectMatchesEvaluator(*rt.runtime, inputs, out);
}

TEST(RuntimeCache, OtherSizesMissAndBothEntriesStay) {
  DefaultRuntime rt(scaleAdd());
  rt->run({sampleTensor({2, 3}), sampleTensor({2, 3}), 2.0});
  std::vector<Argument> bigger = {sampleTensor({4, 3}), sampleTensor({4, 3}, 1), 2.0};
  auto out = rt->run(bigger);
  EXPECT_FALSE(rt->lastRun().cache_hit);
  expectMatchesEvaluator(*rt.runtime, bigger, out);
  EXPECT_EQ(rt->counters().segmentations, 2);
  // Both sizes concretize alike: the passes ran once.
  EXPECT_EQ(rt->counters().pass_pipeline_runs, 1);
  EXPECT_EQ(rt->counters().concretizations, 1);
  EXPECT_EQ(rt->cacheSize(), 2u);
  rt->run({sampleTensor({2, 3}), sampleTensor({2, 3}), 2.0});
  EXPECT_TRUE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->counters().segmentations, 2);
}

TEST(RuntimeCache, OtherStridesMiss) {
  DefaultRuntime rt(scaleAdd());
  rt->run({sampleTensor({2, 3}), sampleTensor({2, 3}), 2.0});
  // The same sizes, column-major.
  Tensor transposed = sampleTensor({3, 2}).asStrided({2, 3}, {1, 2}, 0);
  std::vector<Argument> inputs = {transposed, sampleTensor({2, 3}), 2.0};
  auto out = rt->run(inputs);
  EXPECT_FALSE(rt->lastRun().cache_hit);
  EXPECT_THAT(rt->lastRun().signature, HasSubstr("float[2, 3]{1, 2}@"));
  expectMatchesEvaluator(*rt.runtime, inputs, out);
}

TEST(RuntimeCache, OtherAlignmentMisses) {
  DefaultRuntime rt(scaleAdd());
  rt->run({sampleTensor({2, 3}), sampleTensor({2, 3}), 2.0});
  // One float into a 64-byte aligned storage: the data sits 4 bytes off.
  Tensor shifted = sampleTensor({7}).asStrided({2, 3}, {3, 1}, 1);
  auto out = rt->run({shifted, sampleTensor({2, 3}), 2.0});
  EXPECT_FALSE(rt->lastRun().cache_hit);
  EXPECT_EQ(rt->lastRun().signature, "float[2, 3]{3, 1}@4; float[2, 3]{3, 1}@16; double");
  expectMatchesEvaluator(*rt.runtime, {shifted, sampleTensor({2, 3}), 2.0}, out);
}

TEST(RuntimeCache, AnotherDtypeMissesAndFailsValidationNamingTheInput) {
  DefaultRuntime rt(scaleAdd());
  rt->run({sampleTensor({2, 3}), sampleTensor({2, 3}), 2.0});
  std::vector<Argument> doubles = {sampleTensor({2, 3}, 0, DataType::Double), sampleTensor({2, 3}),
                                   2.0};
  try {
    rt->run(doubles);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("T0"));
    EXPECT_THAT(e.what(), HasSubstr("double"));
  }
  EXPECT_EQ(rt->counters().cache_misses, 2);
  EXPECT_EQ(rt->cacheSize(), 1u);  // a failed run keeps nothing
}

TEST(RuntimeCache, ShapeScalarsAreKeyedByValue) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 1);
  Scalar* rows = defineScalar(*f, DataType::Int64);
  Scalar* cols = defineScalar(*f, DataType::Int64);
  f->addOutput(reshape(t0, {rows, cols}));
  EXPECT_EQ(shapeScalarInputs(*f), (std::vector<bool>{false, true, true}));

  Captured captured;
  FusionRuntime rt(std::move(f), loadConfigFile(defaultConfigFile()), builtinPlugins(), Options(),
                   captured.options());
  Tensor t = sampleTensor({6});
  auto a = rt.run({t, int64_t{2}, int64_t{3}});
  EXPECT_EQ(std::get<Tensor>(a[0]).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rt.lastRun().signature, "float[6]{1}@16; int=2; int=3");
  auto b = rt.run({t, int64_t{3}, int64_t{2}});
  EXPECT_FALSE(rt.lastRun().cache_hit);
  EXPECT_EQ(std::get<Tensor>(b[0]).sizes(), (std::vector<int64_t>{3, 2}));
  rt.run({t, int64_t{2}, int64_t{3}});
  EXPECT_TRUE(rt.lastRun().cache_hit);
}

TEST(RuntimeCache, ShapeScalarInputsFollowScalarArithmetic) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  Scalar* factor = defineScalar(f, DataType::Double);  // a multiplier: values only
  Scalar* base = defineScalar(f, DataType::Int64);     // iota length through base + 1
  Scalar* width = defineScalar(f, DataType::Int64);    // a pad width
  Scalar* fill = defineScalar(f, DataType::Double);    // a fill value: values only
  Scalar* n = defineScalar(f, DataType::Int64);        // a full() extent
  f.addOutput(mul(t0, factor));
  f.addOutput(iota(f, add(base, f.one()), f.zero(), f.one(), DataType::Int64));
  f.addOutput(pad(t0, {width, f.zero()}));
  f.addOutput(full(f, {n}, fill, DataType::Float));
  EXPECT_EQ(shapeScalarInputs(f), (std::vector<bool>{false, false, true, true, false, true}));
}

TEST(RuntimeCache, SignatureTextIsCanonical) {
  Tensor t = sampleTensor({2, 3});
  EXPECT_EQ(inputSignature({t, int64_t{4}, 0.5, true}, {false, true, false, false}),
            "float[2, 3]{3, 1}@16; int=4; double; bool");
  EXPECT_EQ(recordedAlignment(reinterpret_cast<const void*>(uintptr_t{0x1008})), 8);
  EXPECT_EQ(recordedAlignment(reinterpret_cast<const void*>(uintptr_t{0x1000})), 16);
  EXPECT_EQ(recordedAlignment(reinterpret_cast<const void*>(uintptr_t{0x1002})), 2);
}

}  // namespace
}  // namespace fusebox
