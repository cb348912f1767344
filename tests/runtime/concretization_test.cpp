// Concretization (concretization.h): the facts each kind of reshape and resize
// gives, the concretized fusion, the first cache level keyed by the facts,
// and concretize_resize_extents on and off; results against the evaluator.
#include <fusebox/concretization.h>
#include <fusebox/config.h>
#include <fusebox/frontend/python_definition.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/scoped_env.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace runtime_testing;

ConcretizationOptions withResizeExtents(bool on) {
  ConcretizationOptions o;
  o.resize_extents = on;
  return o;
}

// x [N, M] -> reshape to the sizes given by scalar inputs S1, S2.
std::unique_ptr<Fusion> reshapeBy2Scalars() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  Scalar* a = defineScalar(*f, DataType::Int64);
  Scalar* b = defineScalar(*f, DataType::Int64);
  f->addOutput(add(reshape(x, {a, b}), f->constantDouble(1.0)));
  return f;
}

std::string reshapeFacts(const std::vector<int64_t>& in, int64_t a, int64_t b) {
  auto f = reshapeBy2Scalars();
  Concretization c = analyzeConcretization(*f, {sampleTensor(in), a, b}, {});
  EXPECT_EQ(c.reshapes.size(), 1u);
  return c.key();
}

TEST(Concretization, EachKindOfReshapeIsItsSplitsAndMerges) {
  EXPECT_THAT(reshapeFacts({6, 4}, 6, 4), HasSubstr("keep {0}->{0}, keep {1}->{1}"));
  EXPECT_THAT(reshapeFacts({6, 4}, 3, 8), HasSubstr("merge+split {0, 1}->{0, 1}"));
  EXPECT_THAT(reshapeFacts({6, 4}, 24, 1), HasSubstr("merge {0, 1}->{0}, broadcast {}->{1}"));
  EXPECT_THAT(reshapeFacts({1, 24}, 4, 6), HasSubstr("squeeze {0}->{}, split {1}->{0, 1}"));
  EXPECT_THAT(reshapeFacts({0, 4}, 2, 0), HasSubstr("view T1_g: empty"));
}

TEST(Concretization, ASize1ReshapeOutputBecomesBroadcast) {
  auto f = reshapeBy2Scalars();
  Concretization c = analyzeConcretization(*f, {sampleTensor({6, 4}), int64_t{24}, int64_t{1}}, {});
  EXPECT_THAT(c.key(), HasSubstr("d1: Broadcast"));
  EXPECT_THAT(c.key(), HasSubstr("d0: Iteration"));
  auto concrete = concretizeFusion(*f, c);
  const TensorView* out = concrete->outputs()[0]->definition()->input(0)->as<TensorView>();
  EXPECT_TRUE(out->axis(1)->isBroadcast());
  EXPECT_EQ(out->axis(1)->extent()->value(), ScalarValue(int64_t{1}));
  EXPECT_TRUE(out->axis(0)->isIteration());
  // Another split keeps the key when every fact agrees.
  Concretization other =
      analyzeConcretization(*f, {sampleTensor({7, 4}), int64_t{28}, int64_t{1}}, {});
  EXPECT_EQ(other.key(), c.key());
  Concretization wider =
      analyzeConcretization(*f, {sampleTensor({6, 4}), int64_t{12}, int64_t{2}}, {});
  EXPECT_NE(wider.key(), c.key());
}

// T0 [N, M] sliced to [:, S1:S2], padded by (S3, S4) on the last dim.
std::unique_ptr<Fusion> sliceThenPad() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  Scalar* start = defineScalar(*f, DataType::Int64);
  Scalar* stop = defineScalar(*f, DataType::Int64);
  Scalar* left = defineScalar(*f, DataType::Int64);
  Scalar* right = defineScalar(*f, DataType::Int64);
  TensorView* s = slice(x, {f->zero(), start}, {x->axis(0)->extent(), stop}, {});
  f->addOutput(pad(s, {left, right}));
  return f;
}

