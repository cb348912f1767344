// expectSameResults, the check behind every pass test, must see the
// differences a wrong rewrite makes: an int64 -> double -> int64 round trip
// folded away keeps 2^53 + 1 where the round trip gives 2^53 (equal as
// doubles), and 0 - x in place of -x turns -0.0 into 0.0.
#include <gtest/gtest-spi.h>

#include "passes/pass_test_util.h"

namespace fusebox {
namespace {

using pass_testing::expectSameResults;

TEST(PassTestUtil, Int64ResultsCompareAsIntegers) {
  Fusion before, after;
  TensorView* x = defineTensor(before, {-1}, DataType::Int64);
  before.addOutput(castOp(DataType::Int64, castOp(DataType::Double, x)));
  after.addOutput(set(defineTensor(after, {-1}, DataType::Int64)));
  Tensor t = Tensor::empty(DataType::Int64, {2});
  const int64_t big = (int64_t{1} << 53) + 1;
  t.setInt({0}, 3);
  t.setInt({1}, big);
  EXPECT_NONFATAL_FAILURE(
      expectSameResults(before, after, {t}),
      "element [1]: got " + std::to_string(big) + ", expected " + std::to_string(big - 1));
  t.setInt({1}, big - 1);  // 2^53 survives the round trip
  expectSameResults(before, after, {t});
}

TEST(PassTestUtil, SignedZerosCount) {
  Fusion before, after;
  before.addOutput(neg(defineSymbolicTensor(before, 1)));
  after.addOutput(sub(after.constantDouble(0.0), defineSymbolicTensor(after, 1)));
  Tensor zeros = Tensor::empty(DataType::Float, {2});
  EXPECT_NONFATAL_FAILURE(expectSameResults(before, after, {zeros}),
                          "element [0]: got 0, expected -0");
}

}  // namespace
}  // namespace fusebox
