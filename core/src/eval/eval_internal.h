// Shared pieces of the reference evaluator: the element value type, the
// elementwise math every tensor kernel and the scalar evaluator use, and the
// per-run context the per-family kernels (eval_*.cpp) work in.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/tensor.h>

#include <cstdint>
#include <optional>
#include <string>

#include <unordered_map>
#include <vector>
#include "element_access.h"

namespace fusebox::eval_detail {

// One element during evaluation, tagged with the category of the dtype it came
// from: the tag picks integer (int64, wrapping) or floating (double) semantics.
struct Number {
  enum class Kind : uint8_t { Bool, Int, Float };
  Kind kind = Kind::Int;
  int64_t i = 0;   // Bool (0/1) and Int
  double d = 0.0;  // Float

  static Number ofBool(bool b) { return {Kind::Bool, b ? 1 : 0, 0.0}; }
  static Number ofInt(int64_t v) { return {Kind::Int, v, 0.0}; }
  static Number ofFloat(double v) { return {Kind::Float, 0, v}; }
  bool isFloat() const { return kind == Kind::Float; }
  double asDouble() const { return isFloat() ? d : static_cast<double>(i); }
  int64_t asInt() const { return isFloat() ? detail::doubleToInteger<int64_t>(d) : i; }
  bool asBool() const { return isFloat() ? d != 0.0 : i != 0; }
};

// Loads element `offset` (in elements) of a tensor whose element 0 is at `base`.
inline Number loadNumber(const void* base, DataType t, int64_t offset) {
  const char* p = static_cast<const char*>(base) + offset * detail::elementSize(t);
  switch (t) {
    case DataType::Bool:
      return Number::ofBool(detail::loadRaw<uint8_t>(p) != 0);
    case DataType::Int32:
      return Number::ofInt(detail::loadRaw<int32_t>(p));
    case DataType::Int64:
      return Number::ofInt(detail::loadRaw<int64_t>(p));
    case DataType::Float:
      return Number::ofFloat(detail::loadRaw<float>(p));
    case DataType::Double:
      return Number::ofFloat(detail::loadRaw<double>(p));
    default:
      return Number::ofFloat(detail::loadDouble(p, t));  // half types
  }
}

// Stores v converted to t: floats round (half types to nearest even), ints wrap.
inline void storeNumber(void* base, DataType t, int64_t offset, const Number& v) {
  char* p = static_cast<char*>(base) + offset * detail::elementSize(t);
  if (v.isFloat())
    detail::storeDouble(p, t, v.d);
  else
    detail::storeInt(p, t, v.i);
}

// A scalar value as the dtype `t` it has in the IR.
Number numberFromScalar(const ScalarValue& v, DataType t);
// v converted to dtype t and rounded to its precision (a Float scalar holds a
// value representable in float).
ScalarValue scalarFromNumber(const Number& v, DataType t);

// Elementwise semantics (eval_math.cpp), as PyTorch's for each op. Integer
// division by zero throws UserError.
Number applyUnary(UnaryOpType op, const Number& x);
Number applyBinary(BinaryOpType op, const Number& a, const Number& b);
// applyBinary's bitwise ops and shifts (bool or integer operands).
Number applyBitwise(BinaryOpType op, const Number& a, const Number& b);
// Every binary op, including those whose result depends on the dtype they
// compute in (`dtype`, the op's result dtype): nextafter steps on its grid,
// gcd and logical_right_shift work in its bit width. The form above refuses
// those three with an InternalError rather than guess a width.
Number applyBinary(BinaryOpType op, const Number& a, const Number& b, DataType dtype);
Number applyTernary(TernaryOpType op, const Number& a, const Number& b, const Number& c);
// Whether the op on integer operands has an exact result outside int64, i.e.
// applyUnary/applyBinary wrapped (false for floating operands).
bool integerOverflows(UnaryOpType op, const Number& x);
bool integerOverflows(BinaryOpType op, const Number& a, const Number& b);
// Round half to even (torch.round), independent of the FP environment.
double roundHalfToEven(double x);
// Inverse error function on [-1, 1] (nan outside).
double erfinv(double x);
// The inverse of erfc on [0, 2]: erfcinv(erfc(y)) = y, tails included.
double erfcinv(double x);

// Whether a dim of size 1 at run time may stretch to another operand's size:
// declared broadcast, of unknown kind (Symbolic), or of constant extent 1. An
// Iteration dim of symbolic extent must match the other operands exactly.
bool canStretch(const IterDomain* id);

// A slice index as torch reads it: negative counts from the end, then clamped
// to [0, extent] (the evaluator's rule; concretization keys slices by it).
int64_t normalizeSliceIndex(int64_t index, int64_t extent);

// "T3_l = add(T0_g, T1_g)": an expression as messages name it.
std::string describeExpr(const Expr* e);
std::string joinInts(const std::vector<int64_t>& v);

// State of one evaluateFusion run.
class EvalContext {
 public:
  EvalContext(const Fusion& fusion, ExpressionEvaluator& ee) : fusion_(fusion), ee_(ee) {}

