// The host Tensor: allocation, strides, views, copies, element access, errors.
#include <fusebox/tensor.h>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::makeFloat;
using ::testing::HasSubstr;

TEST(Tensor, EmptyIsZeroFilledRowMajorAndAligned) {
  Tensor t = Tensor::empty(DataType::Float, {2, 3, 4});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.storage()->nbytes, 24 * 4);
  for (double v : t.toDoubles()) EXPECT_EQ(v, 0.0);
}

TEST(Tensor, StrideOrder) {
  // stride_order ranks dims, 0 = innermost: [2, 0, 1] puts dim 1 innermost, then dim 2, then dim 0.
  EXPECT_EQ(stridesForOrder({2, 3, 4}, {2, 0, 1}), (std::vector<int64_t>{12, 1, 3}));
  EXPECT_EQ(stridesForOrder({2, 3}, {0, 1}), (std::vector<int64_t>{1, 2}));
  Tensor t = Tensor::emptyWithStrideOrder(DataType::Double, {2, 3, 4}, {2, 0, 1});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 1, 3}));
  EXPECT_FALSE(t.isContiguous());
  EXPECT_USER_ERROR(stridesForOrder({2, 3}, {0, 0}), HasSubstr("not a permutation"));
  EXPECT_USER_ERROR(stridesForOrder({2, 3}, {0}), HasSubstr("one entry per dim"));
}

TEST(Tensor, ZeroSizedDimsUseOneForStrides) {
  EXPECT_EQ(contiguousStrides({2, 0, 3}), (std::vector<int64_t>{3, 3, 1}));
  Tensor t = Tensor::empty(DataType::Float, {2, 0, 3});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_TRUE(t.toDoubles().empty());
}

TEST(Tensor, ElementAccessAndConversion) {
  Tensor t = Tensor::empty(DataType::Int32, {2, 2});
  t.setDouble({0, 1}, -2.7);                 // truncates toward zero
  t.setInt({1, 0}, (int64_t{1} << 32) + 5);  // wraps to int32
  EXPECT_EQ(t.getInt({0, 1}), -2);
  EXPECT_EQ(t.getInt({1, 0}), 5);
  Tensor h = Tensor::empty(DataType::Half, {1});
  h.setDouble({0}, 0.1);
  EXPECT_EQ(h.getDouble({0}), 0.0999755859375);  // nearest half to 0.1: 1638 * 2^-14
  Tensor b = Tensor::empty(DataType::Bool, {1});
  b.setDouble({0}, 0.25);
  EXPECT_EQ(b.getInt({0}), 1);
  Tensor s = Tensor::scalar(DataType::Double, 2.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.getDouble({}), 2.5);
  EXPECT_EQ(s.numel(), 1);
}

TEST(Tensor, AccessErrors) {
  Tensor t = Tensor::empty(DataType::Float, {2, 3});
  EXPECT_USER_ERROR(t.getDouble({2, 0}), HasSubstr("out of range"));
  EXPECT_USER_ERROR(t.getDouble({0}), HasSubstr("has 1 entries"));
  EXPECT_USER_ERROR(t.size(2), HasSubstr("out of range"));
  EXPECT_USER_ERROR(t.getDoubleLinear(6), HasSubstr("out of range"));
  EXPECT_USER_ERROR(Tensor::empty(DataType::Float, {2, -1}), HasSubstr("expected >= 0"));
  EXPECT_USER_ERROR(Tensor::emptyStrided(DataType::Float, {2}, {-1}),
                    HasSubstr("negative strides are not supported"));
  EXPECT_USER_ERROR(Tensor::emptyStrided(DataType::Float, {2}, {1, 1}), HasSubstr("strides"));
}

