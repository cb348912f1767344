// Layouts: strided, permuted, sliced and expanded inputs give the same values
// as contiguous ones; outputs honor required stride orders and allocation domains.
#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::arange;
using test::makeFloat;
using test::makeTensor;
using test::runOne;
using test::valuesOf;

// out = x * 10 + y on [2, 3] inputs.
std::unique_ptr<Fusion> mulAdd() {
  auto f = std::make_unique<Fusion>();
  auto* x = defineTensor(*f, {-1, -1}, DataType::Float);
  auto* y = defineTensor(*f, {-1, -1}, DataType::Float);
  f->addOutput(add(mul(x, f->constantDouble(10)), y));
  return f;
}

TEST(EvalLayout, StridedInputsGiveTheSameValues) {
  auto f = mulAdd();
  Tensor x = makeFloat({2, 3}, arange(6));
  Tensor y = makeFloat({2, 3}, arange(6, 100));
  const auto want = valuesOf(runOne(*f, {x, y}));
  EXPECT_EQ(want, (std::vector<double>{100, 111, 122, 133, 144, 155}));

  // x as the transpose of a [3, 2] buffer holding x^T.
  Tensor xt_buffer = makeFloat({3, 2}, {0, 3, 1, 4, 2, 5});
  Tensor x_permuted = xt_buffer.asStrided({2, 3}, {1, 2}, 0);
  // y as a slice of a wider [2, 5] buffer (columns 1..3), at a storage offset.
  Tensor wide = makeFloat({2, 5}, {0, 100, 101, 102, 0, 0, 103, 104, 105, 0});
  Tensor y_sliced = wide.asStrided({2, 3}, {5, 1}, 1);
  EXPECT_EQ(valuesOf(runOne(*f, {x_permuted, y_sliced})), want);
}

TEST(EvalLayout, ExpandedInputOfStrideZero) {
  // A [1, 3] row expanded to [4, 3] with stride 0, fed to a symbolic [-1, -1] input.
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Double);
  f.addOutput(neg(x));
  Tensor row = makeTensor(DataType::Double, {1, 3}, {1, 2, 3});
  Tensor expanded = row.asStrided({4, 3}, {0, 1}, 0);
  Tensor out = runOne(f, {expanded});
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(valuesOf(out), (std::vector<double>{-1, -2, -3, -1, -2, -3, -1, -2, -3, -1, -2, -3}));
}

TEST(EvalLayout, ExpandedBroadcastInputDeclaredAsSuch) {
  // broadcast + expand inputs in nvFuser: a stride-0 dim for an expanded broadcast.
  Fusion f;
  auto* x = defineTensor(f, {1, -1}, DataType::Float);
  auto* e = expand(x, {defineScalar(f, DataType::Int64), f.constantInt(-1)});
  f.addOutput(e);
  Tensor out = runOne(f, {makeFloat({1, 2}, {5, 6}), ScalarValue(int64_t{3})});
  EXPECT_EQ(valuesOf(out), (std::vector<double>{5, 6, 5, 6, 5, 6}));
}

TEST(EvalLayout, RequiredStrideOrderOnOutputs) {
  auto f = mulAdd();
  auto* out = f->outputs()[0]->as<TensorView>();
  f->setRequiredStrideOrder(out, {0, 1});  // column-major: dim 0 innermost
  Tensor x = makeFloat({2, 3}, arange(6));
  Tensor y = makeFloat({2, 3}, arange(6, 100));
  Tensor t = runOne(*f, {x, y});
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(valuesOf(t), (std::vector<double>{100, 111, 122, 133, 144, 155}));
}

TEST(EvalLayout, RequiredStrideOrderOfRankThree) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1, -1}, DataType::Int64);
  auto* out = set(x);
  f.addOutput(out);
  f.setRequiredStrideOrder(out, {1, 2, 0});  // dim 2 innermost, then dim 0, then dim 1
  Tensor t = runOne(f, {makeTensor(DataType::Int64, {2, 3, 4}, arange(24))});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{4, 8, 1}));
  EXPECT_EQ(valuesOf(t), arange(24));
}

TEST(EvalLayout, AllocationDomainWhenNoRequiredOrder) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* out = neg(x);
  out->setStrideOrder({0, 1});
  f.addOutput(out);
  Tensor t = runOne(f, {makeFloat({2, 3}, arange(6))});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(valuesOf(t), (std::vector<double>{0, -1, -2, -3, -4, -5}));
}

TEST(EvalLayout, RequiredOrderWinsOverAllocationDomain) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  auto* out = neg(x);
  out->setStrideOrder({0, 1});
  f.addOutput(out);
  f.setRequiredStrideOrder(out, {1, 0});
  Tensor t = runOne(f, {makeFloat({2, 3}, arange(6))});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
}

TEST(EvalLayout, PassThroughInputHonorsRequiredOrder) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(x);
  f.setRequiredStrideOrder(x, {0, 1});
  Tensor in = makeFloat({2, 2}, {1, 2, 3, 4});
  Tensor t = runOne(f, {in});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(valuesOf(t), (std::vector<double>{1, 2, 3, 4}));
}

TEST(EvalLayout, AliasedOutputIsWrittenIntoItsInput) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Float);
  auto* y = add(x, f.constantDouble(1));
  f.addOutput(y);
  f.aliasOutputToInput(y, x);
  Tensor in = makeFloat({3}, {1, 2, 3});
  Tensor out = runOne(f, {in});
  EXPECT_EQ(out.data(), in.data());
  EXPECT_EQ(valuesOf(in), (std::vector<double>{2, 3, 4}));
  Tensor expanded = makeFloat({1}, {5}).asStrided({3}, {0}, 0);
  EXPECT_USER_ERROR(runOne(f, {expanded}), ::testing::HasSubstr("input #0 (T0_g)"),
                    ::testing::HasSubstr("is written into it in place, but its elements share "
                                         "memory"));
}

}  // namespace
}  // namespace fusebox
