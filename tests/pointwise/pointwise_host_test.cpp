// The pointwise scheduler on the host backend, against the reference evaluator
// (the cases are shared with the GPU suite: pointwise_cases.inc), plus the
// scheduler's rejections.
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include "pointwise/pointwise_test_util.h"
#include "support/host_suite.h"

class PointwiseFixture : public ::testing::Test {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return {}; }
};

#include "pointwise/indexing_cases.inc"
#include "pointwise/pointwise_cases.inc"

namespace {

TEST(PointwiseRejects, ReductionWithReason) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(sum(exp(x), {1}));
  CompileTimeCache cache;
  const Decision d = structuralDecision(*pointwiseScheduler(), f);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("is a reduction"), std::string::npos) << d.reason();
}

TEST(PointwiseRejects, ReductionOverADimThatMayBeLongerThanOne) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);  // extent of dim 1 unknown
  f.addOutput(sum(x, {1}));
  CompileTimeCache cache;
  const Decision d = structuralDecision(*pointwiseScheduler(), f);
  EXPECT_NE(d.reason().find("is a reduction"), std::string::npos) << d.reason();
}

TEST(PointwiseRejects, SegmentLongerThanOneKernelHolds) {
  // Issue 8's fuzzer: a chain of 14,000 bfloat16 ops took the host compiler
  // over ten minutes as one kernel (its time grows quadratically).
  Fusion f;
  TensorView* t = defineTensor(f, {-1}, DataType::BFloat16);
  for (int k = 0; k < 513; ++k) t = neg(t);
  f.addOutput(t);
  CompileTimeCache cache;
  const Decision d = structuralDecision(*pointwiseScheduler(), f);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("the segment has 513 ops; one generated kernel holds at most 512"),
            std::string::npos)
      << d.reason();
}

TEST(PointwiseRejects, MatmulWithReason) {
  Fusion f;
  TensorView* a = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* b = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(matmul(a, b));
  CompileTimeCache cache;
  const Decision d = structuralDecision(*pointwiseScheduler(), f);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("is a matmul"), std::string::npos) << d.reason();
}

TEST(PointwiseRejects, ScalarOutputWithReason) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1}, DataType::Float);
  Scalar* s = defineScalar(f, DataType::Double);
  f.addOutput(exp(x));
  f.addOutput(add(s, s));
  CompileTimeCache cache;
  const Decision d = structuralDecision(*pointwiseScheduler(), f);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("is a scalar"), std::string::npos) << d.reason();
}

TEST(PointwiseRejects, OutputsOfDifferentElementCounts) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* bias = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(add(x, broadcast(bias, {true, false})));
  f.addOutput(exp(bias));
  CompileTimeCache cache;
  ASSERT_TRUE(structuralDecision(*pointwiseScheduler(), f).accepted());
  std::vector<ArgumentInfo> infos{TensorArgInfo{DataType::Float, {4, 8}, {8, 1}, 16},
                                  TensorArgInfo{DataType::Float, {8}, {1}, 16}};
  RuntimeInfo info(f, infos, {});
  const Decision d = runTimeDecision(*pointwiseScheduler(), f, info);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("has 8 elements but the reference output"), std::string::npos)
      << d.reason();
}

TEST(PointwiseParams, LargeContiguousFloatMergesDimsAndVectorizes) {
  // Heuristics only (no kernel): a [64, 1024, 1024] float add merges into one dim.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  TensorView* y = defineTensor(f, {-1, -1, -1}, DataType::Float);
  f.addOutput(add(x, y));
  const std::vector<int64_t> sizes{64, 1024, 1024}, strides{1024 * 1024, 1024, 1};
  std::vector<ArgumentInfo> infos{TensorArgInfo{DataType::Float, sizes, strides, 16},
                                  TensorArgInfo{DataType::Float, sizes, strides, 16}};
  DeviceProperties h100;
  h100.is_gpu = true;
  h100.multiprocessor_count = 132;
  RuntimeInfo info(f, infos, h100);
  CompileTimeCache cache;
  auto params = paramsOf(*pointwiseScheduler(), f, info);
  const std::string p = params->toString();
  EXPECT_EQ(paramLine(p, "merged_dims"), "[[0, 1, 2]] (iteration dims; extents [67108864])") << p;
  EXPECT_EQ(paramLine(p, "vector_width"), "4") << p;
  EXPECT_EQ(paramLine(p, "break_point"), "0") << p;
  EXPECT_EQ(paramLine(p, "threads"), "256") << p;
  EXPECT_EQ(paramLine(p, "unroll"), "1") << p;
  // 2^26 elements / (4 * 256) per block.
  EXPECT_EQ(paramLine(p, "grid"), "[65536, 1, 1]") << p;
  EXPECT_EQ(paramLine(p, "index_type"), "int32") << p;
  auto again = paramsOf(*pointwiseScheduler(), f, info);
  EXPECT_TRUE(params->sameAs(*again));
  EXPECT_EQ(params->hash(), again->hash());
}

}  // namespace