TEST(Tensor, AsStridedViewsShareStorage) {
  Tensor t = makeFloat({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor tr = t.asStrided({3, 2}, {1, 3}, 0);  // the transpose
  EXPECT_EQ(tr.toDoubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(tr.isContiguous());
  tr.setDouble({2, 1}, 50);
  EXPECT_EQ(t.getDouble({1, 2}), 50);
  Tensor tail = t.asStrided({2}, {1}, 4);
  EXPECT_EQ(tail.toDoubles(), (std::vector<double>{4, 50}));
  EXPECT_EQ(tail.storageOffset(), 4);
  Tensor expanded = t.asStrided({4, 3}, {0, 1}, 0);
  EXPECT_EQ(expanded.toDoubles(), (std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

TEST(Tensor, AsStridedIsBoundsChecked) {
  Tensor t = makeFloat({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_USER_ERROR(t.asStrided({2, 3}, {3, 1}, 1),
                    HasSubstr("reaches element 6, but the storage holds 6 elements"));
  EXPECT_USER_ERROR(t.asStrided({7}, {1}, 0), HasSubstr("storage holds 6"));
  EXPECT_USER_ERROR(t.asStrided({1}, {1}, -1), HasSubstr("negative"));
  EXPECT_NO_THROW(t.asStrided({0}, {1}, 6));  // an empty view at the end
  // An empty view reaches nothing, wherever it starts (a slice of an empty
  // tensor past its start); it points into the storage all the same.
  Tensor nothing = Tensor::empty(DataType::Float, {0, 3, 5});
  Tensor far = nothing.asStrided({0, 2, 1}, {15, 5, 1}, 6);
  EXPECT_EQ(far.numel(), 0);
  EXPECT_EQ(far.storageOffset(), 0);
  EXPECT_USER_ERROR(Tensor().asStrided({1}, {1}, 0), HasSubstr("undefined"));
}

TEST(Tensor, ContiguousCopies) {
  Tensor t = makeFloat({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor same = t.contiguous();
  EXPECT_EQ(same.data(), t.data());  // already contiguous: no copy
  Tensor forced = t.contiguous(true);
  EXPECT_NE(forced.data(), t.data());
  Tensor tr = t.asStrided({3, 2}, {1, 3}, 0).contiguous();
  EXPECT_TRUE(tr.isContiguous());
  EXPECT_EQ(tr.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(tr.toDoubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, IsContiguousIgnoresSizeOneDims) {
  Tensor t = Tensor::emptyStrided(DataType::Float, {3, 1, 2}, {2, 77, 1});
  EXPECT_TRUE(t.isContiguous());
  Tensor u = Tensor::emptyStrided(DataType::Float, {3, 2}, {1, 3});
  EXPECT_FALSE(u.isContiguous());
}

TEST(Tensor, CopyIntoConvertsDtypes) {
  Tensor src = makeFloat({3}, {1.5, -2.5, 1e6});
  Tensor dst = Tensor::empty(DataType::Int64, {3});
  copyInto(src, dst);
  EXPECT_EQ(dst.toDoubles(), (std::vector<double>{1, -2, 1e6}));
  Tensor h = Tensor::empty(DataType::Half, {3});
  copyInto(src, h);
  EXPECT_EQ(h.toDoubles(), (std::vector<double>{1.5, -2.5, INFINITY}));
  Tensor wrong = Tensor::empty(DataType::Float, {2});
  EXPECT_USER_ERROR(copyInto(src, wrong), HasSubstr("sizes differ"));
}

TEST(Tensor, FromBlobRunsDeleterOnce) {
  int calls = 0;
  double data[4] = {1, 2, 3, 4};
  {
    Tensor t = Tensor::fromBlob(data, DataType::Double, {2, 2}, {1, 2}, Device::Host,
                                [&](void*) { ++calls; });
    Tensor copy = t;  // shares the storage
    EXPECT_EQ(copy.toDoubles(), (std::vector<double>{1, 3, 2, 4}));
  }
  EXPECT_EQ(calls, 1);
}

TEST(Tensor, Describe) {
  EXPECT_EQ(Tensor::empty(DataType::Float, {16, 512}).describe(), "float[16, 512]{strides 512, 1}");
  EXPECT_EQ(Tensor::scalar(DataType::Int64, 3).describe(), "int64[]");
  Tensor t = Tensor::empty(DataType::BFloat16, {4});
  EXPECT_EQ(t.asStrided({2}, {2}, 1).describe(), "bfloat16[2]{strides 2; offset 1}");
  EXPECT_EQ(Tensor().describe(), "undefined");
}

TEST(Tensor, DeviceTensorsRefuseHostAccess) {
  float dummy = 0;
  Tensor t = Tensor::fromBlob(&dummy, DataType::Float, {1}, {1}, Device::Cuda);
  EXPECT_EQ(t.device(), Device::Cuda);
  EXPECT_USER_ERROR(t.getDouble({0}), HasSubstr("device tensor"));
  EXPECT_USER_ERROR(t.toDoubles(), HasSubstr("device tensor"));
}

}  // namespace
}  // namespace fusebox
