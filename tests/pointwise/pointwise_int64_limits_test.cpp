// INT64_MIN and INT64_MAX as literals of a pointwise kernel on the host
// backend: the kernel compiles (INT64_MIN once made fusebox::cast ambiguous)
// and gives the evaluator's integers exactly (int64 element math wraps in both).
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include <limits>

#include "pointwise/pointwise_test_util.h"

namespace fusebox {
namespace {

using namespace fusebox::test;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(PointwiseInt64Limits, ExtremeLiteralsMatchTheEvaluatorExactly) {
  auto backend = makeHostBackend();
  Fusion f;
  TensorView* x = defineTensor(f, {-1}, DataType::Int64);
  Scalar* lo = f.constantInt(kMin);
  Scalar* hi = f.constantInt(kMax);
  f.addOutput(add(x, lo));
  f.addOutput(sub(x, hi));
  f.addOutput(where(gt(x, f.zero()), lo, hi));
  f.addOutput(maximum(x, lo));
  f.addOutput(binaryOp(BinaryOpType::BitwiseXor, x, lo));
  f.addOutput(add(castOp(DataType::Double, x), lo));  // the literal cast to double

  const std::vector<int64_t> values{kMin, kMin + 1, -3, -1, 0, 1, 2, kMax - 1, kMax};
  Tensor in = Tensor::empty(DataType::Int64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) in.setInt({static_cast<int64_t>(i)}, values[i]);

  PointwiseRun r = runPointwise(*backend, f, {in});
  ASSERT_TRUE(r.compile_time.accepted()) << r.compile_time.reason();
  ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
  const std::vector<Argument> expected = evaluateFusion(f, {in});
  ASSERT_EQ(r.outputs.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    const Tensor& want = std::get<Tensor>(expected[k]);
    const Tensor& got = r.outputs[k];
    ASSERT_EQ(want.sizes(), got.sizes()) << "output " << k;
    for (int64_t i = 0; i < want.numel(); ++i) {
      if (isIntegralType(want.dtype()))
        EXPECT_EQ(got.getInt({i}), want.getInt({i})) << "output " << k << " element " << i << "\n"
                                                     << r.source;
      else
        EXPECT_EQ(got.getDouble({i}), want.getDouble({i})) << "output " << k << " element " << i;
    }
  }
  // Spot checks against arithmetic written out: INT64_MIN + 1 and 1 - INT64_MAX.
  EXPECT_EQ(r.outputs[0].getInt({5}), kMin + 1);
  EXPECT_EQ(r.outputs[1].getInt({5}), 1 - kMax);
  EXPECT_EQ(r.outputs[2].getInt({0}), kMax);
}

}  // namespace
}  // namespace fusebox
