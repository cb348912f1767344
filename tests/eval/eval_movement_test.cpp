// Evaluator numerics of data movement: broadcast, squeeze, expand, reshape,
// permute, set / segment_set, and outputs that are inputs.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

TEST(EvalMovement, BroadcastInsertsSizeOneDims) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(broadcast(t0, {true, false, true}));
  Tensor out = runOne(f, {makeFloat({3}, {1, 2, 3})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{1, 2, 3}));
}

TEST(EvalMovement, BroadcastInDimExpands) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Int64);
  f.addOutput(broadcastInDim(t0, {f.constantInt(2), f.constantInt(3)}, {1}));
  Tensor out = runOne(f, {makeTensor(DataType::Int64, {3}, {7, 8, 9})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{7, 8, 9, 7, 8, 9}));
}

TEST(EvalMovement, SqueezeRemovesDims) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1, -1}, DataType::Float);
  f.addOutput(squeeze(t0, {1}));
  Tensor out = runOne(f, {makeFloat({2, 1, 3}, arange(6))});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), arange(6));
}

TEST(EvalMovement, SqueezeOfASymbolicDimChecksItsSize) {
  // reshape to scalar-input sizes gives Symbolic dims, squeezable if size 1 at run time.
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* s0 = defineScalar(f, DataType::Int64);
  auto* s1 = defineScalar(f, DataType::Int64);
  f.addOutput(squeeze(reshape(t0, {s0, s1}), {0}));
  Tensor ok =
      runOne(f, {makeFloat({3}, {4, 5, 6}), ScalarValue(int64_t{1}), ScalarValue(int64_t{3})});
  EXPECT_EQ(ok.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(valuesOf(ok), (std::vector<double>{4, 5, 6}));
  EXPECT_USER_ERROR(
      runOne(f, {makeFloat({4}, arange(4)), ScalarValue(int64_t{2}), ScalarValue(int64_t{2})}),
      HasSubstr("= squeeze("),
      HasSubstr("dim 0 of T1_g (size 2, from input #1 (i1)) cannot be squeezed: only size-1 and "
                "broadcast dims can"));
}

TEST(EvalMovement, ExpandRepeatsSizeOneDims) {
  Fusion f;
  auto* t0 = defineTensor(f, {1, -1}, DataType::Float);
  auto* n = defineScalar(f, DataType::Int64);
  f.addOutput(expand(t0, {n, f.constantInt(-1)}));
  Tensor out = runOne(f, {makeFloat({1, 3}, {1, 2, 3}), ScalarValue(int64_t{2})});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  // The output is a real tensor the caller owns, not a stride-0 view.
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{3, 1}));
}

TEST(EvalMovement, ReshapeIsRowMajor) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(reshape(t0, {f.constantInt(3), f.constantInt(-1)}));
  Tensor out = runOne(f, {makeFloat({2, 3}, arange(6))});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(valuesOf(out), arange(6));
}

TEST(EvalMovement, ReshapeOfAPermutedTensorFollowsLogicalOrder) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(reshape(permute(t0, {1, 0}), {f.constantInt(6)}));
  // [[0 1 2] [3 4 5]]^T = [[0 3] [1 4] [2 5]], flattened row-major.
  Tensor out = runOne(f, {makeFloat({2, 3}, arange(6))});
  EXPECT_EQ(valuesOf(out), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(EvalMovement, ReshapeWithWrongElementCountIsAUserError) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Float);
  auto* out = reshape(t0, {f.constantInt(2), f.constantInt(3)});
  f.addOutput(out);
  EXPECT_USER_ERROR(runOne(f, {makeFloat({5}, arange(5))}), HasSubstr("= reshape("),
                    HasSubstr("cannot reshape 5 elements into 6 (input sizes [5], output sizes "
                              "[2, 3])"));
}

TEST(EvalMovement, PermuteMatchesANaiveLoop) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1, -1}, DataType::Double);
  f.addOutput(permute(t0, {2, 0, 1}));
  Tensor in = makeTensor(DataType::Double, {2, 3, 4}, arange(24));
  Tensor out = runOne(f, {in});
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{4, 2, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(out.getDouble({i, j, k}), in.getDouble({j, k, i}));
}

TEST(EvalMovement, SetAndSegmentSetCopy) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1}, DataType::Int32);
  f.addOutput(set(t0));
  f.addOutput(segmentSet(t0));
  Tensor in = makeTensor(DataType::Int32, {3}, {1, -2, 3});
  auto outs = test::run(f, {in});
  for (const auto& o : outs) {
    EXPECT_NE(test::tensorOf(o).data(), in.data());
    EXPECT_EQ(valuesOf(o), (std::vector<double>{1, -2, 3}));
  }
}

TEST(EvalMovement, InputReturnedAsOutputIsAFreshCopy) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float);
  auto* t1 = neg(t0);
  f.addOutput(t0);
  f.addOutput(t1);
  f.addOutput(t1);  // listed twice: two independent tensors
  Tensor in = makeFloat({2, 2}, {1, 2, 3, 4});
  auto outs = test::run(f, {in});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_NE(test::tensorOf(outs[0]).data(), in.data());
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_NE(test::tensorOf(outs[1]).data(), test::tensorOf(outs[2]).data());
  EXPECT_EQ(valuesOf(outs[2]), (std::vector<double>{-1, -2, -3, -4}));
}

}  // namespace
}  // namespace fusebox
