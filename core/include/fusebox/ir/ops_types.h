// Operation kinds and their attributes. Every Expr carries an OpType and, for
// the ops that need one, an attribute struct from ExprAttrs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace fusebox {

// Operand layout per op (inputs listed in order; "S" = scalar, "T" = tensor):
//   Set, SegmentSet   T                              -> T
//   Unary             T|S                            -> T|S   attr UnaryOpType
//   Binary            T|S, T|S                       -> T|S   attr BinaryOpType
//   Ternary           T|S x3                         -> T|S   attr TernaryOpType
//   Cast              T|S                            -> T|S   (target = output dtype)
//   Broadcast         T                              -> T     attr BroadcastAttr
//   Squeeze           T                              -> T     attr SqueezeAttr
//   Expand            T, S x out_rank (-1 = keep)    -> T
//   Reshape           T, S x out_rank                -> T
//   Permute           T                              -> T     attr PermuteAttr
//   Reduction         T                              -> T     attr ReductionAttr
//   Var               T                              -> T (var)              attr VarianceAttr
//   VarMean           T                              -> T (var), T (mean)    attr VarianceAttr
//   Welford           T                              -> T (avg), T (var_sum), T (n, int64)
//                                                               attr VarianceAttr (correction unused)
//   Slice             T, S x rank (start), S x rank (stop), S x rank (step) -> T
//   Pad               T, S (value), S x 2k (widths, torch order: last dim first) -> T
//   Cat               T x n                          -> T     attr CatAttr
//   Full              S (fill), S x rank (shape)     -> T
//   Iota              S (length), S (start), S (step) -> T (1-D)
//   Rand              S x rank (shape), S (a), S (b)[, S (seed), S (offset)] -> T  attr RandAttr
//   Matmul            T, T                           -> T
//   Linear            T (input), T (weight)[, T (bias)] -> T
//   IndexSelect       T (input), T (index: int, rank 0 or 1) -> T   attr IndexAttr
//   Select            T (input), S (index: int)      -> T (rank - 1) attr IndexAttr
//   Gather            T (input), T (index: int)      -> T (index's shape)  attr IndexAttr
//   TakeAlongAxis     T (input), T (index: int)      -> T (broadcast)      attr IndexAttr
//   Scatter           T (self), T (index: int), T|S (src) -> T (self's shape)  attr IndexAttr
//   Scan              T                              -> T     attr ScanAttr
//   Argsort           T                              -> T (int64 indices)  attr SortAttr
//   TopK              T, S (k: int)                  -> T (values), T (int64 indices)
//                                                               attr TopKAttr
enum class OpType {
  Set,
  SegmentSet,
  Unary,
  Binary,
  Ternary,
  Cast,
  Broadcast,
  Squeeze,
  Expand,
  Reshape,
  Permute,
  Reduction,
  Var,
  VarMean,
  Welford,
  Slice,
  Pad,
  Cat,
  Full,
  Iota,
  Rand,
  Matmul,
  Linear,
  IndexSelect,
  Select,
  Gather,
  TakeAlongAxis,
  Scatter,
  Scan,
  Argsort,
  TopK,
};

// Ops whose output element at a position is computed from their operands'
// elements at that same position (and scalars): unary, binary, ternary,
// cast, set, segment_set. What schedulers may put where a value is known at
// one position only (after a scan, inside a reduced domain).
constexpr bool isElementwise(OpType op) {
  return op == OpType::Unary || op == OpType::Binary || op == OpType::Ternary ||
         op == OpType::Cast || op == OpType::Set || op == OpType::SegmentSet;
}

enum class UnaryOpType {
  Abs,
  Neg,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,
  Relu,
  Silu,
  Erf,
  Erfc,
  Erfinv,
  Erfcinv,
  Lgamma,
  Floor,
  Ceil,
  Round,
  Trunc,
  Frac,
  Sign,
  LogicalNot,
  BitwiseNot,
  IsFinite,
  IsInf,
  IsNan,
  IsNegInf,
  IsPosInf,
  Signbit,
};

