// RuntimeInfo and FusionRuntimeFacts: segment inputs bound from argument
// infos (fusion inputs as given, intermediates as fresh dense allocations,
// scalars by value), every extent of a segment evaluable, and clear errors
// for infos that do not fit.
#include <fusebox/ir/ops.h>
#include <fusebox/runtime.h>

#include <gmock/gmock.h>

#include "segmenter_test_util.h"

namespace fusebox {
namespace {

using namespace segmenter_testing;
using ::testing::HasSubstr;

TensorArgInfo tensorInfo(DataType t, std::vector<int64_t> sizes, std::vector<int64_t> strides = {},
                         int64_t alignment = 16) {
  TensorArgInfo info;
  info.dtype = t;
  info.sizes = std::move(sizes);
  info.strides = strides.empty() ? contiguousStrides(info.sizes) : std::move(strides);
  info.alignment = alignment;
  return info;
}

TEST(DenseStrides, RowMajorAndStrideOrders) {
  EXPECT_EQ(contiguousStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  // stride_order [0, 1, 2]: dim 0 innermost.
  EXPECT_EQ(stridesForOrder({2, 3, 4}, {0, 1, 2}), (std::vector<int64_t>{1, 2, 6}));
  // Channels last: [N, C, H, W] with stride_order [3, 0, 2, 1].
  EXPECT_EQ(stridesForOrder({2, 3, 4, 5}, {3, 0, 2, 1}), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(contiguousStrides({2, 0, 3}), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(contiguousStrides({}), std::vector<int64_t>{});
}

TEST(ArgumentInfo, SizesStridesAndTheAlignmentOfTheDataAddress) {
  Tensor t = Tensor::empty(DataType::Float, {4, 6});
  auto info = std::get<TensorArgInfo>(argumentInfo(t));
  EXPECT_EQ(info.dtype, DataType::Float);
  EXPECT_EQ(info.sizes, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(info.strides, (std::vector<int64_t>{6, 1}));
  // Host storage is 64-byte aligned; alignment is recorded up to 16 bytes.
  EXPECT_EQ(info.alignment, kMaxRecordedAlignment);
  // One float in: aligned to 4 bytes, no more.
  Tensor view = t.asStrided({3, 6}, {6, 1}, 1);
  EXPECT_EQ(std::get<TensorArgInfo>(argumentInfo(view)).alignment, 4);
  Tensor view8 = t.asStrided({3, 6}, {6, 1}, 2);
  EXPECT_EQ(std::get<TensorArgInfo>(argumentInfo(view8)).alignment, 8);
  EXPECT_EQ(std::get<ScalarValue>(argumentInfo(Argument(ScalarValue(2.5)))), ScalarValue(2.5));
}

TEST(RuntimeInfo, BindsInputsSoEveryExtentOfTheSegmentEvaluates) {
  // reshape(T0[i0, i1], [i0 * i1]) then pad by 2 on the left: extents computed.
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = reshape(t0, {mul(t0->axis(0)->extent(), t0->axis(1)->extent())});
  TensorView* t2 = pad(t1, {f.constantInt(2), f.constantInt(0)});
  f.addOutput(t2);
  RuntimeInfo info(f, {tensorInfo(DataType::Float, {3, 5})}, DeviceProperties{});
  EXPECT_EQ(info.sizes(t1), std::vector<int64_t>{15});
  EXPECT_EQ(info.sizes(t2), std::vector<int64_t>{17});
  EXPECT_EQ(info.extent(t0->axis(1)), 5);
  EXPECT_EQ(info.device().name, "host");
  EXPECT_EQ(info.inputs().size(), 1u);
  EXPECT_EQ(&info.segment(), &f);
}

TEST(RuntimeInfo, InfosThatDoNotFitAreUserErrorsNamingTheInput) {
  Fusion f;
  TensorView* a = defineSymbolicTensor(f, 2);
  TensorView* b = defineTensor(f, {-1, 1}, DataType::Float);
  Scalar* s = defineScalar(f, DataType::Int64);
  f.addOutput(add(add(a, b), s));
  auto attempt = [&](std::vector<ArgumentInfo> infos) -> std::string {
    try {
      RuntimeInfo info(f, std::move(infos), DeviceProperties{});
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  auto good_a = tensorInfo(DataType::Float, {3, 4});
  auto good_b = tensorInfo(DataType::Float, {3, 1});
  EXPECT_EQ(attempt({good_a, good_b, ScalarValue(int64_t{2})}), "");
  EXPECT_THAT(attempt({good_a, good_b}), HasSubstr("segment has 3 inputs, got 2 argument infos"));
  EXPECT_THAT(attempt({good_a, ScalarValue(1.0), ScalarValue(int64_t{2})}),
              HasSubstr("input #1 (T1_g): expected a tensor, got the scalar 1"));
  EXPECT_THAT(attempt({good_a, good_b, good_b}),
              HasSubstr("input #2 (i4): expected a scalar, got a float tensor of sizes [3, 1]"));
  EXPECT_THAT(attempt({tensorInfo(DataType::Half, {3, 4}), good_b, ScalarValue(int64_t{2})}),
              HasSubstr("input #0 (T0_g): expected dtype float, got half"));
  EXPECT_THAT(attempt({tensorInfo(DataType::Float, {3}), good_b, ScalarValue(int64_t{2})}),
              HasSubstr("input #0 (T0_g): expected 2 dims, got sizes [3]"));
  EXPECT_THAT(attempt({good_a, tensorInfo(DataType::Float, {3, 2}), ScalarValue(int64_t{2})}),
              HasSubstr("input #1 (T1_g): dim 1 has size 2, expected 1 (a broadcast dim)"));
}

TEST(FusionRuntimeFacts, IntermediatesAreFreshDenseAllocationsInTheirAllocationOrder) {
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  t1->setStrideOrder({0, 1});  // dim 0 innermost
  TensorView* t2 = broadcast(sum(t1, {1}), {false, true});
  TensorView* t3 = expand(t2, {f.constantInt(-1), t0->axis(1)->extent()});
  TensorView* t4 = add(t3, t1);
  f.addOutput(t4);
  auto given = tensorInfo(DataType::Float, {3, 5}, {7, 1}, 4);
  FusionRuntimeFacts facts(f, {given}, DeviceProperties{});

  auto in = std::get<TensorArgInfo>(facts.argumentInfo(t0));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{7, 1}));  // as given
  EXPECT_EQ(in.alignment, 4);
  auto mid = std::get<TensorArgInfo>(facts.argumentInfo(t1));
  EXPECT_EQ(mid.sizes, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(mid.strides, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(mid.alignment, kMaxRecordedAlignment);  // as the runtime records a fresh allocation
  auto expanded = std::get<TensorArgInfo>(facts.argumentInfo(t3));
  EXPECT_EQ(expanded.sizes, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(expanded.strides, (std::vector<int64_t>{1, 0}));  // the expanded dim takes no memory
  EXPECT_EQ(toInt(facts.scalarValue(t0->axis(1)->extent())), 5);

  // A segment reading T1 and T3 gets those infos; its extents evaluate.
  auto seg = extractSegment(f, {t4->definition()});
  RuntimeInfo info = facts.forSegment(*seg.fusion, seg.inputs);
  ASSERT_EQ(info.inputs().size(), 2u);
  EXPECT_EQ(std::get<TensorArgInfo>(info.inputs()[0]).strides, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(info.sizes(seg.fusion->outputs()[0]->as<TensorView>()), (std::vector<int64_t>{3, 5}));
}

TEST(FusionRuntimeFacts, IntermediateTooLargeForInt64NamesItsOp) {
  // Each size fits; their product does not (its dense strides wrapped before).
  Fusion f;
  Scalar* rows = defineScalar(f, DataType::Int64);
  Scalar* cols = defineScalar(f, DataType::Int64);
  TensorView* t = full(f, {rows, cols}, f.constantDouble(1), DataType::Float);
  f.addOutput(sum(t, {0, 1}));
  const int64_t big = int64_t{1} << 32;
  FusionRuntimeFacts facts(f, {ScalarValue(big), ScalarValue(big)}, DeviceProperties{});
  try {
    facts.argumentInfo(t);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("full: its output T0_g of sizes [4294967296, 4294967296] is "
                                    "too large"));
  }
}

TEST(BoundaryView, ExpandedBroadcastDimsGetStrideZero) {
  Fusion f;
  TensorView* t0 = defineTensor(f, {-1, 1}, DataType::Float);
  TensorView* t1 = expand(t0, {f.constantInt(-1), defineScalar(f, DataType::Int64)});
  f.addOutput(t1);
  Tensor dense = Tensor::empty(DataType::Float, {3, 4});
  Tensor v = boundaryView(t1, dense);
  EXPECT_EQ(v.strides(), (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(v.sizes(), dense.sizes());
  EXPECT_EQ(boundaryView(t0, Tensor::empty(DataType::Float, {3, 1})).strides(),
            (std::vector<int64_t>{1, 1}));
}

}  // namespace
}  // namespace fusebox
