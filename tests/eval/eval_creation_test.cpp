// Evaluator numerics of full, iota and the Philox-based uniform / normal ops.
// The random tests re-derive the values from the mapping docs/random.md
// specifies, with an independent Philox written here and checked against the
// published known-answer vectors of Random123.
#include <array>
#include <cmath>
#include <numbers>

#include "eval/eval_test_util.h"

namespace fusebox {
namespace {

using test::makeTensor;
using test::runOne;
using test::valuesOf;
using ::testing::HasSubstr;

TEST(EvalCreation, Full) {
  Fusion f;
  auto* n = defineScalar(f, DataType::Int64);
  f.addOutput(full(f, {f.constantInt(2), n}, f.constantDouble(1.5), DataType::Float));
  f.addOutput(full(f, {n}, f.constantDouble(2.9), DataType::Int32));
  f.addOutput(full(f, {}, f.constantBool(true), DataType::Half));
  auto outs = test::run(f, {ScalarValue(int64_t{3})});
  EXPECT_EQ(test::tensorOf(outs[0]).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(outs[0]), std::vector<double>(6, 1.5));
  EXPECT_EQ(valuesOf(outs[1]), std::vector<double>(3, 2));  // converted as a cast: truncation
  EXPECT_EQ(test::tensorOf(outs[2]).dim(), 0);
  EXPECT_EQ(valuesOf(outs[2]), std::vector<double>{1});
  EXPECT_USER_ERROR(test::run(f, {ScalarValue(int64_t{-1})}), HasSubstr("= full("),
                    HasSubstr("shape entry 1 is -1"));
}

TEST(EvalCreation, Iota) {
  Fusion f;
  f.addOutput(iota(f, f.constantInt(4), f.constantInt(10), f.constantInt(-3), DataType::Int64));
  f.addOutput(
      iota(f, f.constantInt(3), f.constantDouble(0.5), f.constantDouble(0.25), DataType::Float));
  f.addOutput(iota(f, f.constantInt(0), f.constantInt(0), f.constantInt(1), DataType::Int32));
  auto outs = test::run(f, {});
  EXPECT_EQ(valuesOf(outs[0]), (std::vector<double>{10, 7, 4, 1}));
  EXPECT_EQ(valuesOf(outs[1]), (std::vector<double>{0.5, 0.75, 1.0}));
  EXPECT_EQ(test::tensorOf(outs[2]).sizes(), (std::vector<int64_t>{0}));
}

// ---- an independent Philox4x32-10 and the documented element mapping ----------

using Block = std::array<uint32_t, 4>;

Block philox(Block x, std::array<uint32_t, 2> k) {
  for (int r = 0; r < 10; ++r) {
    const uint64_t a = uint64_t{0xD2511F53} * x[0], b = uint64_t{0xCD9E8D57} * x[2];
    x = {uint32_t(b >> 32) ^ x[1] ^ k[0], uint32_t(b), uint32_t(a >> 32) ^ x[3] ^ k[1],
         uint32_t(a)};
    k[0] += 0x9E3779B9;
    k[1] += 0xBB67AE85;
  }
  return x;
}

// Word j of the (seed, offset) stream, per docs/random.md.
uint32_t word(uint64_t seed, uint64_t offset, uint64_t j) {
  const uint64_t q = j / 4;
  Block c = {uint32_t(q), uint32_t(q >> 32), uint32_t(offset), uint32_t(offset >> 32)};
  return philox(c, {uint32_t(seed), uint32_t(seed >> 32)})[j % 4];
}

TEST(EvalCreation, PhiloxKnownAnswers) {
  EXPECT_EQ(philox({0, 0, 0, 0}, {0, 0}), (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

Fusion* uniformFusion(Fusion& f, DataType dtype, bool with_seed, double low = 0, double high = 1) {
  std::vector<Val*> shape = {defineScalar(f, DataType::Int64)};
  Val* seed = with_seed ? defineScalar(f, DataType::Int64) : nullptr;
  Val* offset = with_seed ? defineScalar(f, DataType::Int64) : nullptr;
  f.addOutput(
      uniform(f, shape, f.constantDouble(low), f.constantDouble(high), dtype, seed, offset));
  return &f;
}

std::vector<double> runUniform(DataType dtype, int64_t n, int64_t seed, int64_t offset,
                               double low = 0, double high = 1) {
  Fusion f;
  uniformFusion(f, dtype, true, low, high);
  return valuesOf(runOne(f, {ScalarValue(n), ScalarValue(seed), ScalarValue(offset)}));
}

TEST(EvalCreation, UniformFloatFollowsTheDocumentedMapping) {
  const uint64_t seed = 0x123456789abcdefULL, offset = 7;
  auto got = runUniform(DataType::Float, 10, static_cast<int64_t>(seed), offset, -2, 3);
  for (uint64_t i = 0; i < got.size(); ++i) {
    const double x = std::ldexp(static_cast<double>(word(seed, offset, i) >> 8), -24);
    EXPECT_EQ(got[i], test::asFloat(-2 + 5 * x)) << "element " << i;
  }
}

TEST(EvalCreation, NarrowUniformIsOneFloatFmaOfTheRoundedBounds) {
  // 0.1 and 0.6 are not floats: fma(float(high - low), x, float(low)) in
  // float (docs/random.md) is not low + (high - low) * x in double rounded
  // once, for some elements of 64.
  const uint64_t seed = 77, offset = 3;
  const double low = 0.1, high = 0.7;
  auto got = runUniform(DataType::Float, 64, static_cast<int64_t>(seed), offset, low, high);
  int differs_from_double = 0;
  for (uint64_t i = 0; i < got.size(); ++i) {
    const float x = std::ldexp(static_cast<float>(word(seed, offset, i) >> 8), -24);
    const float want = std::fma(static_cast<float>(high - low), x, static_cast<float>(low));
    EXPECT_EQ(got[i], static_cast<double>(want)) << "element " << i;
    differs_from_double += want != test::asFloat(low + (high - low) * static_cast<double>(x));
  }
  EXPECT_GT(differs_from_double, 0);
}

TEST(EvalCreation, UniformDoubleUsesTwoWordsPerElement) {
  auto got = runUniform(DataType::Double, 5, 42, 3);
  for (uint64_t i = 0; i < got.size(); ++i) {
    const uint64_t bits = (uint64_t{word(42, 3, 2 * i + 1)} << 32) | word(42, 3, 2 * i);
    EXPECT_EQ(got[i], std::ldexp(static_cast<double>(bits >> 11), -53)) << "element " << i;
  }
}

TEST(EvalCreation, NormalFollowsTheDocumentedBoxMuller) {
  Fusion f;
  auto* n = defineScalar(f, DataType::Int64);
  f.addOutput(normal(f, {n}, f.constantDouble(1), f.constantDouble(2), DataType::Float,
                     f.constantInt(5), f.constantInt(0)));
  auto got = valuesOf(runOne(f, {ScalarValue(int64_t{6})}));
  for (uint64_t i = 0; i < got.size(); ++i) {
    const double x1 = std::ldexp(static_cast<double>(word(5, 0, 2 * i) >> 8), -24);
    const double x2 = std::ldexp(static_cast<double>(word(5, 0, 2 * i + 1) >> 8), -24);
    const double z = std::sqrt(-2 * std::log(1 - x1)) * std::cos(2 * std::numbers::pi * x2);
    EXPECT_EQ(got[i], test::asFloat(1 + 2 * z)) << "element " << i;
  }
}

TEST(EvalCreation, DefaultSeedAndOffsetAreZero) {
  Fusion f;
  uniformFusion(f, DataType::Float, false);
  auto got = valuesOf(runOne(f, {ScalarValue(int64_t{4})}));
  EXPECT_EQ(got, runUniform(DataType::Float, 4, 0, 0));
  // Word 0 of seed 0 / offset 0 is 0x6627e8d5, the first known answer above.
  EXPECT_EQ(got[0], std::ldexp(static_cast<double>(0x6627e8d5u >> 8), -24));
}

TEST(EvalCreation, SameSeedSameValuesOtherOffsetOtherValues) {
  auto a = runUniform(DataType::Float, 64, 1234, 0);
  auto b = runUniform(DataType::Float, 64, 1234, 0);
  auto c = runUniform(DataType::Float, 64, 1234, 1);
  auto d = runUniform(DataType::Float, 64, 1235, 0);
  EXPECT_EQ(a, b);
  int same_c = 0, same_d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    same_c += a[i] == c[i];
    same_d += a[i] == d[i];
  }
  EXPECT_LE(same_c, 1);
  EXPECT_LE(same_d, 1);
  // A prefix of a longer tensor is the shorter tensor: element i depends only on i.
  auto longer = runUniform(DataType::Float, 100, 1234, 0);
  EXPECT_EQ(std::vector<double>(longer.begin(), longer.begin() + 64), a);
}

TEST(EvalCreation, UniformStatistics) {
  const int64_t n = 10000;
  for (DataType t : {DataType::Float, DataType::Double, DataType::BFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    auto v = runUniform(t, n, 99, 0, 2, 5);
    double mean = 0, var = 0;
    for (double x : v) {
      // bfloat16 may round up to the upper bound itself (docs/random.md).
      EXPECT_GE(x, 2);
      if (t == DataType::BFloat16)
        EXPECT_LE(x, 5);
      else
        EXPECT_LT(x, 5);
      mean += x;
    }
    mean /= n;
    for (double x : v) var += (x - mean) * (x - mean);
    var /= n - 1;
    // Uniform(2, 5): mean 3.5, variance 9/12 = 0.75. The standard error of the
    // mean is sqrt(0.75 / 1e4) ~ 0.0087; allow 5 of them.
    EXPECT_NEAR(mean, 3.5, 0.045);
    EXPECT_NEAR(var, 0.75, 0.04);
  }
}

TEST(EvalCreation, NormalStatistics) {
  Fusion f;
  auto* n = defineScalar(f, DataType::Int64);
  f.addOutput(normal(f, {n, f.constantInt(100)}, f.constantDouble(-1), f.constantDouble(3),
                     DataType::Double));
  auto v = valuesOf(runOne(f, {ScalarValue(int64_t{100})}));
  ASSERT_EQ(v.size(), 10000u);
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= v.size();
  for (double x : v) var += (x - mean) * (x - mean);
  var /= v.size() - 1;
  EXPECT_NEAR(mean, -1, 0.15);  // standard error 3 / 100 = 0.03
  EXPECT_NEAR(var, 9, 0.6);     // standard error of the variance ~ 9 * sqrt(2 / 1e4) = 0.13
}

}  // namespace
}  // namespace fusebox
