// Elementwise math on inputs-list tensors (`torch.rand(256) + 0.5`,
// `torch.randn(8, 8) * 2`, `.abs()`, `.exp()`): the values torch computes,
// torch's result dtypes, the layout of an elementwise result, each written
// back as Python that reads back the same, and clear errors for what torch
// refuses or fusebox does not take.
#include <fusebox/frontend/python_definition.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "frontend/definition_scripts.h"
#include "support/user_error_text.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;

InputSpec one(const std::string& entry) { return testing::parseInputEntry(entry); }

Tensor made(const InputSpec& spec) {
  return std::get<Tensor>(materializeInput(spec, 7));
}

std::vector<double> values(const std::string& entry) {
  return made(one(entry)).toDoubles();
}

std::string errorOf(const std::string& entry) {
  return testing::userErrorText([&] { testing::parseInputsList(entry, 1); });
}

void expectRoundTrip(const std::string& entry) {
  const InputSpec spec = one(entry);
  const std::string text = toPython(spec);
  SCOPED_TRACE(text);
  const InputSpec back = one(text);
  EXPECT_EQ(toPython(back), text);
  const Tensor a = made(spec), b = made(back);
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.strides(), b.strides());
  EXPECT_EQ(a.toDoubles(), b.toDoubles());
}

// The same random values, shifted, scaled, or mapped, as torch computes them.
TEST(InputMath, NumbersApplyToTheConstructorsValues) {
  const std::vector<double> r = values("torch.rand(256)");
  const std::vector<double> shifted = values("torch.rand(256) + 0.5");
  const std::vector<double> reversed = values("1.5 - torch.rand(256)");
  ASSERT_EQ(shifted.size(), r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(shifted[i], static_cast<float>(r[i] + 0.5));
    EXPECT_EQ(reversed[i], static_cast<float>(1.5 - r[i]));
    EXPECT_GE(shifted[i], 0.5);
  }
  const std::vector<double> n = values("torch.randn(8, 8)");
  const std::vector<double> scaled = values("torch.randn(8, 8) * 2");
  const std::vector<double> absolute = values("torch.randn(8, 8).abs()");
  const std::vector<double> exponent = values("torch.randn(8, 8).exp()");
  const std::vector<double> clamped = values("torch.randn(8, 8).clamp(min=-0.5, max=0.5)");
  for (size_t i = 0; i < n.size(); ++i) {
    EXPECT_EQ(scaled[i], 2 * n[i]);
    EXPECT_EQ(absolute[i], std::fabs(n[i]));
    EXPECT_EQ(exponent[i], static_cast<float>(std::exp(n[i])));
    EXPECT_EQ(clamped[i], std::min(0.5, std::max(-0.5, n[i])));
  }
  EXPECT_EQ(values("-torch.tensor([1.0, -2.0])"), (std::vector<double>{-1, 2}));
  EXPECT_EQ(values("torch.tensor([1.0, 2.0]) ** 2"), (std::vector<double>{1, 4}));
  EXPECT_EQ(values("2 ** torch.tensor([1, 3])"), (std::vector<double>{2, 8}));
}

TEST(InputMath, ResultDtypesFollowTorch) {
  EXPECT_EQ(one("torch.tensor([1, 2]) + 1").dtype, DataType::Int64);
  EXPECT_EQ(one("torch.tensor([1, 2]) * 0.5").dtype, DataType::Float);
  EXPECT_EQ(values("torch.tensor([1, 2]) * 0.5"), (std::vector<double>{0.5, 1}));
  EXPECT_EQ(one("torch.tensor([1, 2]) / 2").dtype, DataType::Float);
  EXPECT_EQ(values("torch.tensor([1, 3]) / 2"), (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(one("torch.tensor([1, 2]).exp()").dtype, DataType::Float);
  EXPECT_EQ(one("torch.tensor([1, -2]).abs()").dtype, DataType::Int64);
  EXPECT_EQ(values("torch.tensor([1, -2]).abs()"), (std::vector<double>{1, 2}));
  EXPECT_EQ(one("torch.tensor([1, 2], dtype=torch.int32) * 3").dtype, DataType::Int32);
  EXPECT_EQ(one("torch.randn(4, dtype=torch.bfloat16) * 3").dtype, DataType::BFloat16);
  EXPECT_EQ(one("torch.tensor([1, 2]).clamp(0.5)").dtype, DataType::Float);
  // Integers wrap as torch's do.
  Tensor wrapped = made(one("torch.tensor([2147483647], dtype=torch.int32) + 1"));
  EXPECT_EQ(wrapped.getInt({0}), -2147483648);
}

// An elementwise result of a transposed tensor keeps its strides (torch's
// TensorIterator); views after the math apply to the new storage.
TEST(InputMath, LayoutAndViewsAroundTheMath) {
  const Tensor t = made(one("torch.randn(4, 6).t() * 2"));
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 6}));
  const Tensor v = made(one("(torch.rand(4, 6) + 1).t()"));
  EXPECT_EQ(v.strides(), (std::vector<int64_t>{1, 6}));
  EXPECT_GE(v.toDoubles()[0], 1.0);
}

TEST(InputMath, EachReadsBackAsWritten) {
  for (const std::string entry :
       {"torch.rand(256) + 0.5", "torch.randn(8, 8) * 2", "torch.randn(3).abs()",
        "torch.randn(3).exp()", "1.5 - torch.rand(4)", "2 / torch.rand(4)",
        "torch.tensor([1, 2]) ** 3", "-torch.randn(2, 3).t()", "torch.randn(5).clamp(max=0.0)",
        "(torch.randint(0, 9, (4,)) * 0.5).to(torch.float64)", "torch.rand(3).sigmoid().log()"})
    expectRoundTrip(entry);
}

TEST(InputMath, WhatTorchRefusesOrFuseboxDoesNotTakeIsAnError) {
  EXPECT_THAT(errorOf("torch.rand(2) + torch.rand(2)"),
              HasSubstr("operator '+' between two inputs-list tensors is not supported"));
  EXPECT_THAT(errorOf("torch.tensor([1, 2]) ** -1"),
              HasSubstr("integers to negative integer powers are not allowed"));
  EXPECT_THAT(errorOf("torch.tensor([True]) + 1"), HasSubstr("of a bool tensor is not supported"));
  EXPECT_THAT(errorOf("torch.rand(2) // 2"), HasSubstr("operator '//' on an inputs-list tensor"));
  EXPECT_THAT(errorOf("torch.rand(2).mul_(2)"), HasSubstr("unsupported method .mul_"));
  EXPECT_THAT(errorOf("torch.rand(2).clamp()"), HasSubstr(".clamp needs min or max"));
  EXPECT_THAT(errorOf("torch.rand(2) + 'a'"), HasSubstr("expected an int or float number"));
}

}  // namespace
}  // namespace fusebox