TEST(Concretization, ResizeExtentsAreFactsOnlyWhenAskedFor) {
  auto f = sliceThenPad();
  std::vector<Argument> in = {sampleTensor({3, 8}), int64_t{2}, int64_t{6}, int64_t{1}, int64_t{0}};
  Concretization on = analyzeConcretization(*f, in, withResizeExtents(true));
  EXPECT_THAT(on.key(), HasSubstr("slice T1_g d1: 8 by -2 and -2"));
  EXPECT_THAT(on.key(), HasSubstr("pad T2_g d1: 4 by 1 and 0"));
  Concretization off = analyzeConcretization(*f, in, withResizeExtents(false));
  EXPECT_TRUE(off.resizes.empty());
  EXPECT_THAT(off.key(), Not(HasSubstr("by")));
  // Other bounds with the same output IterTypes: same key only when off.
  std::vector<Argument> shifted = {sampleTensor({3, 8}), int64_t{1}, int64_t{4}, int64_t{0},
                                   int64_t{2}};
  EXPECT_NE(analyzeConcretization(*f, shifted, withResizeExtents(true)).key(), on.key());
  EXPECT_EQ(analyzeConcretization(*f, shifted, withResizeExtents(false)).key(), off.key());
}

TEST(Concretization, ConstantResizeExtentsFoldIntoTheConcretizedFusion) {
  auto f = sliceThenPad();
  std::vector<Argument> in = {sampleTensor({3, 8}), int64_t{2}, int64_t{6}, int64_t{1}, int64_t{0}};
  Concretization c = analyzeConcretization(*f, in, withResizeExtents(true));
  auto concrete = concretizeFusion(*f, c);
  const auto* input = concrete->inputs()[0]->as<TensorView>();
  EXPECT_EQ(input->axis(1)->extent()->value(), ScalarValue(int64_t{8}));  // i1 := 8
  EXPECT_FALSE(input->axis(0)->extent()->isConst());                      // not resized
  const auto* out = concrete->outputs()[0]->as<TensorView>();
  EXPECT_EQ(out->axis(1)->extent()->value(), ScalarValue(int64_t{5}));
  // The concretized fusion computes what the symbolic one does.
  auto expected = evaluateFusion(*f, in);
  auto got = evaluateFusion(*concrete, in);
  ASSERT_EQ(got.size(), 1u);
  expectSameValues(got[0], expected[0]);
  // Off: the widths stay symbolic, so other widths evaluate on the same fusion.
  Concretization off = analyzeConcretization(*f, in, withResizeExtents(false));
  auto symbolic = concretizeFusion(*f, off);
  std::vector<Argument> shifted = {sampleTensor({3, 8}), int64_t{1}, int64_t{4}, int64_t{0},
                                   int64_t{2}};
  expectSameValues(evaluateFusion(*symbolic, shifted)[0], evaluateFusion(*f, shifted)[0]);
}

TEST(Concretization, PadsSlicesAndCatsThatMakeBroadcastOrEmptyDims) {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineSymbolicTensor(*f, 2);
  TensorView* y = defineSymbolicTensor(*f, 2);
  Scalar* w = defineScalar(*f, DataType::Int64);
  Scalar* stop = defineScalar(*f, DataType::Int64);
  TensorView* padded = pad(x, {w, w});  // [N, M + 2w]
  TensorView* sliced = slice(y, {f->zero(), f->zero()}, {y->axis(0)->extent(), stop}, {});
  TensorView* joined = cat({sliced, sliced}, 1);  // [K, 2 stop]
  f->addOutput(padded);
  f->addOutput(joined);
  for (bool on : {true, false}) {
    SCOPED_TRACE(on ? "resize extents on" : "resize extents off");
    // M = 3, w = -1: the pad gives size 1 (Broadcast); stop = 0: empty slice and cat.
    std::vector<Argument> in = {sampleTensor({2, 3}), sampleTensor({4, 5}), int64_t{-1},
                                int64_t{0}};
    Concretization c = analyzeConcretization(*f, in, withResizeExtents(on));
    EXPECT_THAT(c.key(), HasSubstr("T2_g d1: Broadcast"));
    EXPECT_THAT(c.key(), HasSubstr("T3_g d1: Iteration"));  // the empty slice
    auto concrete = concretizeFusion(*f, c);
    EXPECT_TRUE(concrete->outputs()[0]->as<TensorView>()->axis(1)->isBroadcast());
    auto expected = evaluateFusion(*f, in);
    auto got = evaluateFusion(*concrete, in);
    for (size_t k = 0; k < got.size(); ++k) expectSameValues(got[k], expected[k]);
    EXPECT_EQ(std::get<Tensor>(got[1]).numel(), 0);
  }
}

