// Result dtypes of elementwise ops across the dtype matrix, as PyTorch gives them.
#include <set>

#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace fusebox::test;
using D = DataType;

constexpr D B = D::Bool, I32 = D::Int32, I64 = D::Int64, H = D::Half, BF = D::BFloat16,
            F = D::Float, DB = D::Double;

// torch.promote_types for two tensors, written out by hand (rows and columns
// in kAllDataTypes order: bool, int32, int64, half, bfloat16, float, double).
const D kTensorPromotion[7][7] = {
    /* bool  */ {B, I32, I64, H, BF, F, DB},
    /* int32 */ {I32, I32, I64, H, BF, F, DB},
    /* int64 */ {I64, I64, I64, H, BF, F, DB},
    /* half  */ {H, H, H, H, F, F, DB},
    /* bf16  */ {BF, BF, BF, F, BF, F, DB},
    /* float */ {F, F, F, F, F, F, DB},
    /* double*/ {DB, DB, DB, DB, DB, DB, DB},
};

D tensorBinary(BinaryOpType op, D a, D b) {
  Fusion f;
  return binaryOp(op, defineSymbolicTensor(f, 1, a), defineSymbolicTensor(f, 1, b))->dtype();
}

D tensorScalar(BinaryOpType op, D tensor, D scalar) {
  Fusion f;
  return binaryOp(op, defineSymbolicTensor(f, 1, tensor), defineScalar(f, scalar))->dtype();
}

D unaryType(UnaryOpType op, D in) {
  Fusion f;
  return unaryOp(op, defineSymbolicTensor(f, 1, in))->dtype();
}

TEST(OpsPromotion, TensorTensorArithmeticFollowsPromoteTypes) {
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      D a = kAllDataTypes[i], b = kAllDataTypes[j];
      SCOPED_TRACE(fmt::format("{} + {}", pythonName(a), pythonName(b)));
      for (auto op : {BinaryOpType::Add, BinaryOpType::Mul, BinaryOpType::Div,
                      BinaryOpType::Maximum, BinaryOpType::Minimum, BinaryOpType::Pow})
        EXPECT_EQ(tensorBinary(op, a, b), kTensorPromotion[i][j]);
    }
}

TEST(OpsPromotion, ScalarsOnlyRaiseTheCategory) {
  EXPECT_EQ(tensorScalar(BinaryOpType::Add, I32, I64), I32);
  EXPECT_EQ(tensorScalar(BinaryOpType::Add, I32, DB), F);
  EXPECT_EQ(tensorScalar(BinaryOpType::Mul, H, DB), H);
  EXPECT_EQ(tensorScalar(BinaryOpType::Mul, BF, I64), BF);
  EXPECT_EQ(tensorScalar(BinaryOpType::Add, B, I64), I64);
  EXPECT_EQ(tensorScalar(BinaryOpType::Add, B, DB), F);
  EXPECT_EQ(tensorScalar(BinaryOpType::Add, F, B), F);
  EXPECT_EQ(tensorScalar(BinaryOpType::Pow, I64, DB), F);
  // A zero-dim tensor is a full participant (unlike torch's wrapped numbers).
  Fusion f;
  auto* zero_dim = defineTensor(f, {}, DB);
  EXPECT_EQ(add(defineSymbolicTensor(f, 1, F), zero_dim)->dtype(), DB);
}

TEST(OpsPromotion, DivisionAndAtan2) {
  EXPECT_EQ(tensorBinary(BinaryOpType::Div, I64, I64), I64);  // truncating, like C
  EXPECT_EQ(tensorBinary(BinaryOpType::TrueDiv, I32, I32), F);
  EXPECT_EQ(tensorBinary(BinaryOpType::TrueDiv, B, B), F);
  EXPECT_EQ(tensorBinary(BinaryOpType::TrueDiv, H, H), H);
  EXPECT_EQ(tensorBinary(BinaryOpType::TrueDiv, I64, DB), DB);
  EXPECT_EQ(tensorScalar(BinaryOpType::TrueDiv, I32, DB), F);
  EXPECT_EQ(tensorBinary(BinaryOpType::Atan2, I32, I64), F);
  EXPECT_EQ(tensorBinary(BinaryOpType::Atan2, BF, BF), BF);
  EXPECT_EQ(tensorBinary(BinaryOpType::Atan2, F, DB), DB);
  Fusion f;
  EXPECT_EQ(binaryOp(BinaryOpType::TrueDiv, defineScalar(f, I64), defineScalar(f, I64))->dtype(),
            DB);  // scalar arithmetic is double precision
}

