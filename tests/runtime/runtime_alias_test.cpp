// In-place updates (fd.add_output(T, alias_input=I)) through the runtime, as
// nvFuser defines them: every read of I inside the fusion sees its value from
// before the call, and the aliased write lands when the call completes. On the
// host backend (kernels and host plans) and on the eval backend, against
// values computed by hand.
#include <fusebox/config.h>
#include <fusebox/frontend/python_definition.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"

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
      "alias_test.py");
}

Tensor filled(const std::vector<int64_t>& sizes, double value) {
  Tensor t = Tensor::empty(DataType::Float, sizes);
  testing::fillRowMajor(t, [&](int64_t i) { return value + static_cast<double>(i); });
  return t;
}

class AliasBackends : public ::testing::TestWithParam<BackendChoice> {};

// The case: T1 = exp(T0) written into T0, T2 = T0 + T1 reads the old T0.
TEST_P(AliasBackends, ReadsOfTheAliasedInputSeeItsValueFromBeforeTheCall) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.exp(T0)\n"
      "    T2 = fd.ops.add(T0, T1)\n"
      "    fd.add_output(T1, alias_input=T0)\n"
      "    fd.add_output(T2)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor x = Tensor::empty(DataType::Float, {4, 8});  // zeros
  for (int call = 0; call < 2; ++call) {              // a miss, then a hit
    SCOPED_TRACE(call);
    Tensor before = x.clone();
    std::vector<Argument> out = rt->run({x});
    const Tensor& t1 = std::get<Tensor>(out[0]);
    const Tensor& t2 = std::get<Tensor>(out[1]);
    EXPECT_EQ(t1.storage(), x.storage()) << "the aliased output is the input itself";
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float old = static_cast<float>(before.getDoubleLinear(i));
      EXPECT_FLOAT_EQ(x.getDoubleLinear(i), std::exp(old)) << i;
      EXPECT_FLOAT_EQ(t2.getDoubleLinear(i), old + std::exp(old)) << i;
    }
  }
  EXPECT_EQ(captured.diagnostics.str(), "");
}

// Across segments: a reduction (on expr_eval) reads T0 after the pointwise
// segment that produces T0's new value; it must sum the old values.
TEST_P(AliasBackends, ALaterSegmentReadsTheOldValue) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.neg(T0)\n"
      "    T2 = fd.ops.sum(T0, dims=[1])\n"
      "    T3 = fd.ops.mul(T0, T0)\n"
      "    T4 = fd.ops.sum(T0, dims=[0])\n"
      "    fd.add_output(T1, alias_input=T0)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n"
      "    fd.add_output(T4)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor x = filled({3, 5}, 1.0);
  Tensor before = x.clone();
  std::vector<Argument> out = rt->run({x});
  if (GetParam() == BackendChoice::Host) {
    ASSERT_GE(rt->lastRun().segments.size(), 2u);
  }
  const Tensor& sums = std::get<Tensor>(out[1]);
  const Tensor& squares = std::get<Tensor>(out[2]);
  // Reductions over different axes are separate kernels: the write to T0
  // must wait for both.
  const Tensor& column_sums = std::get<Tensor>(out[3]);
  for (int64_t c = 0; c < 5; ++c) {
    double expected = 0;
    for (int64_t r = 0; r < 3; ++r) expected += before.getDouble({r, c});
    EXPECT_DOUBLE_EQ(column_sums.getDouble({c}), expected) << c;
  }
  for (int64_t r = 0; r < 3; ++r) {
    double expected = 0;
    for (int64_t c = 0; c < 5; ++c) expected += before.getDouble({r, c});
    EXPECT_DOUBLE_EQ(sums.getDouble({r}), expected) << r;
    for (int64_t c = 0; c < 5; ++c) {
      EXPECT_DOUBLE_EQ(x.getDouble({r, c}), -before.getDouble({r, c}));
      EXPECT_DOUBLE_EQ(squares.getDouble({r, c}),
                       before.getDouble({r, c}) * before.getDouble({r, c}));
    }
  }
}