// The seed's ResizePadToBroadcastDynamic, as a script (examples/).
PythonDefinition padToBroadcast() {
  return parsePythonFile(std::string(FUSEBOX_SOURCE_DIR) + "/examples/pad_to_broadcast.py");
}

struct ScriptRuntime {
  Captured captured;
  std::unique_ptr<FusionRuntime> runtime;
  ScriptRuntime(PythonDefinition def, Options options) {
    RuntimeOptions o = captured.options();
    o.input_names = def.input_names;
    runtime =
        std::make_unique<FusionRuntime>(std::move(def.fusion), loadConfigFile(defaultConfigFile()),
                                        builtinPlugins(), std::move(options), o);
  }
};

std::vector<Argument> padInputs(std::vector<int64_t> widths) {
  std::vector<Argument> in = {sampleTensor({2, 3, 2, 5, 6}, 1), sampleTensor({2, 7, 4, 9, 5}, 2)};
  for (int64_t w : widths) in.emplace_back(w);
  return in;
}

TEST(Concretization, PadToBroadcastPrintsTheConcretizedFusionInBothModes) {
  for (bool on : {true, false}) {
    SCOPED_TRACE(on ? "on" : "off");
    Options options;
    options.applyEnvironmentText("test", "dump", "concretized_fusion");
    if (!on) options.applyDisableText("FUSEBOX_DISABLE", "concretize_resize_extents");
    ScriptRuntime rt(padToBroadcast(), options);
    std::vector<Argument> in = padInputs({0, -1, 0, -4, 1, 1, -1, -1});
    auto out = rt.runtime->run(in);
    expectSameValues(out[0], evaluateFusion(rt.runtime->fusion(), in)[0]);
    const std::string dump = rt.captured.dump.str();
    EXPECT_THAT(dump, HasSubstr("=== concretized fusion #1"));
    // Dims 1 and 3 of the pad have size 1: Broadcast, without contiguity.
    EXPECT_THAT(dump, HasSubstr("T2_g[ iS10{i0}, bS11{1}, "));
    EXPECT_THAT(dump, HasSubstr("contiguity: t n t n t"));
    if (on) {
      EXPECT_THAT(dump, HasSubstr("T0_g[ iS0{i0}, iS1{3}, iS2{2}, iS3{5}, iS4{6} ]"));
      EXPECT_THAT(dump, HasSubstr("{0, -1, 0, -4, 1, 1, -1, -1, 0, 0}"));
      EXPECT_THAT(dump, HasSubstr("pad T2_g d3: iS3{5} by 0 and -4 -> bS13{1}"));
    } else {
      EXPECT_THAT(dump, HasSubstr("T0_g[ iS0{i0}, iS1{i1}, iS2{i2}, iS3{i3}, iS4{i4} ]"));
      EXPECT_THAT(dump, HasSubstr("{i10, i11, i12, i13, i14, i15, i16, i17, 0, 0}"));
      EXPECT_THAT(dump, HasSubstr("(resize extents symbolic"));
    }
  }
}