  const Fusion& fusion() const { return fusion_; }
  ExpressionEvaluator& ee() { return ee_; }

  // Error-bound mode (the tolerance model, error_bounds.cpp): the data
  // movement and matmul kernels run on float64 error bounds instead of values,
  // so every tensor is allocated as float64 and pads fill 0 (the fill value is
  // exact).
  void setErrorBoundMode(bool on) { error_bounds_ = on; }
  bool errorBoundMode() const { return error_bounds_; }

  void setTensor(const Val* v, Tensor t) { tensors_[v] = std::move(t); }
  // Drops an intermediate once nothing reads it any more, to bound memory.
  void releaseTensor(const Val* v) { tensors_.erase(v); }
  bool hasTensor(const Val* v) const { return tensors_.count(v) != 0; }
  // The computed tensor of `v` (InternalError if it was not computed yet).
  const Tensor& tensor(const Val* v) const;
  // A scalar operand's value, tagged by its dtype.
  Number number(const Val* v);
  int64_t integer(const Val* v);

  // Checks `sizes` against the extents of `out` (binding the unbound ones) and
  // allocates its tensor: required stride order, else allocation domain, else
  // row-major. Conflicts throw UserError (the driver adds which expr).
  Tensor allocate(const TensorView* out, const std::vector<int64_t>& sizes);

 private:
  const Fusion& fusion_;
  ExpressionEvaluator& ee_;
  std::unordered_map<const Val*, Tensor> tensors_;
  bool error_bounds_ = false;
};

// The layout an output tensor gets: required stride order, else the allocation
// domain's order, else row-major (empty).
std::vector<int64_t> outputStrideOrder(const Fusion& fusion, const TensorView* tv);

// Per-family tensor kernels. Each computes every output of `e` and stores it in
// ctx. Their UserErrors need not name `e`: the driver prefixes describeExpr(e).
void evalElementwise(EvalContext& ctx,
                     const Expr* e);  // Set, SegmentSet, Unary, Binary, Ternary, Cast
void evalMovement(EvalContext& ctx, const Expr* e);  // Broadcast, Squeeze, Expand, Reshape, Permute
void evalReduction(EvalContext& ctx, const Expr* e);  // Reduction, Var, VarMean, Welford
void evalResize(EvalContext& ctx, const Expr* e);     // Slice, Pad, Cat
void evalCreation(EvalContext& ctx, const Expr* e);   // Full, Iota, Rand
void evalMatmul(EvalContext& ctx, const Expr* e);     // Matmul, Linear
void evalIndexing(EvalContext& ctx, const Expr* e);   // IndexSelect, Select, Gather,
                                                      // TakeAlongAxis, Scatter
void evalScan(EvalContext& ctx, const Expr* e);       // Scan
void evalSort(EvalContext& ctx, const Expr* e);       // Argsort, TopK
// The sizes an indexing op's tensor operands must have whatever the index
// values: gather's and scatter's index no larger than the input outside the
// indexed dim (and than scatter's src everywhere), take_along_axis's index
// and input equal outside it or 1 where that one may broadcast. `sizes` has
// one entry per operand (input, index, src; src empty for a scalar), nullopt
// for a size not known. Throws UserError without naming `e` (callers do).
void checkIndexOperandSizes(const Expr* e,
                            const std::vector<std::vector<std::optional<int64_t>>>& sizes);
// Dispatches to the family of `e` (a tensor expression).
void evalTensorExpr(EvalContext& ctx, const Expr* e);

// For each tensor `exprs` read, the position of the last expr that reads it:
// once that one ran, the tensor may be dropped, so memory holds only what
// later exprs still need.
std::unordered_map<const Val*, size_t> lastUses(const std::vector<const Expr*>& exprs);

// Input binding shared by validateInputs and evaluateFusion. Validation reads
// only metadata, so device tensors pass; evaluation needs host memory.
enum class InputMemory { Any, HostOnly };
void bindInputs(const Fusion& fusion, const std::vector<Argument>& inputs,
                const EvaluatorOptions& options, ExpressionEvaluator& ee,
                InputMemory memory = InputMemory::HostOnly);
std::string inputName(const Fusion& fusion, const EvaluatorOptions& options, size_t i);
// The run-time shape constraints of every op (shape_constraints.cpp): operand
// sizes that must agree, an expand of a dim that is not a broadcast, a
// reshape that changes the element count, contraction sizes. `ee` has the
// inputs bound. Throws UserError naming the op and the inputs the sizes
// come from.
void checkShapeConstraints(const Fusion& fusion, ExpressionEvaluator& ee);

}  // namespace fusebox::eval_detail
