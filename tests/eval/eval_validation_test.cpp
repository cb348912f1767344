// validateInputs / evaluateFusion input checks: every kind of bad input gets a
// UserError naming the input and saying what was expected.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using ::testing::HasSubstr;

// T0: float [-1, 3, 1], S1: int64 scalar, T2: double [-1].
struct ThreeInputs {
  Fusion f;
  TensorView* t0;
  Scalar* s1;
  TensorView* t2;
  ThreeInputs() {
    t0 = defineTensor(f, {-1, 3, 1}, DataType::Float);
    s1 = defineScalar(f, DataType::Int64);
    t2 = defineTensor(f, {-1}, DataType::Double);
    f.addOutput(add(t0, s1));
    f.addOutput(t2);
  }
  std::vector<Argument> good() const {
    return {makeFloat({2, 3, 1}, arange(6)), ScalarValue(int64_t{4}),
            makeTensor(DataType::Double, {5}, arange(5))};
  }
};

TEST(EvalValidation, GoodInputsPass) {
  ThreeInputs in;
  EXPECT_NO_THROW(validateInputs(in.f, in.good()));
  auto outs = evaluateFusion(in.f, in.good());
  EXPECT_EQ(test::valuesOf(outs[0]), (std::vector<double>{4, 5, 6, 7, 8, 9}));
}

TEST(EvalValidation, WrongCount) {
  ThreeInputs in;
  auto args = in.good();
  args.pop_back();
  EXPECT_USER_ERROR(validateInputs(in.f, args), HasSubstr("expected 3 inputs"), HasSubstr("got 2"),
                    HasSubstr("#2 (" + in.t2->toString() + "): a double tensor of rank 1"));
}

TEST(EvalValidation, TensorWhereScalarExpectedAndBack) {
  ThreeInputs in;
  auto args = in.good();
  args[1] = makeFloat({1}, {1});
  EXPECT_USER_ERROR(validateInputs(in.f, args),
                    HasSubstr("input #1 (" + in.s1->toString() + "): expected an int64 scalar"),
                    HasSubstr("got a tensor float[1]"));
  args = in.good();
  args[0] = ScalarValue(1.5);
  EXPECT_USER_ERROR(
      validateInputs(in.f, args),
      HasSubstr("input #0 (" + in.t0->toString() + "): expected a float tensor of rank 3"),
      HasSubstr("got a scalar double 1.5"));
}

TEST(EvalValidation, WrongDtype) {
  ThreeInputs in;
  auto args = in.good();
  args[0] = makeTensor(DataType::Int64, {2, 3, 1}, arange(6));
  EXPECT_USER_ERROR(validateInputs(in.f, args), HasSubstr("expected dtype float, got int64"));
}

TEST(EvalValidation, UsesGivenInputNames) {
  ThreeInputs in;
  auto args = in.good();
  args[2] = makeFloat({5}, arange(5));
  EvaluatorOptions options;
  options.input_names = {"x", "n", "T1"};
  EXPECT_USER_ERROR(validateInputs(in.f, args, options),
                    HasSubstr("input T1: expected dtype double, got float"));
  EXPECT_USER_ERROR(evaluateFusion(in.f, args, options), HasSubstr("input T1: expected dtype"));
}

TEST(EvalValidation, WrongRank) {
  ThreeInputs in;
  auto args = in.good();
  args[0] = makeFloat({2, 3}, arange(6));
  EXPECT_USER_ERROR(validateInputs(in.f, args), HasSubstr("expected 3 dims, got 2"),
                    HasSubstr("float[2, 3]"));
}

TEST(EvalValidation, ConstantExtent) {
  ThreeInputs in;
  auto args = in.good();
  args[0] = makeFloat({2, 4, 1}, arange(8));
  EXPECT_USER_ERROR(validateInputs(in.f, args),
                    HasSubstr("dim 1 has size 4, expected 3 (a constant extent)"));
}

TEST(EvalValidation, BroadcastDimMustBeSizeOne) {
  ThreeInputs in;
  auto args = in.good();
  args[0] = makeFloat({1, 3, 2}, arange(6));
  EXPECT_USER_ERROR(validateInputs(in.f, args),
                    HasSubstr("dim 2 has size 2, expected 1 (a broadcast dim)"));
}