TEST(Concretization, SignaturesWithTheSameFactsShareTheConcretizationAndItsPasses) {
  Options options;
  ScriptRuntime rt(padToBroadcast(), options);
  rt.runtime->run(padInputs({0, -1, 0, -4, 1, 1, -1, -1}));
  // Another batch size: same facts.
  std::vector<Argument> in = {sampleTensor({4, 3, 2, 5, 6}, 1),
                              sampleTensor({4, 7, 4, 9, 5}, 2),
                              int64_t{0},
                              int64_t{-1},
                              int64_t{0},
                              int64_t{-4},
                              int64_t{1},
                              int64_t{1},
                              int64_t{-1},
                              int64_t{-1}};
  auto out = rt.runtime->run(in);
  expectSameValues(out[0], evaluateFusion(rt.runtime->fusion(), in)[0]);
  EXPECT_TRUE(rt.runtime->lastRun().concretization_reused);
  EXPECT_EQ(rt.runtime->counters().concretizations, 1);
  EXPECT_EQ(rt.runtime->counters().pass_pipeline_runs, 1);
  EXPECT_EQ(rt.runtime->counters().segmentations, 2);
  EXPECT_EQ(rt.runtime->cacheSize(), 2u);
  EXPECT_EQ(rt.runtime->concretizationCount(), 1u);
}

// A sweep of pad widths that keep the IterTypes: with resize extents the
// kernel sees constants and compiles once per width; without them, and with
// symbolic shapes, one kernel serves every width.
int64_t kernelsCompiledOverWidths(bool resize_extents) {
  Options options;
  options.applyEnvironmentText("test", "runtime", "shapes=symbolic");
  if (!resize_extents) options.applyDisableText("FUSEBOX_DISABLE", "concretize_resize_extents");
  ScriptRuntime rt(padToBroadcast(), options);
  for (int64_t left : {-2, -1, 0, 1, 2}) {
    // The last dim: 6 + left + right = 5.
    std::vector<Argument> in = padInputs({left, -1 - left, 0, -4, 1, 1, -1, -1});
    auto out = rt.runtime->run(in);
    expectSameValues(out[0], evaluateFusion(rt.runtime->fusion(), in)[0],
                     "left width " + std::to_string(left));
  }
  EXPECT_EQ(rt.runtime->concretizationCount(), resize_extents ? 5u : 1u);
  return rt.runtime->counters().kernels_compiled;
}

TEST(Concretization, APadWidthSweepCompilesPerWidthOnlyWithResizeExtents) {
  EXPECT_EQ(kernelsCompiledOverWidths(true), 5);
  EXPECT_EQ(kernelsCompiledOverWidths(false), 1);
}

TEST(Concretization, OptionsAndTheirErrors) {
  Options options;
  EXPECT_TRUE(options.concretizeResizeExtents());
  EXPECT_EQ(options.shapes(), ShapesPolicy::Auto);  // the default (docs/perf.md)
  {
    fusebox::testing::ScopedEnv env("FUSEBOX_DISABLE", "concretize_resize_extents");
    Options from_env;
    from_env.applyEnvironment();
    EXPECT_FALSE(from_env.concretizeResizeExtents());
  }
  try {
    options.applyDisableText("FUSEBOX_DISABLE", "concretize_resize_extent");
    FAIL() << "an unknown name was accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'concretize_resize_extent' cannot be disabled"));
    EXPECT_THAT(e.what(), HasSubstr("concretize_resize_extents"));
  }
  try {
    options.applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", "shapes=dynamic");
    FAIL() << "shapes=dynamic was accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("FUSEBOX_RUNTIME"));
    EXPECT_THAT(e.what(), HasSubstr("\"static\", \"symbolic\" or \"auto\", got 'dynamic'"));
  }
  options.applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", "shapes=symbolic");
  EXPECT_EQ(options.shapes(), ShapesPolicy::Symbolic);
  options.applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", "shapes=static");
  EXPECT_EQ(options.shapes(), ShapesPolicy::Static);
}

}  // namespace
}  // namespace fusebox
