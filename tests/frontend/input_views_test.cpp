// Tensors of the inputs list beyond the random constructors: torch.tensor and
// torch.arange, views (t, expand, unsqueeze, permute, reshape, slicing,
// as_strided of a view) and copies (.to, .contiguous, channels_last, casts),
// with the sizes, strides and values torch gives them worked out by hand, and
// each written back as Python that reads back the same.
#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "frontend/definition_scripts.h"
#include "support/user_error_text.h"

namespace fusebox {
namespace {

InputSpec one(const std::string& entry) { return testing::parseInputEntry(entry); }

Tensor made(const InputSpec& spec) {
  return std::get<Tensor>(materializeInput(spec, 7));
}

// Every element in row-major order of the view, as double.
std::vector<double> values(const InputSpec& spec) {
  return made(spec).toDoubles();
}

std::vector<int64_t> strides(const InputSpec& spec) {
  return made(spec).strides();
}

// toPython reads back as an entry that makes the same tensor.
void expectRoundTrip(const InputSpec& spec) {
  const std::string text = toPython(spec);
  SCOPED_TRACE(text);
  InputSpec back = one(text);
  EXPECT_EQ(toPython(back), text);
  Tensor a = made(spec), b = made(back);
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.strides(), b.strides());
  EXPECT_EQ(a.toDoubles(), b.toDoubles());
}

TEST(InputTensors, TorchTensorInfersShapeAndDtypeAndKeepsValues) {
  InputSpec f = one("torch.tensor([[1.0, 2], [3, 4.5], [5, 6]], device='cuda')");
  EXPECT_EQ(f.kind, InputSpec::Kind::Literal);
  EXPECT_EQ(f.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(f.dtype, DataType::Float);
  EXPECT_EQ(values(f), (std::vector<double>{1, 2, 3, 4.5, 5, 6}));
  InputSpec i = one("torch.tensor([[1, True], [3, 9007199254740993]])");
  EXPECT_EQ(i.dtype, DataType::Int64);
  Tensor ti = made(i);
  EXPECT_EQ(ti.getInt({1, 1}), 9007199254740993);  // exact, not through double
  EXPECT_EQ(ti.getInt({0, 1}), 1);
  InputSpec b = one("torch.tensor([True, False])");
  EXPECT_EQ(b.dtype, DataType::Bool);
  EXPECT_EQ(values(b), (std::vector<double>{1, 0}));
  InputSpec s = one("torch.tensor(1.5, device='cuda')");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(values(s), (std::vector<double>{1.5}));
  InputSpec e = one("torch.tensor([])");
  EXPECT_EQ(e.shape, (std::vector<int64_t>{0}));
  EXPECT_EQ(e.dtype, DataType::Float);
  // dtype= converts as torch does: floats truncate towards zero.
  InputSpec c = one("torch.tensor([1.7, -1.7, 2], dtype=torch.int32)");
  EXPECT_EQ(c.dtype, DataType::Int32);
  EXPECT_EQ(values(c), (std::vector<double>{1, -1, 2}));
  for (const InputSpec& spec : {f, i, b, s, e, c}) expectRoundTrip(spec);
}

TEST(InputTensors, ArangeCountsLikeTorch) {
  InputSpec a = one("torch.arange(5, device='cuda')");
  EXPECT_EQ(a.dtype, DataType::Int64);
  EXPECT_EQ(values(a), (std::vector<double>{0, 1, 2, 3, 4}));
  InputSpec f = one("torch.arange(1, 2.0, 0.25)");
  EXPECT_EQ(f.dtype, DataType::Float);
  EXPECT_EQ(values(f), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  InputSpec down = one("torch.arange(10, 0, -3)");
  EXPECT_EQ(values(down), (std::vector<double>{10, 7, 4, 1}));
  InputSpec typed = one("torch.arange(start=2, end=5, dtype=torch.float16)");
  EXPECT_EQ(typed.dtype, DataType::Half);
  EXPECT_EQ(values(typed), (std::vector<double>{2, 3, 4}));
  InputSpec empty = one("torch.arange(3, 3)");
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0}));
  for (const InputSpec& spec : {a, f, down, typed, empty}) expectRoundTrip(spec);
}