TEST(EvalValidation, ScalarKinds) {
  ThreeInputs in;
  auto args = in.good();
  args[1] = ScalarValue(2.5);
  EXPECT_USER_ERROR(validateInputs(in.f, args),
                    HasSubstr("expected an int64 scalar, got double 2.5"));
  Fusion g;
  auto* b = defineScalar(g, DataType::Bool);
  auto* i32 = defineScalar(g, DataType::Int32);
  auto* d = defineScalar(g, DataType::Double);
  g.addOutput(add(i32, d));
  g.addOutput(b);
  EXPECT_NO_THROW(
      validateInputs(g, {ScalarValue(true), ScalarValue(int64_t{3}), ScalarValue(int64_t{2})}));
  EXPECT_USER_ERROR(
      validateInputs(g, {ScalarValue(int64_t{2}), ScalarValue(int64_t{3}), ScalarValue(1.0)}),
      HasSubstr("expected a bool scalar, got int64 2"));
  EXPECT_USER_ERROR(
      validateInputs(g, {ScalarValue(true), ScalarValue(int64_t{1} << 40), ScalarValue(1.0)}),
      HasSubstr("expected an int32 scalar"), HasSubstr("out of range"));
  // A double input given an integer is converted: 3 + 2 = 5.0.
  auto outs =
      evaluateFusion(g, {ScalarValue(false), ScalarValue(int64_t{3}), ScalarValue(int64_t{2})});
  EXPECT_EQ(std::get<ScalarValue>(outs[0]), ScalarValue(5.0));
  EXPECT_EQ(std::get<ScalarValue>(outs[1]), ScalarValue(false));
}

TEST(EvalValidation, UndefinedAndDeviceTensors) {
  ThreeInputs in;
  auto args = in.good();
  args[2] = Tensor();
  EXPECT_USER_ERROR(validateInputs(in.f, args), HasSubstr("got an undefined tensor"));
  double dummy[5] = {};
  args[2] = Tensor::fromBlob(dummy, DataType::Double, {5}, {1}, Device::Cuda);
  // Validation reads metadata only (the runtime validates device inputs);
  // evaluation needs the data on the host.
  EXPECT_NO_THROW(validateInputs(in.f, args));
  EXPECT_USER_ERROR(evaluateFusion(in.f, args), HasSubstr("expected a host tensor"));
}

// Two inputs that share one symbolic extent, as a frontend that knows two
// sizes are equal would build them.
TEST(EvalValidation, SharedSymbolicExtentsMustAgree) {
  Fusion f;
  Scalar* n = f.newScalar(DataType::Int64);
  auto* a = f.newTensor({f.newIterDomain(n, IterType::Iteration)}, DataType::Float);
  auto* b = f.newTensor({f.newIterDomain(n, IterType::Iteration)}, DataType::Float);
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  EXPECT_NO_THROW(validateInputs(f, {makeFloat({4}, arange(4)), makeFloat({4}, arange(4))}));
  EvaluatorOptions names;
  names.input_names = {"T0", "T1"};
  EXPECT_USER_ERROR(
      validateInputs(f, {makeFloat({4}, arange(4)), makeFloat({5}, arange(5))}, names),
      HasSubstr("input T1: dim 0 has size 5, expected 4 (extent " + n->toString() +
                " bound by T0)"));
}

TEST(EvalValidation, ScalarInputThatIsAnExtent) {
  // The tensor's extent is the scalar input itself: both must agree.
  Fusion f;
  Scalar* n = defineScalar(f, DataType::Int64);
  auto* a = f.newTensor({f.newIterDomain(n, IterType::Iteration)}, DataType::Float);
  f.addInput(a);
  f.addOutput(neg(a));
  EXPECT_NO_THROW(validateInputs(f, {ScalarValue(int64_t{3}), makeFloat({3}, arange(3))}));
  EXPECT_USER_ERROR(
      validateInputs(f, {ScalarValue(int64_t{3}), makeFloat({2}, arange(2))}),
      HasSubstr("input #1"),
      HasSubstr("dim 0 has size 2, expected 3 (extent " + n->toString() + " bound by #0"));
}

TEST(EvalValidation, ExpandedBroadcastInputNeedsStrideZero) {
  Fusion f;
  Scalar* n = f.newScalar(DataType::Int64);
  auto* a = f.newTensor({f.newIterDomain(f.one(), IterType::Broadcast, n),
                         f.newIterDomain(f.newScalar(DataType::Int64), IterType::Iteration)},
                        DataType::Float);
  f.addInput(a);
  f.addOutput(set(a));
  Tensor row = makeFloat({1, 2}, {1, 2});
  Tensor expanded = row.asStrided({3, 2}, {0, 1}, 0);
  auto outs = evaluateFusion(f, {expanded});
  EXPECT_EQ(test::valuesOf(outs[0]), (std::vector<double>{1, 2, 1, 2, 1, 2}));
  EXPECT_NO_THROW(validateInputs(f, {row}));  // size 1 needs no stride 0
  EXPECT_USER_ERROR(validateInputs(f, {makeFloat({3, 2}, arange(6))}),
                    HasSubstr("dim 0 is an expanded broadcast of size 3, expected stride 0, got "
                              "stride 2"));
}

}  // namespace
}  // namespace fusebox
