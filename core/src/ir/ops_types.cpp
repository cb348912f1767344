#include <fusebox/error.h>
#include <fusebox/ir/ops_types.h>

#include <array>
#include <utility>

namespace fusebox {
namespace {

template <class E, size_t N>
std::string_view lookupName(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [k, v] : table)
    if (k == e) return v;
  throw InternalError("op type missing from its name table");
}

template <class E, size_t N>
std::optional<E> lookupType(const std::array<std::pair<E, std::string_view>, N>& table,
                            std::string_view name) {
  for (const auto& [k, v] : table)
    if (v == name) return k;
  return std::nullopt;
}

template <class E, size_t N>
std::vector<E> keys(const std::array<std::pair<E, std::string_view>, N>& table) {
  std::vector<E> out;
  for (const auto& [k, v] : table) out.push_back(k);
  return out;
}

using U = UnaryOpType;
constexpr std::array<std::pair<U, std::string_view>, 46> kUnary = {{
    {U::Abs, "abs"},
    {U::Neg, "neg"},
    {U::Exp, "exp"},
    {U::Exp2, "exp2"},
    {U::Expm1, "expm1"},
    {U::Log, "log"},
    {U::Log2, "log2"},
    {U::Log10, "log10"},
    {U::Log1p, "log1p"},
    {U::Sqrt, "sqrt"},
    {U::Rsqrt, "rsqrt"},
    {U::Reciprocal, "reciprocal"},
    {U::Sin, "sin"},
    {U::Cos, "cos"},
    {U::Tan, "tan"},
    {U::Asin, "asin"},
    {U::Acos, "acos"},
    {U::Atan, "atan"},
    {U::Sinh, "sinh"},
    {U::Cosh, "cosh"},
    {U::Tanh, "tanh"},
    {U::Asinh, "asinh"},
    {U::Acosh, "acosh"},
    {U::Atanh, "atanh"},
    {U::Sigmoid, "sigmoid"},
    {U::Relu, "relu"},
    {U::Silu, "silu"},
    {U::Erf, "erf"},
    {U::Erfc, "erfc"},
    {U::Erfinv, "erfinv"},
    {U::Erfcinv, "erfcinv"},
    {U::Lgamma, "lgamma"},
    {U::Floor, "floor"},
    {U::Ceil, "ceil"},
    {U::Round, "round"},
    {U::Trunc, "trunc"},
    {U::Frac, "frac"},
    {U::Sign, "sign"},
    {U::LogicalNot, "logical_not"},
    {U::BitwiseNot, "bitwise_not"},
    {U::IsFinite, "isfinite"},
    {U::IsInf, "isinf"},
    {U::IsNan, "isnan"},
    {U::IsNegInf, "isneginf"},
    {U::IsPosInf, "isposinf"},
    {U::Signbit, "signbit"},
}};

using B = BinaryOpType;
constexpr std::array<std::pair<B, std::string_view>, 28> kBinary = {{
    {B::Add, "add"},
    {B::Sub, "sub"},
    {B::Mul, "mul"},
    {B::Div, "div"},
    {B::TrueDiv, "truediv"},
    {B::Fmod, "fmod"},
    {B::Remainder, "remainder"},
    {B::Pow, "pow"},
    {B::Atan2, "atan2"},
    {B::Maximum, "maximum"},
    {B::Minimum, "minimum"},
    {B::CeilDiv, "ceilDiv"},
    {B::Eq, "eq"},
    {B::Ne, "ne"},
    {B::Lt, "lt"},
    {B::Le, "le"},
    {B::Gt, "gt"},
    {B::Ge, "ge"},
    {B::LogicalAnd, "logical_and"},
    {B::LogicalOr, "logical_or"},
    {B::BitwiseAnd, "bitwise_and"},
    {B::BitwiseOr, "bitwise_or"},
    {B::BitwiseXor, "bitwise_xor"},
    {B::BitwiseLeftShift, "bitwise_left_shift"},
    {B::BitwiseRightShift, "bitwise_right_shift"},
    {B::Nextafter, "nextafter"},
    {B::Gcd, "gcd"},
    {B::LogicalRightShift, "logical_right_shift"},
}};

using T = TernaryOpType;
constexpr std::array<std::pair<T, std::string_view>, 4> kTernary = {{
    {T::Where, "where"},
    {T::Clamp, "clamp"},
    {T::Lerp, "lerp"},
    {T::Threshold, "threshold"},
}};

using R = ReductionOpType;
constexpr std::array<std::pair<R, std::string_view>, 4> kReduction = {{
    {R::Sum, "sum"},
    {R::Prod, "prod"},
    {R::Max, "max"},
    {R::Min, "min"},
}};

using O = OpType;
constexpr std::array<std::pair<O, std::string_view>, 31> kOp = {{
    {O::Set, "set"},
    {O::SegmentSet, "segment_set"},
    {O::Unary, "unary"},
    {O::Binary, "binary"},
    {O::Ternary, "ternary"},
    {O::Cast, "cast"},
    {O::Broadcast, "broadcast"},
    {O::Squeeze, "squeeze"},
    {O::Expand, "expand"},
    {O::Reshape, "reshape"},
    {O::Permute, "permute"},
    {O::Reduction, "reduction"},
    {O::Var, "var"},
    {O::VarMean, "var_mean"},
    {O::Welford, "welford"},
    {O::Slice, "slice"},
    {O::Pad, "pad"},
    {O::Cat, "cat"},
    {O::Full, "full"},
    {O::Iota, "iota"},
    {O::Rand, "rand"},
    {O::Matmul, "matmul"},
    {O::Linear, "linear"},
    {O::IndexSelect, "index_select"},
    {O::Select, "select"},
    {O::Gather, "gather"},
    {O::TakeAlongAxis, "take_along_axis"},
    {O::Scatter, "scatter"},
    {O::Scan, "scan"},
    {O::Argsort, "argsort"},
    {O::TopK, "topk"},
}};

constexpr std::array<std::pair<R, std::string_view>, 4> kScan = {{
    {R::Sum, "cumsum"},
    {R::Prod, "cumprod"},
    {R::Max, "cummax"},
    {R::Min, "cummin"},
}};

}  // namespace