enum class BinaryOpType {
  Add, Sub, Mul, Div, TrueDiv, Fmod, Remainder, Pow, Atan2, Maximum, Minimum, CeilDiv,
  Eq, Ne, Lt, Le, Gt, Ge,
  LogicalAnd, LogicalOr, BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseLeftShift, BitwiseRightShift,
  Nextafter, Gcd, LogicalRightShift,
};

enum class TernaryOpType { Where, Clamp, Lerp, Threshold };

enum class ReductionOpType { Sum, Prod, Max, Min };

enum class RandomDistribution { Uniform, Normal };

struct BroadcastAttr {
  std::vector<bool> is_broadcast_dim;  // one per output dim; true = new broadcast dim
  bool operator==(const BroadcastAttr&) const = default;
};
struct SqueezeAttr {
  std::vector<int64_t> dims;  // input dims removed, sorted ascending
  bool operator==(const SqueezeAttr&) const = default;
};
struct PermuteAttr {
  std::vector<int64_t> dims;  // output dim i is input dim dims[i]
  bool operator==(const PermuteAttr&) const = default;
};
struct ReductionAttr {
  ReductionOpType op;
  std::vector<int64_t> axes;  // reduced input dims, sorted ascending
  bool operator==(const ReductionAttr&) const = default;
};
struct VarianceAttr {
  std::vector<int64_t> axes;  // reduced input dims, sorted ascending
  int64_t correction = 1;
  bool operator==(const VarianceAttr&) const = default;
};
struct CatAttr {
  int64_t dim;
  bool operator==(const CatAttr&) const = default;
};
// The dim an indexing op (index_select, select, gather, take_along_axis,
// scatter) indexes, normalized (0 <= dim < the input's rank).
struct IndexAttr {
  int64_t dim;
  bool operator==(const IndexAttr&) const = default;
};
// cumsum (Sum), cumprod (Prod), cummax (Max), cummin (Min) along `dim`, normalized.
struct ScanAttr {
  ReductionOpType op;
  int64_t dim;
  bool operator==(const ScanAttr&) const = default;
};
// argsort along `dim`, normalized. `stable` keeps equal elements in input
// order (fusebox's sort always does; the flag is kept for printing back).
struct SortAttr {
  int64_t dim;
  bool descending = false;
  bool stable = false;
  bool operator==(const SortAttr&) const = default;
};
// topk along `dim`, normalized: the k largest (or smallest) elements and
// their indices. `sorted` asks for them in order (fusebox always returns them
// in order; the flag is kept for printing back).
struct TopKAttr {
  int64_t dim;
  bool largest = true;
  bool sorted = false;
  bool operator==(const TopKAttr&) const = default;
};
struct RandAttr {
  RandomDistribution dist;
  bool has_seed = false;  // seed and offset operands present
  bool operator==(const RandAttr&) const = default;
};

using ExprAttrs = std::variant<std::monostate, UnaryOpType, BinaryOpType, TernaryOpType,
                               BroadcastAttr, SqueezeAttr, PermuteAttr, ReductionAttr, VarianceAttr,
                               CatAttr, RandAttr, IndexAttr, ScanAttr, SortAttr, TopKAttr>;

// Names as nvFuser's Python frontend spells them (fd.ops.<name>).
std::string_view toString(OpType t);
std::string_view toString(UnaryOpType t);
std::string_view toString(BinaryOpType t);
std::string_view toString(TernaryOpType t);
std::string_view toString(ReductionOpType t);
std::string_view toString(RandomDistribution t);
// The fd.ops name of a scan: "cumsum", "cumprod", "cummax", "cummin".
std::string_view scanName(ReductionOpType t);
// index_select, select, gather, take_along_axis, scatter: the ops that read
// or write at run-time indices (their attribute is an IndexAttr).
bool isIndexingOp(OpType t);
std::optional<UnaryOpType> parseUnaryOpType(std::string_view name);
std::optional<BinaryOpType> parseBinaryOpType(std::string_view name);
std::optional<TernaryOpType> parseTernaryOpType(std::string_view name);
std::optional<ReductionOpType> parseReductionOpType(std::string_view name);

// Every enumerator, for tables and exhaustive tests.
const std::vector<UnaryOpType>& allUnaryOpTypes();
const std::vector<BinaryOpType>& allBinaryOpTypes();
const std::vector<TernaryOpType>& allTernaryOpTypes();

}  // namespace fusebox
