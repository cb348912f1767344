// What the runtime must give whatever runs a segment: run-time shape checks
// that kernels cannot make (symbolic sizes that disagree), scalar operands
// read in the op's compute type, squeezes of expanded dims, plans that do not
// assume how an earlier segment laid out its output, and many outputs in few
// kernels. On the host backend (kernels) and the eval backend, against values
// written out by hand.
#include <fusebox/config.h>
#include <fusebox/frontend/python_definition.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"
#include "support/row_major_fill.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

std::unique_ptr<FusionRuntime> runtimeFor(std::unique_ptr<Fusion> fusion, Captured& captured,
                                          BackendChoice backend,
                                          std::vector<std::string> input_names = {}) {
  RuntimeOptions o = captured.options();
  o.backend = backend;
  o.input_names = std::move(input_names);
  return std::make_unique<FusionRuntime>(std::move(fusion), loadConfigFile(defaultConfigFile()),
                                         builtinPlugins(), Options(), o);
}

PythonDefinition parse(const std::string& body) {
  return parsePythonDefinition(
      "from nvfuser import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n" +
          body,
      "semantics_test.py");
}

Tensor iotaTensor(const std::vector<int64_t>& sizes, DataType dtype = DataType::Float) {
  Tensor t = Tensor::empty(dtype, sizes);
  testing::fillRowMajor(t, [&](int64_t i) { return static_cast<double>(i); });
  return t;
}