TEST(OpsPromotion, ComparisonsAndLogicalOpsGiveBool) {
  for (D a : kAllDataTypes)
    for (D b : kAllDataTypes)
      for (auto op :
           {BinaryOpType::Eq, BinaryOpType::Ne, BinaryOpType::Lt, BinaryOpType::Le,
            BinaryOpType::Gt, BinaryOpType::Ge, BinaryOpType::LogicalAnd, BinaryOpType::LogicalOr})
        EXPECT_EQ(tensorBinary(op, a, b), B) << toString(op);
}

TEST(OpsPromotion, IntegerOnlyBinaryOps) {
  EXPECT_EQ(tensorBinary(BinaryOpType::BitwiseAnd, I32, I64), I64);
  EXPECT_EQ(tensorBinary(BinaryOpType::BitwiseOr, B, B), B);
  EXPECT_EQ(tensorBinary(BinaryOpType::BitwiseXor, B, I32), I32);
  EXPECT_EQ(tensorBinary(BinaryOpType::BitwiseLeftShift, I32, I32), I32);
  EXPECT_EQ(tensorBinary(BinaryOpType::BitwiseRightShift, I64, I32), I64);
  EXPECT_EQ(tensorBinary(BinaryOpType::CeilDiv, I32, I64), I64);
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::BitwiseAnd, F, I32),
                    HasSubstr("fd.ops.bitwise_and: expects Bool or integer operands, got Float "
                              "and Int32"));
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::BitwiseLeftShift, B, I32),
                    HasSubstr("fd.ops.bitwise_left_shift: expects integer operands, got Bool"));
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::CeilDiv, F, F),
                    HasSubstr("fd.ops.ceilDiv: expects integer operands, got Float and Float"));
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::Sub, B, B),
                    HasSubstr("fd.ops.sub: subtraction with a Bool operand is not supported"));
  EXPECT_USER_ERROR(tensorScalar(BinaryOpType::Sub, I32, B), HasSubstr("got Int32 and Bool"));
  EXPECT_EQ(tensorBinary(BinaryOpType::Sub, I32, H), H);
}

TEST(OpsPromotion, NextafterGcdAndLogicalShift) {
  // nextafter steps on the grid of the common floating dtype; integers have none.
  EXPECT_EQ(tensorBinary(BinaryOpType::Nextafter, F, DB), DB);
  EXPECT_EQ(tensorBinary(BinaryOpType::Nextafter, H, H), H);
  EXPECT_EQ(tensorScalar(BinaryOpType::Nextafter, F, DB), F);
  EXPECT_USER_ERROR(
      tensorBinary(BinaryOpType::Nextafter, I64, I64),
      HasSubstr("fd.ops.nextafter: expects floating-point operands (torch.nextafter), "
                "got Int and Int"));
  // gcd and logical_right_shift: integers only, the common width.
  EXPECT_EQ(tensorBinary(BinaryOpType::Gcd, I32, I32), I32);
  EXPECT_EQ(tensorBinary(BinaryOpType::Gcd, I32, I64), I64);
  EXPECT_EQ(tensorScalar(BinaryOpType::LogicalRightShift, I32, I64), I32);
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::Gcd, F, I32),
                    HasSubstr("fd.ops.gcd: expects integer operands, got Float and Int32"));
  EXPECT_USER_ERROR(tensorBinary(BinaryOpType::LogicalRightShift, B, I64),
                    HasSubstr("fd.ops.logical_right_shift: expects integer operands, got Bool"));
}

// Hand-classified unary ops.
const std::vector<UnaryOpType> kFloatingMath = {
    UnaryOpType::Exp,   UnaryOpType::Exp2,       UnaryOpType::Expm1,   UnaryOpType::Log,
    UnaryOpType::Log2,  UnaryOpType::Log10,      UnaryOpType::Log1p,   UnaryOpType::Sqrt,
    UnaryOpType::Rsqrt, UnaryOpType::Reciprocal, UnaryOpType::Sin,     UnaryOpType::Cos,
    UnaryOpType::Tan,   UnaryOpType::Asin,       UnaryOpType::Acos,    UnaryOpType::Atan,
    UnaryOpType::Sinh,  UnaryOpType::Cosh,       UnaryOpType::Tanh,    UnaryOpType::Asinh,
    UnaryOpType::Acosh, UnaryOpType::Atanh,      UnaryOpType::Sigmoid, UnaryOpType::Silu,
    UnaryOpType::Erf,   UnaryOpType::Erfc,       UnaryOpType::Erfinv,  UnaryOpType::Erfcinv,
    UnaryOpType::Lgamma};
