// Aliased outputs written over their inputs by the kernel itself: the
// runtime asks (RuntimeInfo::inPlaceRequests) when the input is read by that
// segment alone, the pointwise scheduler honours it when the input is read
// element for element, and the runtime passes the caller's tensor as the
// output. Every read still sees the value from before the call; where any
// condition fails, the output is copied in after the call as before.
#include <fusebox/config.h>
#include <fusebox/eval/check_close.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/eval/tolerance.h>

#include <gmock/gmock.h>

#include "runtime/in_place_fusions.h"
#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace runtime_testing;

std::unique_ptr<FusionRuntime> hostRuntime(const PythonDefinition& def, Captured& captured,
                                           const std::string& dumps = "") {
  RuntimeOptions o = captured.options();
  o.input_names = def.input_names;
  Options options;
  if (!dumps.empty()) options.applyEnvironmentText("test", "dump", dumps);
  return std::make_unique<FusionRuntime>(def.fusion->clone(), loadConfigFile(defaultConfigFile()),
                                         builtinPlugins(), std::move(options), o);
}

Tensor ramp(const std::vector<int64_t>& sizes, double start, double step) {
  Tensor t = Tensor::empty(DataType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float*>(t.data())[i] =
        static_cast<float>(start + step * static_cast<double>(i % 97));
  return t;
}

std::vector<Argument> clones(const std::vector<Argument>& args) {
  std::vector<Argument> out;
  for (const Argument& a : args)
    out.push_back(std::holds_alternative<Tensor>(a) ? Argument(std::get<Tensor>(a).clone()) : a);
  return out;
}

// The inputs after the call and the outputs, against the evaluator's.
void expectEvaluatorValues(const Fusion& fusion, const std::vector<Argument>& before,
                           const std::vector<Argument>& after, const std::vector<Argument>& got) {
  std::vector<Argument> expected_inputs = clones(before);
  const std::vector<OutputTolerance> tolerances = outputTolerances(fusion, expected_inputs);
  const std::vector<Argument> expected = evaluateFusion(fusion, expected_inputs);
  for (size_t k = 0; k < got.size(); ++k) {
    const CloseResult r = checkClose(got[k], expected[k], tolerances[k]);
    EXPECT_TRUE(r.pass) << "output " << k << ": " << r.first_mismatch;
  }
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_TRUE(checkClose(std::get<Tensor>(after[i]), std::get<Tensor>(expected_inputs[i])).pass)
        << "input " << i;
}

TEST(InPlaceWrites, AnAdamStepUpdatesItsStateInPlaceInOneKernel) {
  const PythonDefinition def = adamStep();
  Captured captured;
  auto rt = hostRuntime(def, captured, "scheduler_params,kernel_source");
  // 1003: a vector tail, written element by element.
  std::vector<Argument> args = {ramp({1003}, -1, 0.02), ramp({1003}, 0.5, -0.01),
                                ramp({1003}, 0.1, 0.001), ramp({1003}, 0.2, 0.003)};
  for (int call = 0; call < 2; ++call) {
    SCOPED_TRACE(call);
    const std::vector<Argument> before = clones(args);
    const void* param = std::get<Tensor>(args[0]).data();
    std::vector<Argument> got = rt->run(args);
    ASSERT_EQ(rt->lastRun().segments.size(), 1u);
    EXPECT_EQ(rt->lastRun().segments[0].scheduler, "pointwise");
    EXPECT_EQ(std::get<Tensor>(got[0]).data(), param);
    expectEvaluatorValues(*def.fusion, before, args, got);
  }
  EXPECT_EQ(rt->counters().in_place_writes, 6);
  EXPECT_EQ(rt->counters().alias_copies, 0);
  const std::string dump = captured.dump.str();
  EXPECT_THAT(dump, HasSubstr("in_place: [output 0 over input 0, output 1 over input 2, "
                              "output 2 over input 3]"));
  // The pairs that share memory are plain pointers; the gradient stays
  // __restrict__.
  EXPECT_THAT(dump, HasSubstr("const float* in0 = "));
  EXPECT_THAT(dump, HasSubstr("float* out0 = "));
  EXPECT_THAT(dump, HasSubstr("const float* __restrict__ in1 = "));
}

TEST(InPlaceWrites, AReadOfTheOverwrittenInputSeesItsOldValue) {
  const PythonDefinition def = overwrittenThenRead();
  Captured captured;
  auto rt = hostRuntime(def, captured);
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{7, 129}, {64, 64}, {1, 1}}) {
    SCOPED_TRACE(sizes[1]);
    std::vector<Argument> args = {ramp(sizes, 3, 1), ramp(sizes, -5, 0.5)};
    const std::vector<Argument> before = clones(args);
    std::vector<Argument> got = rt->run(args);
    expectEvaluatorValues(*def.fusion, before, args, got);
  }
  EXPECT_EQ(rt->counters().in_place_writes, 3);
}

