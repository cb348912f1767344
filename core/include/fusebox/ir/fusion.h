// Fusion: owns a graph of values and expressions (SSA), with its inputs,
// outputs, output aliases and required output stride orders.
#pragma once

#include <fusebox/ir/ir.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

class Fusion {
 public:
  Fusion();
  ~Fusion();
  Fusion(const Fusion&) = delete;
  Fusion& operator=(const Fusion&) = delete;

  // ---- creation -----------------------------------------------------------
  // A symbolic scalar (an input, an extent, or the output of a scalar op).
  Scalar* newScalar(DataType dtype);
  // A compile-time constant. The value is stored as `dtype` stores it.
  Scalar* constant(ScalarValue value, DataType dtype);
  Scalar* constantInt(int64_t v) { return constant(v, DataType::Int64); }
  Scalar* constantDouble(double v) { return constant(v, DataType::Double); }
  Scalar* constantBool(bool v) { return constant(v, DataType::Bool); }
  Scalar* zero() { return constantInt(0); }
  Scalar* one() { return constantInt(1); }
  IterDomain* newIterDomain(Scalar* extent, IterType type, Scalar* expanded_extent = nullptr);
  TensorView* newTensor(std::vector<IterDomain*> logical, DataType dtype);
  // Creates an expression and links it: each output's definition() becomes it and
  // it is added to each input's uses(). Outputs must not have a definition yet.
  Expr* newExpr(OpType op, std::vector<Val*> inputs, std::vector<Val*> outputs,
                ExprAttrs attrs = {});
  // The origin newExpr gives the expressions it creates (Expr::origin): a
  // frontend sets it to each statement's place before running it, and clears
  // it after the last.
  void setOriginOfNewExprs(SourceLocation where) { new_expr_origin_ = std::move(where); }
  // Gives a value or expression of this fusion the name (number) `name`, e.g. to
  // keep a complete-fusion name in a segment's copy; values and expressions
  // created later are numbered after it. (Defined in segment/fusion_names.cpp.)
  void setName(Val* v, int64_t name);
  void setName(Expr* e, int64_t name);

  // ---- interface ----------------------------------------------------------
  void addInput(Val* v);
  void addOutput(Val* v);
  const std::vector<Val*>& inputs() const { return inputs_; }
  const std::vector<Val*>& outputs() const { return outputs_; }
  // Replaces every occurrence of `old_out` in outputs() (keeping its stride
  // order requirement and aliases) with `new_out`.
  void replaceOutput(Val* old_out, Val* new_out);
  void removeOutput(Val* v);

  // The user's contract: output `tv` must be laid out in this stride order
  // (nvFuser's add_output(T, stride_order)). Distinct from an allocation domain,
  // which passes set as a hint and a scheduler may override.
  void setRequiredStrideOrder(TensorView* output, std::vector<int64_t> stride_order);
  const std::vector<int64_t>* requiredStrideOrder(const TensorView* output) const;
  const std::map<const TensorView*, std::vector<int64_t>>& requiredStrideOrders() const {
    return required_stride_orders_;
  }
  // Output `out` shares storage with input `in` (written in place).
  void aliasOutputToInput(Val* out, Val* in);
  Val* aliasedInput(const Val* out) const;

  // ---- traversal ----------------------------------------------------------
  // Expressions that outputs depend on through operands (not through extents),
  // in a deterministic topological order (creation order where free).
  std::vector<Expr*> exprs() const;
  // Only the expressions producing tensors, same order.
  std::vector<Expr*> tensorExprs() const;
  // Every value and expression the fusion owns, live or dead, in creation order.
  std::vector<Val*> allVals() const;
  std::vector<Expr*> allExprs() const;
  std::vector<TensorView*> allTensors() const;
  // Tensors reachable from outputs (operands of exprs()), plus inputs, in order.
  std::vector<TensorView*> usedTensors() const;

  // ---- mutation (for passes) ------------------------------------------------
  // Every expression input and fusion output that is `old_val` becomes `new_val`.
  void replaceAllUsesWith(Val* old_val, Val* new_val);
  // Replaces one operand of `expr` (every position that holds it).
  void replaceInput(Expr* expr, Val* old_val, Val* new_val);
  // Replaces operand `index` of `expr` alone (others holding the same value stay).
  void replaceInputAt(Expr* expr, size_t index, Val* new_val);
  // Unlinks and destroys `expr`; its outputs lose their definition.
  void removeExpr(Expr* expr);
  // Concretization (docs/runtime.md): gives `id` its concrete type and
  // extents (a Symbolic dim becomes Iteration or Broadcast; a resized extent
  // becomes a constant). Every tensor sharing `id` sees the change.
  void concretizeDomain(IterDomain* id, Scalar* extent, IterType type, Scalar* expanded_extent);
  // Removes expressions whose outputs nothing reads and that produce no output
  // (and the values only they produced). Returns how many were removed.
  int64_t removeDeadExprs();

  // ---- whole-fusion operations ----------------------------------------------
  // A deep copy. When `map` is given it receives old -> new for every value.
  std::unique_ptr<Fusion> clone(std::unordered_map<const Val*, Val*>* map = nullptr) const;
  // Structure only: ops, attributes, dtypes, domains, constants, interface.
  // Names (numbers) are ignored. On a mismatch, `why` says where.
  static bool structurallyEqual(const Fusion& a, const Fusion& b, std::string* why = nullptr);
  // Consistent with structurallyEqual.
  uint64_t structuralHash() const;

 private:
  void unlinkUses(Expr* e);
  std::vector<std::unique_ptr<Val>> vals_;
  std::vector<std::unique_ptr<Expr>> exprs_;
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
  std::map<const TensorView*, std::vector<int64_t>> required_stride_orders_;
  std::map<const Val*, Val*> aliases_;
  int64_t next_tensor_ = 0;
  int64_t next_iter_domain_ = 0;
  int64_t next_scalar_ = 0;
  int64_t next_expr_ = 0;
  SourceLocation new_expr_origin_;
};

}  // namespace fusebox