TEST(InputTensors, ViewsHaveTorchsStridesAndShareTheStorage) {
  // arange(12) as (3, 4): element (i, j) is 4 i + j.
  const std::string base = "torch.arange(12).reshape(3, 4)";
  InputSpec t = one(base + ".t()");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(strides(t), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(values(t), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  InputSpec sliced = one(base + "[1:, ::2]");
  EXPECT_EQ(sliced.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(strides(sliced), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(sliced.storage_offset, 4);
  EXPECT_EQ(values(sliced), (std::vector<double>{4, 6, 8, 10}));
  InputSpec picked = one(base + "[..., -1]");
  EXPECT_EQ(values(picked), (std::vector<double>{3, 7, 11}));
  InputSpec row = one(base + "[2]");
  EXPECT_EQ(values(row), (std::vector<double>{8, 9, 10, 11}));
  InputSpec newaxis = one(base + "[:, None, 1:3]");
  EXPECT_EQ(newaxis.shape, (std::vector<int64_t>{3, 1, 2}));
  // None steps over the dim after it as it is when None is reached (all 4 of it).
  EXPECT_EQ(strides(newaxis), (std::vector<int64_t>{4, 4, 1}));
  EXPECT_EQ(values(newaxis), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  InputSpec expanded = one("torch.arange(3).unsqueeze(-1).expand(2, 3, 4)");
  EXPECT_EQ(expanded.shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(strides(expanded), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(values(expanded)[5], 1);  // (0, 1, 1)
  InputSpec permuted = one("torch.arange(24).reshape(2, 3, 4).permute(2, 0, 1)");
  EXPECT_EQ(strides(permuted), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(values(permuted)[1], 4);  // (0, 0, 1) is element (0, 1, 0)
  InputSpec transposed = one("torch.arange(24).reshape(2, 3, 4).transpose(0, -1)");
  EXPECT_EQ(transposed.shape, (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(strides(transposed), (std::vector<int64_t>{1, 4, 12}));
  // as_strided of a view reads the view's storage, from the view's offset.
  InputSpec again = one("torch.arange(10)[2:].as_strided((2, 2), (3, 1))");
  EXPECT_EQ(again.storage_offset, 2);
  EXPECT_EQ(values(again), (std::vector<double>{2, 3, 5, 6}));
  InputSpec inferred = one("torch.arange(6).view(-1, 2)");
  EXPECT_EQ(inferred.shape, (std::vector<int64_t>{3, 2}));
  for (const InputSpec& spec :
       {t, sliced, picked, row, newaxis, expanded, permuted, transposed, again, inferred})
    expectRoundTrip(spec);
}

TEST(InputTensors, CopiesTakeTheLayoutTorchGivesThem) {
  const std::string base = "torch.arange(6, dtype=torch.float32).reshape(2, 3)";
  // .to(dtype) of a dense view keeps its strides...
  InputSpec to_half = one(base + ".t().to(torch.float16)");
  EXPECT_EQ(to_half.dtype, DataType::Half);
  EXPECT_EQ(strides(to_half), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(to_half), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  // ...of an expanded one becomes row-major, with the repeated values written out.
  InputSpec to_int = one("torch.arange(3).expand(2, 3).to(dtype=torch.int32)");
  EXPECT_EQ(strides(to_int), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(values(to_int), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  InputSpec contiguous = one(base + ".t().contiguous()");
  EXPECT_EQ(strides(contiguous), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(contiguous), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  InputSpec channels_last =
      one("torch.arange(24.0).reshape(1, 2, 3, 4).to(memory_format="
          "torch.channels_last)");
  EXPECT_EQ(strides(channels_last), (std::vector<int64_t>{24, 1, 8, 2}));
  EXPECT_EQ(values(channels_last), values(one("torch.arange(24.0).reshape(1, 2, 3, 4)")));
  // Casts round as torch does: 0.1 in half is 0.0999755859375; bool is "non-zero".
  InputSpec rounded = one("torch.tensor([0.1, -2.0]).half().float()");
  EXPECT_EQ(rounded.dtype, DataType::Float);
  EXPECT_EQ(values(rounded), (std::vector<double>{0.0999755859375, -2}));
  InputSpec flags = one("torch.tensor([0, 3, -1]).bool()");
  EXPECT_EQ(flags.dtype, DataType::Bool);
  EXPECT_EQ(values(flags), (std::vector<double>{0, 1, 1}));
  InputSpec truncated = one("torch.tensor([2.9, -2.9]).type(torch.int64)");
  EXPECT_EQ(values(truncated), (std::vector<double>{2, -2}));
  InputSpec cloned = one("torch.tensor([1.0]).expand(3).clone()");
  EXPECT_EQ(strides(cloned), (std::vector<int64_t>{1}));
  for (const InputSpec& spec :
       {to_half, to_int, contiguous, channels_last, rounded, flags, truncated, cloned})
    expectRoundTrip(spec);
}

TEST(InputTensors, NoOpsLeaveTheTensorAsItIs) {
  // Device moves, autograd flags, a cast to the dtype it has, .contiguous() of
  // a contiguous tensor: torch returns the tensor itself.
  const std::string plain = toPython(one("torch.randn(2, 3)"));
  for (const char* suffix :
       {".cuda()", ".to('cuda')", ".to(device='cuda:0')", ".to(torch.float32)", ".contiguous()",
        ".float()", ".detach()", ".requires_grad_()", ".cpu()", ".to('cuda', torch.float32)",
        ".to(torch.device('cuda', 0))"}) {
    SCOPED_TRACE(suffix);
    InputSpec spec = one(std::string("torch.randn(2, 3)") + suffix);
    EXPECT_TRUE(spec.copies.empty());
    EXPECT_EQ(toPython(spec), plain);
  }
}

TEST(InputTensors, ALiteralResizedByItsCallerIsRefused) {
  // Callers that shrink inputs (the segmenter tests) cannot make up values torch.tensor listed.
  InputSpec spec = one("torch.tensor([1.0, 2.0])");
  spec.shape = {3};
  EXPECT_EQ(testing::userErrorText([&] { materializeInput(spec, 0); }),
            "a torch.tensor input holds 2 values, but its shape (3) has 3 elements");
}

TEST(InputTensors, ShapesAndStridesAreReadable) {
  std::string src =
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
      "x = torch.randn(4, 6)[:, 1:]\n"
      "n = x.numel() + x.dim() + x.ndim + x.storage_offset()\n"
      "inner = x.stride(-1) + x.stride()[0] + x.size(1) + x.shape[0] + len(x.size()) * 0\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(sizes=[n, inner], strides=[inner, 1], static_sizes=True)\n"
      "    T1 = fd.from_pytorch(x)\n"
      "inputs = [torch.randn(25, 16), x]\n";
  testing::expectRefusedAt(src, 5, 65, "unsupported call len(...) at the top level");
  src.replace(src.find(" + len(x.size()) * 0"), 20, "");
  PythonDefinition d = parsePythonDefinition(src, "queries.py");
  // numel 20 + dim 2 + ndim 2 + offset 1 = 25; strides 1 and 6, size 5, shape[0] 4: 16.
  const auto* t0 = d.fusion->inputs()[0]->as<TensorView>();
  EXPECT_EQ(toInt(*t0->axis(0)->extent()->value()), 25);
  EXPECT_EQ(toInt(*t0->axis(1)->extent()->value()), 16);
  // x is (4, 5) with strides (6, 1): dim 0 steps over more than dim 1 spans.
  const auto* t1 = d.fusion->inputs()[1]->as<TensorView>();
  EXPECT_EQ(t1->contiguity(), (std::vector<std::optional<bool>>{false, true}));
}

// Large random tensors are filled by several threads, each starting its
// share mid-stream: the values are those of one stream whatever the split.
// Element 5M is in a share starting at 4.5M (2 cores) or 3M (16) in a
// tensor of 9M elements, and at 0 or 4M in one of 12M; a tensor's first
// elements are those of a small tensor, made by one thread.
TEST(InputTensors, RandomValuesDoNotDependOnHowManyThreadsMadeThem) {
  for (const char* make : {"torch.randn({})", "torch.randint(-5, 9, ({},))"}) {
    SCOPED_TRACE(make);
    const int64_t m = int64_t{1} << 20;
    const std::vector<double> a = values(one(fmt::format(fmt::runtime(make), 9 * m + 3)));
    const std::vector<double> b = values(one(fmt::format(fmt::runtime(make), 12 * m)));
    const std::vector<double> few = values(one(fmt::format(fmt::runtime(make), 1000)));
    const auto at = static_cast<std::ptrdiff_t>(5 * m);
    EXPECT_TRUE(std::equal(a.begin() + at, a.begin() + at + 1000, b.begin() + at));
    EXPECT_TRUE(std::equal(few.begin(), few.end(), a.begin()));
    EXPECT_FALSE(std::equal(few.begin(), few.end(), a.begin() + at));
  }
}

}  // namespace
}  // namespace fusebox