TEST(InPlaceWrites, AnInputReadAtOtherElementsIsCopiedInAfterTheCall) {
  const PythonDefinition def = readTransposed();
  Captured captured;
  auto rt = hostRuntime(def, captured, "scheduler_params");
  std::vector<Argument> args = {ramp({33, 33}, 0, 1)};
  const std::vector<Argument> before = clones(args);
  std::vector<Argument> got = rt->run(args);
  expectEvaluatorValues(*def.fusion, before, args, got);
  EXPECT_EQ(rt->counters().in_place_writes, 0);
  EXPECT_EQ(rt->counters().alias_copies, 1);
  EXPECT_THAT(captured.dump.str(), Not(HasSubstr("in_place")));
}

TEST(InPlaceWrites, OneTensorPassedForTwoInputsIsNotWrittenInPlace) {
  const PythonDefinition def = overwrittenThenRead();
  Captured captured;
  auto rt = hostRuntime(def, captured);
  Tensor shared = ramp({4, 8}, 1, 1);
  const Tensor before = shared.clone();
  std::vector<Argument> got = rt->run({shared, shared});
  EXPECT_EQ(rt->counters().in_place_writes, 0);
  EXPECT_EQ(rt->counters().alias_copies, 1);
  for (int64_t i = 0; i < shared.numel(); ++i) {
    EXPECT_EQ(shared.getDoubleLinear(i), 2 * before.getDoubleLinear(i)) << i;
    EXPECT_EQ(std::get<Tensor>(got[1]).getDoubleLinear(i), before.getDoubleLinear(i) + 1) << i;
  }
}

TEST(InPlaceWrites, AnInputOfAnotherLayoutIsCopiedIn) {
  const PythonDefinition def = overwrittenThenRead();
  Captured captured;
  auto rt = hostRuntime(def, captured);
  // Every other column of a wider tensor: not the dense layout the kernel writes.
  Tensor wide = ramp({4, 16}, 1, 1);
  Tensor x = wide.asStrided({4, 8}, {16, 2}, 0);
  std::vector<Argument> args = {x, ramp({4, 8}, 2, 1)};
  const std::vector<Argument> before = clones(args);
  std::vector<Argument> got = rt->run(args);
  expectEvaluatorValues(*def.fusion, before, args, got);
  EXPECT_EQ(rt->counters().in_place_writes, 0);
  EXPECT_EQ(rt->counters().alias_copies, 1);
  for (int64_t c = 1; c < 16; c += 2)
    EXPECT_EQ(wide.getDouble({0, c}), 1 + c) << "a column between them is untouched";
}

// An index out of range fails the call after the launch: the input must
// still hold its old values, so a kernel with index checks writes fresh.
TEST(InPlaceWrites, AKernelWithIndexChecksLeavesTheInputAsItWasWhenItFails) {
  const PythonDefinition def = parseInPlace(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T3 = fd.ops.index_select(T1, T2, dim=0)\n"
      "    T4 = fd.ops.add(T0, T3)\n"
      "    fd.add_output(T4, alias_input=T0)\n");
  Captured captured;
  auto rt = hostRuntime(def, captured);
  Tensor x = ramp({64}, 1, 1);
  const Tensor before = x.clone();
  Tensor index = Tensor::empty(DataType::Int64, {64});
  for (int64_t i = 0; i < 64; ++i) static_cast<int64_t*>(index.data())[i] = i % 8;
  static_cast<int64_t*>(index.data())[40] = 8;  // the table has 8 rows
  EXPECT_THROW(rt->run({x, ramp({8}, 0, 1), index}), UserError);
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(x.getDoubleLinear(i), before.getDoubleLinear(i)) << i;
  EXPECT_EQ(rt->counters().in_place_writes, 0);
}

TEST(InPlaceWrites, KernelBenchmarksRelaunchWithoutUpdatingTheInputAgain) {
  const PythonDefinition def = overwrittenThenRead();
  Captured captured;
  auto rt = hostRuntime(def, captured);
  std::vector<Argument> args = {ramp({8, 8}, 1, 1), ramp({8, 8}, 0, 1)};
  const std::vector<Argument> before = clones(args);
  const std::vector<KernelBenchmark> times = rt->benchmarkKernels(args, 3);
  EXPECT_EQ(times.size(), 1u);
  EXPECT_EQ(rt->counters().in_place_writes, 0);
  std::vector<Argument> expected_inputs = clones(before);
  evaluateFusion(*def.fusion, expected_inputs);
  EXPECT_TRUE(checkClose(std::get<Tensor>(args[0]), std::get<Tensor>(expected_inputs[0])).pass);
}

}  // namespace
}  // namespace fusebox