std::string_view toString(OpType t) { return lookupName(kOp, t); }
std::string_view toString(UnaryOpType t) { return lookupName(kUnary, t); }
std::string_view toString(BinaryOpType t) { return lookupName(kBinary, t); }
std::string_view toString(TernaryOpType t) { return lookupName(kTernary, t); }
std::string_view toString(ReductionOpType t) { return lookupName(kReduction, t); }
std::string_view toString(RandomDistribution t) {
  return t == RandomDistribution::Uniform ? "uniform" : "normal";
}
std::string_view scanName(ReductionOpType t) { return lookupName(kScan, t); }
bool isIndexingOp(OpType t) {
  return t == O::IndexSelect || t == O::Select || t == O::Gather || t == O::TakeAlongAxis ||
         t == O::Scatter;
}
std::optional<UnaryOpType> parseUnaryOpType(std::string_view n) { return lookupType(kUnary, n); }
std::optional<BinaryOpType> parseBinaryOpType(std::string_view n) {
  return lookupType(kBinary, n);
}
std::optional<TernaryOpType> parseTernaryOpType(std::string_view n) {
  return lookupType(kTernary, n);
}
std::optional<ReductionOpType> parseReductionOpType(std::string_view n) {
  return lookupType(kReduction, n);
}
const std::vector<UnaryOpType>& allUnaryOpTypes() {
  static const auto v = keys(kUnary);
  return v;
}
const std::vector<BinaryOpType>& allBinaryOpTypes() {
  static const auto v = keys(kBinary);
  return v;
}
const std::vector<TernaryOpType>& allTernaryOpTypes() {
  static const auto v = keys(kTernary);
  return v;
}

}  // namespace fusebox
