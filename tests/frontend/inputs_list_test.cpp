// The `inputs = [...]` list: torch constructors read into InputSpecs, written
// back as Python, and materialized into deterministic host tensors.
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "frontend/definition_scripts.h"

namespace fusebox {
namespace {

using testing::parseInputsList;

TEST(InputsList, ConstructorsShapesDtypesAndDefaults) {
  auto specs = parseInputsList(
      "torch.randn(16, 512, 4096, device=\"cuda\"),\n"
      "torch.rand((2, 3), dtype=torch.float16, device='cuda:0'),\n"
      "torch.ones(4, dtype=torch.bfloat16, requires_grad=True),\n"
      "torch.zeros(size=[2, 2], dtype=torch.int32),\n"
      "torch.full((2, 3), 1.5, device='cuda'),\n"
      "torch.full((1,), 7),\n"
      "torch.randint(0, 10, (4,), dtype=torch.int64, device='cuda:0'),\n"
      "torch.randint(5, (3,)),\n"
      "torch.testing.make_tensor((2, 3), dtype=torch.float32, device='cuda:0', low=-1, high=2.5),\n"
      "torch.testing.make_tensor(5, dtype=torch.bool, device='cuda:0'),\n"
      "torch.randn(torch.Size([3, 1]), dtype=torch.double),\n"
      "torch.randn(()),\n"
      "1.0, -2, True, float('inf')",
      16);
  ASSERT_EQ(specs.size(), 16u);
  EXPECT_EQ(specs[0].kind, InputSpec::Kind::Randn);
  EXPECT_EQ(specs[0].shape, (std::vector<int64_t>{16, 512, 4096}));
  EXPECT_EQ(specs[0].dtype, DataType::Float);
  EXPECT_EQ(specs[1].kind, InputSpec::Kind::Rand);
  EXPECT_EQ(specs[1].dtype, DataType::Half);
  EXPECT_EQ(specs[2].kind, InputSpec::Kind::Ones);
  EXPECT_EQ(specs[2].dtype, DataType::BFloat16);
  EXPECT_EQ(specs[3].kind, InputSpec::Kind::Zeros);
  EXPECT_EQ(specs[3].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(specs[3].dtype, DataType::Int32);
  EXPECT_EQ(specs[4].kind, InputSpec::Kind::Full);
  EXPECT_EQ(specs[4].fill_value, ScalarValue(1.5));
  EXPECT_EQ(specs[4].dtype, DataType::Float);
  EXPECT_EQ(specs[5].dtype, DataType::Int64);  // torch infers int64 from an int fill value
  EXPECT_EQ(specs[6].kind, InputSpec::Kind::Randint);
  EXPECT_EQ(specs[6].low, 0);
  EXPECT_EQ(specs[6].high, 10);
  EXPECT_EQ(specs[6].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(specs[7].low, 0);  // randint(high, size)
  EXPECT_EQ(specs[7].high, 5);
  EXPECT_EQ(specs[7].dtype, DataType::Int64);
  EXPECT_EQ(specs[8].kind, InputSpec::Kind::MakeTensor);
  EXPECT_EQ(specs[8].make_low, -1.0);
  EXPECT_EQ(specs[8].make_high, 2.5);
  EXPECT_EQ(specs[9].shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(specs[9].dtype, DataType::Bool);
  EXPECT_FALSE(specs[9].make_low.has_value());
  EXPECT_EQ(specs[10].shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(specs[10].dtype, DataType::Double);
  EXPECT_TRUE(specs[11].shape.empty());
  EXPECT_EQ(specs[12].kind, InputSpec::Kind::Scalar);
  EXPECT_EQ(specs[12].dtype, DataType::Double);
  EXPECT_EQ(std::get<double>(specs[12].scalar), 1.0);
  EXPECT_EQ(std::get<int64_t>(specs[13].scalar), -2);
  EXPECT_EQ(specs[13].dtype, DataType::Int64);
  EXPECT_EQ(std::get<bool>(specs[14].scalar), true);
  EXPECT_TRUE(std::isinf(std::get<double>(specs[15].scalar)));
  // 3 header lines, 16 define_tensor lines, "inputs = [", then the first entry.
  EXPECT_EQ(specs[0].where.line, 21);
  EXPECT_EQ(specs[0].where.column, 1);
}

TEST(InputsList, AsStridedKeepsTheBaseAndTheView) {
  auto specs = parseInputsList(
      "torch.randn(8192, dtype=torch.float32, device='cuda:0').as_strided((16, 512), (512, 1)),\n"
      "torch.zeros(10).as_strided((2, 2), (1, 4), 1)",
      2);
  EXPECT_EQ(specs[0].base_shape, (std::vector<int64_t>{8192}));
  EXPECT_EQ(specs[0].shape, (std::vector<int64_t>{16, 512}));
  ASSERT_TRUE(specs[0].strides.has_value());
  EXPECT_EQ(*specs[0].strides, (std::vector<int64_t>{512, 1}));
  EXPECT_EQ(specs[1].storage_offset, 1);
}

TEST(InputsList, ToPythonWritesWhatTheListReadsBack) {
  InputSpec randn;
  randn.shape = {2, 3};
  EXPECT_EQ(toPython(randn), "torch.randn((2, 3), dtype=torch.float32, device='cuda:0')");
  InputSpec full;
  full.kind = InputSpec::Kind::Full;
  full.shape = {4};
  full.fill_value = 0.5;
  full.dtype = DataType::Half;
  EXPECT_EQ(toPython(full), "torch.full((4,), 0.5, dtype=torch.float16, device='cuda:0')");
  InputSpec randint;
  randint.kind = InputSpec::Kind::Randint;
  randint.shape = {};
  randint.low = -3;
  randint.high = 3;
  randint.dtype = DataType::Int32;
  EXPECT_EQ(toPython(randint), "torch.randint(-3, 3, (), dtype=torch.int32, device='cuda:0')");
  InputSpec make;
  make.kind = InputSpec::Kind::MakeTensor;
  make.shape = {2};
  make.dtype = DataType::BFloat16;
  make.make_low = -1;
  make.exclude_zero = true;
  EXPECT_EQ(toPython(make),
            "torch.testing.make_tensor((2,), dtype=torch.bfloat16, device='cuda:0', low=-1.0, "
            "exclude_zero=True)");
  InputSpec strided;
  strided.kind = InputSpec::Kind::Ones;
  strided.shape = {2, 3};
  strided.strides = std::vector<int64_t>{1, 2};
  EXPECT_EQ(toPython(strided),
            "torch.ones((6,), dtype=torch.float32, device='cuda:0').as_strided((2, 3), (1, 2))");
  InputSpec scalar;
  scalar.kind = InputSpec::Kind::Scalar;
  scalar.scalar = 3.0;
  EXPECT_EQ(toPython(scalar), "3.0");
  scalar.scalar = int64_t{-4};
  EXPECT_EQ(toPython(scalar), "-4");

  // Each printed entry reads back as the same spec.
  std::string list;
  for (const InputSpec* s : {&randn, &full, &randint, &make, &strided})
    list += toPython(*s) + ",\n";
  auto back = parseInputsList(list, 5);
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[1].fill_value, ScalarValue(0.5));
  EXPECT_EQ(back[1].dtype, DataType::Half);
  EXPECT_EQ(back[2].low, -3);
  EXPECT_EQ(back[2].dtype, DataType::Int32);
  EXPECT_TRUE(back[3].exclude_zero);
  EXPECT_EQ(back[3].make_low, -1.0);
  EXPECT_EQ(back[4].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back[4].base_shape, (std::vector<int64_t>{6}));
}

// ---- materialization -------------------------------------------------------------

Tensor materializeTensor(const InputSpec& spec, uint64_t seed) {
  Argument a = materializeInput(spec, seed);
  EXPECT_TRUE(std::holds_alternative<Tensor>(a));
  return std::get<Tensor>(a);
}

InputSpec specOf(InputSpec::Kind kind, std::vector<int64_t> shape, DataType dtype) {
  InputSpec s;
  s.kind = kind;
  s.shape = std::move(shape);
  s.dtype = dtype;
  return s;
}

TEST(MaterializeInput, RandnIsDeterministicPerSeedAndStandardNormal) {
  InputSpec spec = specOf(InputSpec::Kind::Randn, {100, 100}, DataType::Float);
  std::vector<double> a = materializeTensor(spec, 7).toDoubles();
  std::vector<double> b = materializeTensor(spec, 7).toDoubles();
  std::vector<double> c = materializeTensor(spec, 8).toDoubles();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0, sq = 0;
  for (double v : a) {
    sum += v;
    sq += v * v;
  }
  double mean = sum / a.size(), var = sq / a.size() - mean * mean;
  // 10000 samples: the mean's standard error is 0.01.
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
}

TEST(MaterializeInput, NeighbouringSeedsGiveUnrelatedStreams) {
  // Callers seed input i with base + i; the streams must not be shifts of each other.
  InputSpec spec = specOf(InputSpec::Kind::Rand, {1000}, DataType::Double);
  std::vector<double> a = materializeTensor(spec, 41).toDoubles();
  std::vector<double> b = materializeTensor(spec, 42).toDoubles();
  for (int shift = -3; shift <= 3; ++shift) {
    int equal = 0;
    for (int i = 3; i < 997; ++i) equal += a[i + shift] == b[i];
    EXPECT_EQ(equal, 0) << "seed 42 repeats seed 41 shifted by " << shift;
  }
}

TEST(MaterializeInput, RandIsUniformOnZeroOne) {
  std::vector<double> v =
      materializeTensor(specOf(InputSpec::Kind::Rand, {10000}, DataType::Double), 1).toDoubles();
  double sum = 0;
  for (double x : v) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
    sum += x;
  }
  EXPECT_NEAR(sum / v.size(), 0.5, 0.02);
}

TEST(MaterializeInput, RandintCoversExactlyLowToHighExclusive) {
  InputSpec spec = specOf(InputSpec::Kind::Randint, {2000}, DataType::Int64);
  spec.low = -2;
  spec.high = 3;
  Tensor t = materializeTensor(spec, 3);
  EXPECT_EQ(t.dtype(), DataType::Int64);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < t.numel(); ++i) seen.insert(t.getInt({i}));
  EXPECT_EQ(seen, (std::set<int64_t>{-2, -1, 0, 1, 2}));
}

TEST(MaterializeInput, MakeTensorUsesTorchDefaultRanges) {
  std::vector<double> f =
      materializeTensor(specOf(InputSpec::Kind::MakeTensor, {5000}, DataType::Float), 2)
          .toDoubles();
  double lo = 1e9, hi = -1e9;
  for (double x : f) lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_GE(lo, -9.0);
  EXPECT_LE(hi, 9.0);
  EXPECT_LT(lo, -8.0);  // spread over the whole range
  EXPECT_GT(hi, 8.0);

  Tensor ints = materializeTensor(specOf(InputSpec::Kind::MakeTensor, {5000}, DataType::Int32), 2);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < ints.numel(); ++i) seen.insert(ints.getInt({i}));
  EXPECT_EQ(*seen.begin(), -9);
  EXPECT_EQ(*seen.rbegin(), 9);  // high 10 is exclusive
  EXPECT_EQ(seen.size(), 19u);

  std::vector<double> bools =
      materializeTensor(specOf(InputSpec::Kind::MakeTensor, {200}, DataType::Bool), 2).toDoubles();
  std::set<double> bool_values(bools.begin(), bools.end());
  EXPECT_EQ(bool_values, (std::set<double>{0.0, 1.0}));

  InputSpec ranged = specOf(InputSpec::Kind::MakeTensor, {1000}, DataType::Int64);
  ranged.make_low = -1;
  ranged.make_high = 1;
  ranged.exclude_zero = true;
  Tensor r = materializeTensor(ranged, 4);
  std::set<int64_t> nonzero;
  for (int64_t i = 0; i < r.numel(); ++i) nonzero.insert(r.getInt({i}));
  EXPECT_EQ(nonzero,
            (std::set<int64_t>{
                -1, 1}));  // [-1, 1) is {-1, 0}; exclude_zero turns 0 into 1, as torch does
}

TEST(MaterializeInput, ConstantsAndHalfPrecision) {
  for (double x :
       materializeTensor(specOf(InputSpec::Kind::Ones, {3, 2}, DataType::Half), 0).toDoubles())
    EXPECT_EQ(x, 1.0);
  for (double x :
       materializeTensor(specOf(InputSpec::Kind::Zeros, {4}, DataType::Int32), 0).toDoubles())
    EXPECT_EQ(x, 0.0);
  InputSpec full = specOf(InputSpec::Kind::Full, {2, 2}, DataType::BFloat16);
  full.fill_value = -2.5;
  Tensor t = materializeTensor(full, 0);
  EXPECT_EQ(t.dtype(), DataType::BFloat16);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 2}));
  for (double x : t.toDoubles()) EXPECT_EQ(x, -2.5);
}

TEST(MaterializeInput, AsStridedReturnsTheViewOfTheFilledBase) {
  InputSpec spec = specOf(InputSpec::Kind::Randn, {2, 3}, DataType::Float);
  spec.base_shape = {10};
  spec.strides = std::vector<int64_t>{1, 3};
  spec.storage_offset = 2;
  Tensor view = materializeTensor(spec, 5);
  EXPECT_EQ(view.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(view.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(view.storageOffset(), 2);
  // The same seed fills the base in the same order, so element (i, j) of the
  // view is element 2 + i + 3j of an unstrided 10-element draw.
  std::vector<double> base =
      materializeTensor(specOf(InputSpec::Kind::Randn, {10}, DataType::Float), 5).toDoubles();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(view.getDouble({i, j}), base[2 + i + 3 * j]);
}

TEST(MaterializeInput, ScalarsBecomeScalarValues) {
  InputSpec s;
  s.kind = InputSpec::Kind::Scalar;
  s.scalar = int64_t{5};
  Argument a = materializeInput(s, 0);
  ASSERT_TRUE(std::holds_alternative<ScalarValue>(a));
  EXPECT_EQ(std::get<int64_t>(std::get<ScalarValue>(a)), 5);
}

}  // namespace
}  // namespace fusebox
