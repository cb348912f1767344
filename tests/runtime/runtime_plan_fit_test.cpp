// When a plan made ahead (scheduleAhead predicts each kernel output's layout)
// may run on the inputs a segment actually gets: the runtime makes the plan
// again unless dtypes, sizes and strides match and the alignment is at least
// what the plan assumed. No fusion reaches a mismatch today (the predictions
// are exact), so the rule is checked directly: a kernel compiled for dense
// strides would read the wrong elements of a stride-0 (expanded) input.
#include <gtest/gtest.h>

#include "runtime/runtime_internal.h"

namespace fusebox::runtime_detail {
namespace {

TensorArgInfo floats(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                     int64_t alignment = 16) {
  return TensorArgInfo{DataType::Float, std::move(sizes), std::move(strides), alignment};
}

TEST(RuntimePlanFit, TheSameLayoutFits) {
  const std::vector<ArgumentInfo> plan{floats({7, 2}, {2, 1}), ScalarValue(int64_t{3})};
  EXPECT_TRUE(fitsPlan(plan, plan));
  // Scalars are in the cache key where they matter; their values are not compared.
  EXPECT_TRUE(fitsPlan(plan, {floats({7, 2}, {2, 1}), ScalarValue(int64_t{4})}));
}

TEST(RuntimePlanFit, OtherStridesDoNotFit) {
  // Item 13 of issue 8: a dense plan given an expanded (stride 0) input.
  EXPECT_FALSE(fitsPlan({floats({7, 2}, {2, 1})}, {floats({7, 2}, {0, 1})}));
  EXPECT_FALSE(fitsPlan({floats({7, 2}, {2, 1})}, {floats({7, 2}, {1, 7})}));
}

TEST(RuntimePlanFit, OtherSizesDtypesOrCountsDoNotFit) {
  const std::vector<ArgumentInfo> plan{floats({7, 2}, {2, 1})};
  EXPECT_FALSE(fitsPlan(plan, {floats({2, 7}, {7, 1})}));
  EXPECT_FALSE(fitsPlan(plan, {TensorArgInfo{DataType::Half, {7, 2}, {2, 1}, 16}}));
  EXPECT_FALSE(fitsPlan(plan, {floats({7, 2}, {2, 1}), floats({7, 2}, {2, 1})}));
  EXPECT_FALSE(fitsPlan(plan, {ScalarValue(1.0)}));
}

TEST(RuntimePlanFit, LessAlignmentThanPlannedDoesNotFit) {
  // A vectorized kernel assumed 16-byte alignment.
  EXPECT_FALSE(fitsPlan({floats({8}, {1}, 16)}, {floats({8}, {1}, 4)}));
  EXPECT_TRUE(fitsPlan({floats({8}, {1}, 4)}, {floats({8}, {1}, 16)}));
}

TEST(RuntimePlanFit, ArgumentsAreComparedAsTheirInfos) {
  // A cache hit compares the call's arguments themselves: the same rule.
  Tensor dense = Tensor::empty(DataType::Float, {7, 2});
  const int64_t alignment = recordedAlignment(dense.data());
  const std::vector<ArgumentInfo> plan{floats({7, 2}, {2, 1}, alignment), ScalarValue(int64_t{3})};
  EXPECT_TRUE(argumentsFitPlan(plan, {dense, ScalarValue(int64_t{9})}));
  EXPECT_EQ(argumentsFitPlan(plan, {dense, ScalarValue(int64_t{9})}),
            fitsPlan(plan, {argumentInfo(dense), ScalarValue(int64_t{9})}));
  Tensor expanded = dense.asStrided({7, 2}, {0, 1}, 0);
  EXPECT_FALSE(argumentsFitPlan(plan, {expanded, ScalarValue(int64_t{9})}));
  EXPECT_FALSE(argumentsFitPlan(plan, {Tensor::empty(DataType::Half, {7, 2}), ScalarValue(1.0)}));
  EXPECT_FALSE(argumentsFitPlan(plan, {dense}));
  EXPECT_FALSE(argumentsFitPlan(plan, {ScalarValue(1.0), ScalarValue(1.0)}));
  // One element in: less aligned than planned (a float's 4 bytes at most).
  Tensor shifted = dense.asStrided({6, 2}, {2, 1}, 1);
  const std::vector<ArgumentInfo> six{floats({6, 2}, {2, 1}, alignment), ScalarValue(int64_t{3})};
  EXPECT_TRUE(argumentsFitPlan(six, {dense.asStrided({6, 2}, {2, 1}, 0), ScalarValue(int64_t{9})}));
  EXPECT_FALSE(argumentsFitPlan(six, {shifted, ScalarValue(int64_t{9})}));
}

}  // namespace
}  // namespace fusebox::runtime_detail
