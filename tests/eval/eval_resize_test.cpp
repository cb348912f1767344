// Evaluator numerics of slice, pad and cat, negative indices and widths included.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

std::vector<Val*> ints(Fusion& f, const std::vector<int64_t>& v) {
  std::vector<Val*> out;
  for (int64_t x : v) out.push_back(f.constantInt(x));
  return out;
}

TEST(EvalResize, SliceWithSteps) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(slice(t0, ints(f, {0, 1}), ints(f, {2, 6}), ints(f, {1, 2})));
  // x = [[0..5], [6..11]]; columns 1, 3, 5.
  Tensor out = runOne(f, {makeFloat({2, 6}, arange(12))});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{1, 3, 5, 7, 9, 11}));
}

TEST(EvalResize, SliceWithRuntimeNegativeAndOutOfRangeIndices) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Int64);
  auto* start = defineScalar(f, DataType::Int64);
  auto* stop = defineScalar(f, DataType::Int64);
  f.addOutput(slice(t0, {start}, {stop}));
  Tensor x = makeTensor(DataType::Int64, {5}, {10, 11, 12, 13, 14});
  auto run = [&](int64_t a, int64_t b) {
    return valuesOf(runOne(f, {x, ScalarValue(a), ScalarValue(b)}));
  };
  EXPECT_EQ(run(-3, -1), (std::vector<double>{12, 13}));   // x[-3:-1]
  EXPECT_EQ(run(-100, 2), (std::vector<double>{10, 11}));  // clamped to 0
  EXPECT_EQ(run(3, 100), (std::vector<double>{13, 14}));   // clamped to 5
  EXPECT_EQ(run(4, 2), (std::vector<double>{}));           // empty
}

TEST(EvalResize, SliceWithConstantNegativeIndices) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(slice(t0, ints(f, {-1, 0}), ints(f, {2, -2})));
  Tensor out = runOne(f, {makeFloat({2, 4}, arange(8))});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{1, 2}));  // row 1, columns 0..1
  EXPECT_EQ(valuesOf(out), (std::vector<double>{4, 5}));
}

TEST(EvalResize, PadLastDimsWithValue) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  // (left 1, right 0) on dim 1, (left 0, right 1) on dim 0.
  f.addOutput(pad(t0, ints(f, {1, 0, 0, 1}), f.constantDouble(-1)));
  Tensor out = runOne(f, {makeFloat({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{-1, 1, 2, -1, 3, 4, -1, -1, -1}));
}

TEST(EvalResize, PadDefaultsToZeroAndOnlyTheLastDims) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Int32);
  f.addOutput(pad(t0, ints(f, {2, 1})));
  Tensor out = runOne(f, {makeTensor(DataType::Int32, {2, 1}, {7, 8})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{0, 0, 7, 0, 0, 0, 8, 0}));
}

TEST(EvalResize, NegativePadCrops) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* l = defineScalar(f, DataType::Int64);
  auto* r = defineScalar(f, DataType::Int64);
  f.addOutput(pad(t0, {l, r}, f.constantDouble(9)));
  Tensor x = makeFloat({5}, {1, 2, 3, 4, 5});
  auto run = [&](int64_t a, int64_t b) {
    return valuesOf(runOne(f, {x, ScalarValue(a), ScalarValue(b)}));
  };
  EXPECT_EQ(run(-1, -2), (std::vector<double>{2, 3}));
  EXPECT_EQ(run(-2, 1), (std::vector<double>{3, 4, 5, 9}));
  EXPECT_EQ(run(-5, 2), (std::vector<double>{9, 9}));  // everything cropped, then padded
  EXPECT_USER_ERROR(run(-4, -2), HasSubstr("= pad("), HasSubstr("gives size -1"));
}

TEST(EvalResize, CatAlongEachDim) {
  for (int64_t dim : {0, 1, -1}) {
    SCOPED_TRACE(dim);
    Fusion f;
    auto* a = defineTensor(f, {-1, -1}, DataType::Float);
    auto* b = defineTensor(f, {-1, -1}, DataType::Float);
    f.addOutput(cat({a, b}, dim));
    Tensor x = makeFloat({2, 2}, {1, 2, 3, 4});
    Tensor y = makeFloat({2, 2}, {5, 6, 7, 8});
    Tensor out = runOne(f, {x, y});
    if (dim == 0) {
      EXPECT_EQ(out.sizes(), (std::vector<int64_t>{4, 2}));
      EXPECT_EQ(valuesOf(out), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
    } else {
      EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 4}));
      EXPECT_EQ(valuesOf(out), (std::vector<double>{1, 2, 5, 6, 3, 4, 7, 8}));
    }
  }
}

TEST(EvalResize, CatOfDifferentSizesAndDtypes) {
  Fusion f;
  auto* a = defineTensor(f, {-1}, DataType::Int32);
  auto* b = defineTensor(f, {-1}, DataType::Float);
  auto* c = defineTensor(f, {-1}, DataType::Float);
  auto* out = cat({a, b, c}, 0);
  f.addOutput(out);
  EXPECT_EQ(out->dtype(), DataType::Float);
  Tensor t = runOne(
      f, {makeTensor(DataType::Int32, {1}, {3}), makeFloat({0}, {}), makeFloat({2}, {0.5, -1})});
  EXPECT_EQ(valuesOf(t), (std::vector<double>{3, 0.5, -1}));
}

TEST(EvalResize, CatWithMismatchedOtherDimsIsAUserError) {
  Fusion f;
  auto* a = defineTensor(f, {-1, -1}, DataType::Float);
  auto* b = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(cat({a, b}, 0));
  EXPECT_USER_ERROR(runOne(f, {makeFloat({1, 2}, {1, 2}), makeFloat({1, 3}, {1, 2, 3})}),
                    HasSubstr("= cat("),
                    HasSubstr("dim 1 of T0_g (size 2, from input #0 (T0_g)) but dim 1 of T1_g "
                              "(size 3, from input #1 (T1_g))"));
}

TEST(EvalResize, RopeStyleRotateHalf) {
  // rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2]): the RoPE slice/cat pattern.
  Fusion f;
  auto* x = defineTensor(f, {-1, 4}, DataType::Float);
  auto* lo = slice(x, ints(f, {0, 0}), ints(f, {2, 2}));
  auto* hi = slice(x, ints(f, {0, 2}), ints(f, {2, 4}));
  f.addOutput(cat({neg(hi), lo}, -1));
  Tensor out = runOne(f, {makeFloat({2, 4}, arange(8))});
  EXPECT_EQ(valuesOf(out), (std::vector<double>{-2, -3, 0, 1, -6, -7, 4, 5}));
}

}  // namespace
}  // namespace fusebox
