// Dtype tables and PyTorch's type promotion, checked against torch's documented results.
#include <fusebox/dtype.h>
#include <fusebox/error.h>
#include <fusebox/ir/ops_types.h>

#include <gtest/gtest.h>

namespace fusebox {
namespace {

using D = DataType;

TEST(DataType, SizesAndCategories) {
  EXPECT_EQ(dataTypeSize(D::Bool), 1);
  EXPECT_EQ(dataTypeSize(D::Half), 2);
  EXPECT_EQ(dataTypeSize(D::BFloat16), 2);
  EXPECT_EQ(dataTypeSize(D::Int32), 4);
  EXPECT_EQ(dataTypeSize(D::Double), 8);
  EXPECT_TRUE(isFloatingType(D::BFloat16));
  EXPECT_FALSE(isFloatingType(D::Int64));
  EXPECT_TRUE(isIntegralType(D::Int32));
  EXPECT_FALSE(isIntegralType(D::Bool));
  EXPECT_EQ(computeType(D::Half), D::Float);
  EXPECT_EQ(computeType(D::Double), D::Double);
}

TEST(DataType, NamesRoundTrip) {
  for (DataType t : kAllDataTypes) {
    EXPECT_EQ(parseDataType(pythonName(t)), t) << pythonName(t);
    EXPECT_EQ(parseDataType(irName(t)), t) << irName(t);
  }
  EXPECT_EQ(parseDataType("Int"), D::Int64);  // nvFuser's DataType.Int is 64-bit
  EXPECT_EQ(parseDataType("float16"), D::Half);
  EXPECT_EQ(parseDataType("long"), D::Int64);
  EXPECT_EQ(parseDataType("complex64"), std::nullopt);
}

TEST(DataType, PromoteTypesMatchesTorch) {
  EXPECT_EQ(promoteTypes(D::Half, D::BFloat16), D::Float);
  EXPECT_EQ(promoteTypes(D::Half, D::Float), D::Float);
  EXPECT_EQ(promoteTypes(D::Float, D::Double), D::Double);
  EXPECT_EQ(promoteTypes(D::Int32, D::Int64), D::Int64);
  EXPECT_EQ(promoteTypes(D::Int64, D::Half), D::Half);
  EXPECT_EQ(promoteTypes(D::Bool, D::Int32), D::Int32);
  EXPECT_EQ(promoteTypes(D::Bool, D::Bool), D::Bool);
}

TEST(DataType, ScalarsOnlyRaiseTheCategory) {
  // torch: half_tensor * 2.5 -> half; int_tensor * 2.5 -> float32;
  // bool_tensor + 1 -> int64; float_tensor + double_scalar -> float.
  EXPECT_EQ(resultType({{D::Half, true}, {D::Double, false}}), D::Half);
  EXPECT_EQ(resultType({{D::Int32, true}, {D::Double, false}}), D::Float);
  EXPECT_EQ(resultType({{D::Bool, true}, {D::Int64, false}}), D::Int64);
  EXPECT_EQ(resultType({{D::Float, true}, {D::Double, false}}), D::Float);
  EXPECT_EQ(resultType({{D::Int32, true}, {D::Int64, false}}), D::Int32);
  EXPECT_EQ(resultType({{D::Double, false}, {D::Int64, false}}), D::Double);
  EXPECT_EQ(resultType({{D::Half, true}, {D::BFloat16, true}, {D::Double, false}}), D::Float);
}

TEST(DataType, ScalarValueConversions) {
  EXPECT_EQ(std::get<int64_t>(castScalar(2.9, D::Int64)), 2);
  EXPECT_EQ(std::get<int64_t>(castScalar(-2.9, D::Int32)), -2);
  EXPECT_EQ(std::get<bool>(castScalar(int64_t{3}, D::Bool)), true);
  EXPECT_EQ(std::get<double>(castScalar(int64_t{3}, D::Half)), 3.0);
  EXPECT_EQ(std::get<int64_t>(castScalar(int64_t{1} << 40, D::Int32)), 0);  // wraps like int32_t
  EXPECT_EQ(toString(ScalarValue{0.5}), "0.5");
  EXPECT_EQ(toString(ScalarValue{int64_t{-3}}), "-3");
  EXPECT_THROW(toInt(ScalarValue{1.0 / 0.0}), UserError);
}

TEST(OpTypes, EveryOpNameParsesBack) {
  for (auto op : allUnaryOpTypes()) EXPECT_EQ(parseUnaryOpType(toString(op)), op);
  for (auto op : allBinaryOpTypes()) EXPECT_EQ(parseBinaryOpType(toString(op)), op);
  for (auto op : allTernaryOpTypes()) EXPECT_EQ(parseTernaryOpType(toString(op)), op);
  EXPECT_EQ(allUnaryOpTypes().size(), static_cast<size_t>(UnaryOpType::Signbit) + 1);
  EXPECT_EQ(allBinaryOpTypes().size(), static_cast<size_t>(BinaryOpType::LogicalRightShift) + 1);
  EXPECT_EQ(toString(UnaryOpType::Signbit), "signbit");
  EXPECT_EQ(parseBinaryOpType("logical_right_shift"), BinaryOpType::LogicalRightShift);
  EXPECT_EQ(parseBinaryOpType("nextafter"), BinaryOpType::Nextafter);
  EXPECT_EQ(parseBinaryOpType("gcd"), BinaryOpType::Gcd);
  EXPECT_EQ(scanName(ReductionOpType::Sum), "cumsum");
  EXPECT_EQ(scanName(ReductionOpType::Min), "cummin");
  EXPECT_EQ(parseBinaryOpType("frobnicate"), std::nullopt);
}

}  // namespace
}  // namespace fusebox