const std::vector<UnaryOpType> kKeepType = {
    UnaryOpType::Abs,  UnaryOpType::Relu,  UnaryOpType::Sign, UnaryOpType::Floor,
    UnaryOpType::Ceil, UnaryOpType::Round, UnaryOpType::Trunc};
const std::vector<UnaryOpType> kPredicates = {
    UnaryOpType::LogicalNot, UnaryOpType::IsFinite, UnaryOpType::IsInf,  UnaryOpType::IsNan,
    UnaryOpType::IsNegInf,   UnaryOpType::IsPosInf, UnaryOpType::Signbit};

TEST(OpsPromotion, UnaryOpsAcrossEveryDtype) {
  for (D t : kAllDataTypes) {
    SCOPED_TRACE(pythonName(t));
    bool floating = t == H || t == BF || t == F || t == DB;
    for (auto op : kFloatingMath) EXPECT_EQ(unaryType(op, t), floating ? t : F) << toString(op);
    for (auto op : kKeepType) EXPECT_EQ(unaryType(op, t), t) << toString(op);
    for (auto op : kPredicates) EXPECT_EQ(unaryType(op, t), B) << toString(op);
    if (t != B) {
      EXPECT_EQ(unaryType(UnaryOpType::Neg, t), t);
    }
    if (floating) {
      EXPECT_EQ(unaryType(UnaryOpType::Frac, t), t);
      EXPECT_USER_ERROR(unaryType(UnaryOpType::BitwiseNot, t),
                        HasSubstr("fd.ops.bitwise_not: expects a Bool or integer operand, got " +
                                  std::string(pythonName(t))));
    } else {
      EXPECT_EQ(unaryType(UnaryOpType::BitwiseNot, t), t);
      EXPECT_USER_ERROR(unaryType(UnaryOpType::Frac, t),
                        HasSubstr("fd.ops.frac: expects a floating-point operand"));
    }
  }
  EXPECT_USER_ERROR(unaryType(UnaryOpType::Neg, B),
                    HasSubstr("fd.ops.neg: negation of a Bool operand is not supported"));
}

TEST(OpsPromotion, EveryUnaryOpIsClassified) {
  // The lists above plus neg, frac and bitwise_not cover every enumerator once.
  std::multiset<UnaryOpType> classified(kFloatingMath.begin(), kFloatingMath.end());
  classified.insert(kKeepType.begin(), kKeepType.end());
  classified.insert(kPredicates.begin(), kPredicates.end());
  classified.insert({UnaryOpType::Neg, UnaryOpType::Frac, UnaryOpType::BitwiseNot});
  std::set<UnaryOpType> all(allUnaryOpTypes().begin(), allUnaryOpTypes().end());
  EXPECT_EQ(std::set<UnaryOpType>(classified.begin(), classified.end()), all);
  EXPECT_EQ(classified.size(), all.size());
}

TEST(OpsPromotion, TernaryOps) {
  Fusion f;
  auto* i32 = defineSymbolicTensor(f, 1, I32);
  auto* half = defineSymbolicTensor(f, 1, H);
  auto* flt = defineSymbolicTensor(f, 1, F);
  auto* dbl = f.constantDouble(0.5);
  EXPECT_EQ(ternaryOp(TernaryOpType::Clamp, i32, dbl, dbl)->dtype(), F);
  EXPECT_EQ(ternaryOp(TernaryOpType::Clamp, half, flt, dbl)->dtype(), F);
  EXPECT_EQ(ternaryOp(TernaryOpType::Clamp, i32, f.constantInt(0), f.constantInt(3))->dtype(), I32);
  EXPECT_EQ(ternaryOp(TernaryOpType::Lerp, half, half, dbl)->dtype(), H);
  EXPECT_EQ(ternaryOp(TernaryOpType::Threshold, i32, dbl, dbl)->dtype(), I32);
  auto* cond = defineSymbolicTensor(f, 1, B);
  EXPECT_EQ(where(cond, i32, half)->dtype(), H);
  EXPECT_EQ(where(cond, i32, dbl)->dtype(), F);
  EXPECT_EQ(where(cond, half, i32)->dtype(), H);
}

TEST(OpsPromotion, CastGivesTheTargetType) {
  for (D from : kAllDataTypes)
    for (D to : kAllDataTypes) {
      Fusion f;
      EXPECT_EQ(castOp(to, defineSymbolicTensor(f, 1, from))->dtype(), to);
    }
}

}  // namespace
}  // namespace fusebox
