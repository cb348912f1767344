// An int64 iota compared for equality with another int64 (the one-hot of a
// cross-entropy gradient: iota == target) compares in 32 bits where every
// value of the iota is an int32 (kernelgen's narrow iotas), and still gives
// the evaluator's answer for targets no int32 holds: one that only agrees in
// its low 32 bits is no match.
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include <limits>

#include "pointwise/pointwise_test_util.h"

namespace fusebox {
namespace {

using namespace fusebox::test;

constexpr int64_t kWidth = 40;

// [targets, width] one-hot rows, eq and ne, of iota(width, start, step).
std::unique_ptr<Fusion> oneHot(int64_t start, int64_t step) {
  auto f = std::make_unique<Fusion>();
  TensorView* target = defineTensor(*f, {-1}, DataType::Int64);
  TensorView* io = iota(*f, f->constantInt(kWidth), f->constantInt(start), f->constantInt(step),
                        DataType::Int64);
  TensorView* columns = broadcast(io, {true, false});
  TensorView* rows = broadcast(target, {false, true});
  f->addOutput(binaryOp(BinaryOpType::Eq, columns, rows));
  f->addOutput(binaryOp(BinaryOpType::Ne, rows, columns));
  return f;
}

Tensor targets(const std::vector<int64_t>& values) {
  Tensor t = Tensor::empty(DataType::Int64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.setInt({static_cast<int64_t>(i)}, values[i]);
  return t;
}

TEST(PointwiseNarrowIota, OneHotComparesIn32BitsAndMatchesTheEvaluator) {
  auto backend = makeHostBackend();
  const int64_t high = int64_t{1} << 32;
  // Rows: in range, the ends, out of range both ways, and values whose low
  // 32 bits are a column (5 and 7) but which are no int32.
  const std::vector<int64_t> values{
      0, kWidth - 1, kWidth, -1, high + 5, -high + 7, 17, std::numeric_limits<int64_t>::min()};
  auto f = oneHot(0, 1);
  PointwiseRun r = expectMatchesEvaluator(*backend, *f, {targets(values)});
  ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
  EXPECT_NE(r.source.find("fusebox::op::eqInt32("), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("fusebox::op::neInt32("), std::string::npos) << r.source;
  ASSERT_EQ(r.outputs.size(), 2u);
  for (int64_t row = 0; row < static_cast<int64_t>(values.size()); ++row) {
    for (int64_t col = 0; col < kWidth; ++col) {
      const bool hit = values[static_cast<size_t>(row)] == col;
      EXPECT_EQ(r.outputs[0].getInt({row, col}) != 0, hit) << row << ", " << col;
      EXPECT_EQ(r.outputs[1].getInt({row, col}) != 0, !hit) << row << ", " << col;
    }
  }
  // A kernel over symbolic sizes serves other widths: it compares in 64 bits.
  PointwiseRun symbolic =
      expectMatchesEvaluator(*backend, *f, {targets(values)}, {}, ShapeMode::Symbolic);
  ASSERT_TRUE(symbolic.run_time.accepted()) << symbolic.run_time.reason();
  EXPECT_EQ(symbolic.source.find("eqInt32("), std::string::npos) << symbolic.source;
}

TEST(PointwiseNarrowIota, NegativeStepsNarrowAndIotasPastInt32DoNot) {
  auto backend = makeHostBackend();
  const int64_t int32_max = std::numeric_limits<int32_t>::max();
  struct Case {
    int64_t start, step;
    bool narrow;
  };
  for (const Case& c : {Case{100, -3, true}, Case{-7, 2, true},
                        Case{int32_max - kWidth + 1, 1, true},  // last value INT32_MAX
                        Case{int32_max - 5, 1, false}, Case{0, int64_t{1} << 31, false}}) {
    SCOPED_TRACE(::testing::Message() << "start " << c.start << " step " << c.step);
    // Some values of the iota, the one before its first, and the first plus
    // 2^32 (the same low 32 bits).
    std::vector<int64_t> values;
    for (int64_t k = 0; k < kWidth; k += 7) values.push_back(c.start + k * c.step);
    values.push_back(c.start - 1);
    values.push_back(c.start + (int64_t{1} << 32));
    auto f = oneHot(c.start, c.step);
    PointwiseRun r = expectMatchesEvaluator(*backend, *f, {targets(values)});
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    EXPECT_EQ(r.source.find("fusebox::op::eqInt32(") != std::string::npos, c.narrow) << r.source;
    for (int64_t row = 0; row < static_cast<int64_t>(values.size()); ++row) {
      for (int64_t col = 0; col < kWidth; ++col) {
        const bool hit = values[static_cast<size_t>(row)] == c.start + col * c.step;
        EXPECT_EQ(r.outputs[0].getInt({row, col}) != 0, hit) << row << ", " << col;
      }
    }
  }
}

}  // namespace
}  // namespace fusebox