class Backends : public ::testing::TestWithParam<BackendChoice> {
 protected:
  std::string runError(const std::string& body, const std::vector<Argument>& inputs) {
    PythonDefinition def = parse(body);
    Captured captured;
    auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
    try {
      rt->run(inputs);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_P(Backends, BroadcastInDimOfASymbolicInputChecksTheShapeAtRunTime) {
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.broadcast_in_dim(T0, shape=[2, 3], broadcast_dims=[1])\n"
      "    T2 = fd.ops.neg(T1)\n"
      "    fd.add_output(T2)\n";
  const std::string error = runError(body, {iotaTensor({8})});
  EXPECT_THAT(error, HasSubstr("asks for size 3 in dim 1"));
  EXPECT_THAT(error, HasSubstr("size 8, from input T0"));
  // The right size runs.
  PythonDefinition def = parse(body);
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  std::vector<Argument> out = rt->run({iotaTensor({3})});
  const Tensor& t = std::get<Tensor>(out[0]);
  ASSERT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(t.getDouble({r, c}), -static_cast<double>(c));
}

TEST_P(Backends, OperandsOfSymbolicSizesThatDisagreeAreAnError) {
  const std::string error = runError(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.add(T0, T1)\n"
      "    fd.add_output(T2)\n",
      {iotaTensor({3}), iotaTensor({5})});
  EXPECT_THAT(error, HasSubstr("operand sizes differ"));
  EXPECT_THAT(error, HasSubstr("from input T0"));
  EXPECT_THAT(error, HasSubstr("from input T1"));
}

// A dim that may be a broadcast (a slice's symbolic extent) and is 1 at run
// time stretches where the fusion takes the output's size from another
// operand (a constant), and is refused where the output's size is its own; a
// dim declared -1 never stretches. The evaluator rules the same way.
TEST_P(Backends, ASymbolicDimOfSizeOneStretchesOnlyWhereTheFusionCanTell) {
  const std::string slice =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.slice(T0, start_indices=[2], end_indices=[3], strides=[1])\n";
  PythonDefinition def = parse(slice +
                               "    T1 = fd.define_tensor(shape=[4], contiguity=[True], "
                               "dtype=DataType.Float)\n"
                               "    T4 = fd.ops.add(T2, T1)\n"
                               "    fd.add_output(T4)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  std::vector<Argument> out = rt->run({iotaTensor({8}), iotaTensor({4})});
  const Tensor& t = std::get<Tensor>(out[0]);
  ASSERT_EQ(t.sizes(), (std::vector<int64_t>{4}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(t.getDouble({i}), 2.0 + static_cast<double>(i));

  const std::string own_size = runError(
      slice +
          "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
          "    T3 = fd.ops.slice(T1, start_indices=[0], end_indices=[5], strides=[1])\n"
          "    T4 = fd.ops.add(T2, T3)\n"
          "    fd.add_output(T4)\n",
      {iotaTensor({8}), iotaTensor({8})});
  EXPECT_THAT(own_size, HasSubstr("would stretch dim 0 of the output"));

  const std::string declared = runError(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[4], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.add(T0, T1)\n"
      "    fd.add_output(T2)\n",
      {iotaTensor({1}), iotaTensor({4})});
  EXPECT_THAT(declared, HasSubstr("operand sizes differ"));
  EXPECT_THAT(declared, HasSubstr("size 1, from input T0"));
}

TEST_P(Backends, MaxOverAnEmptyDimIsAnErrorEvenWhenTheOutputIsEmpty) {
  const std::string error = runError(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.max(T0, dims=[1], keepdim=False)\n"
      "    fd.add_output(T1)\n",
      {iotaTensor({0, 0})});
  EXPECT_THAT(error, HasSubstr("max of an empty set"));
  EXPECT_THAT(error, HasSubstr("dim 1 of T0"));
}

TEST_P(Backends, AReshapeThatChangesTheElementCountIsAnError) {
  const std::string error = runError(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    S1 = fd.define_scalar(dtype=DataType.Int)\n"
      "    T2 = fd.ops.reshape(T0, new_shape=[S1, 2])\n"
      "    T3 = fd.ops.neg(T2)\n"
      "    fd.add_output(T3)\n",
      {iotaTensor({2, 3}), ScalarValue(int64_t{4})});
  EXPECT_THAT(error, HasSubstr("cannot reshape 6 elements into 8"));
}

TEST_P(Backends, ASqueezedSymbolicDimMustHaveSizeOne) {
  const std::string body =
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    S1 = fd.define_scalar(dtype=DataType.Int)\n"
      "    T2 = fd.ops.reshape(T0, new_shape=[S1])\n"
      "    T3 = fd.ops.squeeze(T2, dims=[0])\n"
      "    T4 = fd.ops.neg(T3)\n"
      "    fd.add_output(T4)\n";
  EXPECT_THAT(runError(body, {iotaTensor({3}), ScalarValue(int64_t{3})}),
              HasSubstr("cannot be squeezed: only size-1 and broadcast dims can"));
  EXPECT_THAT(runError(body, {iotaTensor({1}), ScalarValue(int64_t{1})}), "(no error)");
}

// PyTorch and nvFuser read a Python float operand in the tensor's compute
// type: float32(0.1) == 0.1 is True, and 0.1f - 0.1 is exactly 0.
TEST_P(Backends, APythonFloatOperandIsReadInTheOpsComputeType) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    S2 = fd.define_scalar(dtype=DataType.Double)\n"
      "    T3 = fd.ops.eq(T0, 0.1)\n"
      "    T4 = fd.ops.gt(T0, 0.1)\n"
      "    T5 = fd.ops.sub(T0, 0.1)\n"
      "    T6 = fd.ops.eq(T0, S2)\n"
      "    T7 = fd.ops.eq(T1, 16777216.0)\n"
      "    fd.add_output(T3)\n"
      "    fd.add_output(T4)\n"
      "    fd.add_output(T5)\n"
      "    fd.add_output(T6)\n"
      "    fd.add_output(T7)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor x = Tensor::empty(DataType::Float, {2});
  x.setDouble({0}, 0.1);  // stored as float32(0.1)
  x.setDouble({1}, 0.5);
  Tensor ints = Tensor::empty(DataType::Int64, {2});
  ints.setInt({0}, 16777217);  // rounds to 16777216 in float32
  ints.setInt({1}, 16777219);
  std::vector<Argument> out = rt->run({x, ints, ScalarValue(0.1)});
  const Tensor& eq = std::get<Tensor>(out[0]);
  const Tensor& gt = std::get<Tensor>(out[1]);
  const Tensor& sub = std::get<Tensor>(out[2]);
  const Tensor& eq_input = std::get<Tensor>(out[3]);
  const Tensor& eq_int = std::get<Tensor>(out[4]);
  EXPECT_EQ(eq.getInt({0}), 1);
  EXPECT_EQ(eq.getInt({1}), 0);
  EXPECT_EQ(gt.getInt({0}), 0);
  EXPECT_EQ(gt.getInt({1}), 1);
  EXPECT_EQ(sub.getDouble({0}), 0.0);
  EXPECT_EQ(eq_input.getInt({0}), 1) << "a Double scalar input, rounded the same way";
  EXPECT_EQ(eq_int.getInt({0}), 1) << "int64 compared with a Python float: in float32";
  EXPECT_EQ(eq_int.getInt({1}), 0);
}

TEST_P(Backends, AnExpandedDimSqueezesWithSqueezeExpanded) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.broadcast_in_dim(T0, shape=[4, -1], broadcast_dims=[1])\n"
      "    T2 = fd.ops.neg(T1)\n"
      "    T3 = fd.ops.squeeze(T1, dims=[0], squeeze_expanded=True)\n"
      "    T4 = fd.ops.mul(T3, 2.0)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T4)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  std::vector<Argument> out = rt->run({iotaTensor({3})});
  const Tensor& t4 = std::get<Tensor>(out[1]);
  ASSERT_EQ(t4.sizes(), (std::vector<int64_t>{3}));
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(t4.getDouble({i}), 2.0 * i);
}

// The fuzzer's case: a view-only segment reads a kernel's output that crosses
// the boundary as an expanded (stride-0) view.
TEST_P(Backends, AViewOfAnExpandedIntermediateAfterAKernel) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.neg(T0)\n"
      "    T2 = fd.ops.broadcast_in_dim(T1, shape=[-1, -1, 3], broadcast_dims=[0, 1])\n"
      "    T3 = fd.ops.segment_set(T2)\n"
      "    T4 = fd.ops.permute(T3, dims=[2, 0, 1])\n"
      "    fd.add_output(T4)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  for (int call = 0; call < 2; ++call) {
    std::vector<Argument> out = rt->run({iotaTensor({2, 3})});
    const Tensor& t = std::get<Tensor>(out[0]);
    ASSERT_EQ(t.sizes(), (std::vector<int64_t>{3, 2, 3}));
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 3; ++c)
          EXPECT_EQ(t.getDouble({k, r, c}), -static_cast<double>(r * 3 + c));
  }
  EXPECT_EQ(captured.diagnostics.str(), "");
}

INSTANTIATE_TEST_SUITE_P(Semantics, Backends,
                         ::testing::Values(BackendChoice::Host, BackendChoice::Eval),
                         [](const auto& info) {
                           return info.param == BackendChoice::Host ? "host" : "eval";
                         });

TEST(Semantics, AnExpandedDimNeedsSqueezeExpanded) {
  try {
    parse(
        "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
        "    T1 = fd.ops.broadcast_in_dim(T0, shape=[4, -1], broadcast_dims=[1])\n"
        "    T2 = fd.ops.squeeze(T1, dims=[0])\n"
        "    fd.add_output(T2)\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("semantics_test.py:5:"));
    EXPECT_THAT(e.what(), HasSubstr("squeeze_expanded=True"));
  }
}

// Independent outputs of one input: one kernel, not one per output (the
// KernelParams pointer limit used to split them apart).
TEST(Semantics, ManyIndependentOutputsRunInFewKernels) {
  for (int outputs : {48, 200}) {
    SCOPED_TRACE(outputs);
    auto f = std::make_unique<Fusion>();
    TensorView* x = defineSymbolicTensor(*f, 1);
    for (int k = 0; k < outputs; ++k) f->addOutput(add(x, f->constantDouble(k)));
    Captured captured;
    auto rt = runtimeFor(std::move(f), captured, BackendChoice::Host);
    std::vector<Argument> out = rt->run({iotaTensor({5})});
    const auto& segments = rt->lastRun().segments;
    // KernelParams holds 128 pointers: one input and up to 127 outputs a kernel.
    EXPECT_LE(segments.size(), static_cast<size_t>((outputs + 126) / 127));
    for (const auto& s : segments) EXPECT_EQ(s.scheduler, "pointwise");
    for (int k = 0; k < outputs; ++k) EXPECT_EQ(std::get<Tensor>(out[k]).getDouble({4}), 4.0 + k);
  }
}

// A part no kernel scheduler takes (a matmul) beside two independent
// pointwise outputs: the two share one kernel.
TEST(Semantics, IndependentPointwiseGroupsBesideAFallbackMerge) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.matmul(T0, T4)\n"
      "    T2 = fd.ops.relu(T0)\n"
      "    T3 = fd.ops.exp(T0)\n"
      "    fd.add_output(T1)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, BackendChoice::Host);
  rt->run({iotaTensor({2, 3}), iotaTensor({3, 2})});
  std::vector<std::string> ran;
  for (const auto& s : rt->lastRun().segments) ran.push_back(s.scheduler);
  EXPECT_THAT(ran, ::testing::UnorderedElementsAre("expr_eval", "pointwise"));
}

}  // namespace
}  // namespace fusebox
