// checkClose and the tolerance helper --validate uses.
#include <fusebox/eval/check_close.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <cmath>

namespace fusebox {
namespace {

using ::testing::HasSubstr;

Tensor filled(DataType dtype, std::vector<int64_t> sizes, std::vector<double> values) {
  Tensor t = Tensor::empty(dtype, sizes);
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i);
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    t.setDouble(index, values[i]);
  }
  return t;
}

TEST(CheckClose, TolerancePerDtypeGrowsWithTheSquareRootOfTheReduction) {
  EXPECT_EQ(toleranceFor(DataType::Float).atol, 2e-5);
  EXPECT_EQ(toleranceFor(DataType::Half).rtol, 4e-3);
  EXPECT_EQ(toleranceFor(DataType::BFloat16).atol, 3.2e-2);
  EXPECT_EQ(toleranceFor(DataType::Double).rtol, 1e-12);
  EXPECT_DOUBLE_EQ(toleranceFor(DataType::Float, 100).atol, 2e-4);  // sqrt(100) = 10
  EXPECT_EQ(toleranceFor(DataType::Int64, 100).atol, 0);
  EXPECT_EQ(toleranceFor(DataType::Bool).rtol, 0);
}

TEST(CheckClose, PassesWithinToleranceAndReportsErrors) {
  Tensor want = filled(DataType::Float, {2, 2}, {1, 2, -4, NAN});
  // Errors that float holds exactly: 2^-20 on 1, 2^-15 on -4 (within 2e-5 + 2e-5 * 4).
  Tensor got = filled(DataType::Float, {2, 2},
                      {1 + std::ldexp(1.0, -20), 2, -4 - std::ldexp(1.0, -15), NAN});
  CloseResult r = checkClose(got, want);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.max_abs_error, std::ldexp(1.0, -15));
  EXPECT_EQ(r.max_rel_error, std::ldexp(1.0, -17));  // 2^-15 / 4
}

TEST(CheckClose, NamesTheFirstMismatch) {
  Tensor want = filled(DataType::Float, {2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor got = filled(DataType::Float, {2, 3}, {0, 1, 2, 3, 4.5, 6});
  CloseResult r = checkClose(got, want);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.first_mismatch, "element [1, 1]: got 4.5, expected 4");
  EXPECT_EQ(r.max_abs_error, 1);
  // A NaN where a number belongs is a mismatch.
  Tensor nan = filled(DataType::Float, {1}, {NAN});
  EXPECT_FALSE(checkClose(nan, filled(DataType::Float, {1}, {1})).pass);
}

TEST(CheckClose, IntegersAreExactAndShapesMustAgree) {
  EXPECT_FALSE(
      checkClose(filled(DataType::Int64, {2}, {1, 3}), filled(DataType::Int64, {2}, {1, 2})).pass);
  CloseResult r = checkClose(filled(DataType::Float, {3}, {1, 2, 3}),
                             filled(DataType::Float, {1, 3}, {1, 2, 3}));
  EXPECT_FALSE(r.pass);
  EXPECT_THAT(r.shape_error, HasSubstr("got float[3]"));
  EXPECT_FALSE(
      checkClose(filled(DataType::Half, {1}, {1}), filled(DataType::Float, {1}, {1})).pass);
}

TEST(CheckClose, LargestReductionCountsSumsAndMatmulK) {
  Fusion f;
  TensorView* a = defineSymbolicTensor(f, 2);
  TensorView* b = defineSymbolicTensor(f, 2);
  f.addOutput(sum(a, {0, 1}));
  f.addOutput(matmul(a, b));
  std::vector<Argument> inputs = {filled(DataType::Float, {3, 7}, {}),
                                  filled(DataType::Float, {7, 2}, {})};
  EXPECT_EQ(largestReductionSize(f, inputs), 21);  // the sum over 3 x 7
  Fusion g;
  TensorView* c = defineSymbolicTensor(g, 2);
  TensorView* d = defineSymbolicTensor(g, 2);
  g.addOutput(matmul(c, d));
  EXPECT_EQ(largestReductionSize(g, inputs), 7);  // K
}

}  // namespace
}  // namespace fusebox