// An output that is a view of the aliased input (no_op) and the input passed
// through keep the old values: the write lands after they were copied out.
TEST_P(AliasBackends, ViewsOfTheAliasedInputKeepTheOldValues) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.mul(T0, 2.0)\n"
      "    T2 = fd.ops.permute(T0, dims=[1, 0])\n"
      "    fd.add_output(T1, alias_input=T0)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T0)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor x = filled({2, 3}, 1.0);
  Tensor before = x.clone();
  std::vector<Argument> out = rt->run({x});
  const Tensor& view = std::get<Tensor>(out[1]);
  const Tensor& passed = std::get<Tensor>(out[2]);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_DOUBLE_EQ(x.getDouble({r, c}), 2 * before.getDouble({r, c}));
      EXPECT_DOUBLE_EQ(view.getDouble({c, r}), before.getDouble({r, c}));
      EXPECT_DOUBLE_EQ(passed.getDouble({r, c}), before.getDouble({r, c}));
    }
}

// Two aliased inputs updated from each other: each update reads the other's
// old value (a swap).
TEST_P(AliasBackends, TwoInputsUpdatedFromEachOther) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.set(T1)\n"
      "    T3 = fd.ops.set(T0)\n"
      "    fd.add_output(T2, alias_input=T0)\n"
      "    fd.add_output(T3, alias_input=T1)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor a = filled({4}, 10.0), b = filled({4}, 20.0);
  rt->run({a, b});
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(a.getDouble({i}), 20.0 + static_cast<double>(i));
    EXPECT_DOUBLE_EQ(b.getDouble({i}), 10.0 + static_cast<double>(i));
  }
}

TEST_P(AliasBackends, AnExpandedInputCannotBeWrittenInPlace) {
  PythonDefinition def = parse(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.neg(T0)\n"
      "    fd.add_output(T1, alias_input=T0)\n");
  Captured captured;
  auto rt = runtimeFor(std::move(def.fusion), captured, GetParam(), def.input_names);
  Tensor row = filled({1, 3}, 1.0);
  Tensor expanded = row.asStrided({4, 3}, {0, 1}, 0);
  try {
    rt->run({expanded});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input T0"));
    EXPECT_THAT(e.what(), HasSubstr("share memory"));
  }
  for (int64_t c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(row.getDouble({0, c}), 1.0 + c) << "untouched";
}

INSTANTIATE_TEST_SUITE_P(Backends, AliasBackends,
                         ::testing::Values(BackendChoice::Host, BackendChoice::Eval),
                         [](const auto& info) {
                           return info.param == BackendChoice::Host ? "host" : "eval";
                         });

TEST(Alias, TwoOutputsAliasingOneInputAreRefusedWithTheirPlace) {
  try {
    parse(
        "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
        "    T1 = fd.ops.neg(T0)\n"
        "    T2 = fd.ops.exp(T0)\n"
        "    fd.add_output(T1, alias_input=T0)\n"
        "    fd.add_output(T2, alias_input=T0)\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("alias_test.py:7:"));
    EXPECT_THAT(e.what(), HasSubstr("both alias input T0"));
  }
}

TEST(Alias, AnOutputOfAnotherDtypeCannotAliasAnInput) {
  try {
    parse(
        "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
        "    T1 = fd.ops.cast(T0, dtype=DataType.Int)\n"
        "    fd.add_output(T1, alias_input=T0)\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("alias_test.py:5:"));
    EXPECT_THAT(e.what(), HasSubstr("dtypes must match"));
  }
}

TEST(Alias, AnOutputOfAnotherShapeCannotAliasAnInput) {
  try {
    parse(
        "    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float)\n"
        "    T1 = fd.ops.sum(T0, dims=[1])\n"
        "    fd.add_output(T1, alias_input=T0)\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has 1 dims and cannot alias input T0"));
  }
}

}  // namespace
}  // namespace fusebox
