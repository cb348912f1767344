// The IR's values and expressions: Scalar, IterDomain, TensorView, Expr.
// A Fusion (fusion.h) owns all of them; pointers stay valid while it lives.
#pragma once

#include <fusebox/dtype.h>
#include <fusebox/error.h>
#include <fusebox/ir/ops_types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

class Fusion;
class Expr;

enum class ValKind { Scalar, IterDomain, TensorView };

class Val {
 public:
  virtual ~Val() = default;
  Val(const Val&) = delete;
  Val& operator=(const Val&) = delete;

  ValKind kind() const { return kind_; }
  DataType dtype() const { return dtype_; }
  // Number within its kind (tensors, iter domains and scalars count separately),
  // as in nvFuser's T3 / iS9 / i4.
  int64_t name() const { return name_; }
  Fusion* fusion() const { return fusion_; }
  // The expression that produces this value, or null (inputs, constants, extents of inputs).
  Expr* definition() const { return definition_; }
  // Expressions that read this value, in the order they were attached.
  const std::vector<Expr*>& uses() const { return uses_; }
  bool isFusionInput() const;
  bool isFusionOutput() const;

  bool isScalar() const { return kind_ == ValKind::Scalar; }
  bool isTensor() const { return kind_ == ValKind::TensorView; }
  template <class T>
  bool is() const {
    return dynamic_cast<const T*>(this) != nullptr;
  }
  template <class T>
  T* as() {
    auto* p = dynamic_cast<T*>(this);
    FUSEBOX_CHECK(p != nullptr, "Val {} has another kind", toString());
    return p;
  }
  template <class T>
  const T* as() const {
    auto* p = dynamic_cast<const T*>(this);
    FUSEBOX_CHECK(p != nullptr, "Val {} has another kind", toString());
    return p;
  }

  // Short name in the IR printer's notation: "T3_g", "i4", "double(3)", "iS9{i4}".
  virtual std::string toString() const = 0;

 protected:
  Val(Fusion* fusion, ValKind kind, DataType dtype, int64_t name)
      : fusion_(fusion), kind_(kind), dtype_(dtype), name_(name) {}

 private:
  friend class Fusion;
  Fusion* fusion_;
  ValKind kind_;
  DataType dtype_;
  int64_t name_;
  Expr* definition_ = nullptr;
  std::vector<Expr*> uses_;
};

// A scalar: a compile-time constant, a symbolic fusion input, a tensor extent, or
// the result of scalar arithmetic (then definition() is set).
class Scalar final : public Val {
 public:
  bool isConst() const { return value_.has_value(); }
  const std::optional<ScalarValue>& value() const { return value_; }
  // Constants print as "double(0.5)" / "3", symbolic scalars by name ("i4", "d2").
  std::string toString() const override;
  // Like toString, but scalars computed by scalar arithmetic print as their
  // expression: "( i0 * i1 )", "ceilDiv(i2, 4)".
  std::string inlineString() const;

 private:
  friend class Fusion;
  Scalar(Fusion* f, DataType t, int64_t name, std::optional<ScalarValue> v)
      : Val(f, ValKind::Scalar, t, name), value_(std::move(v)) {}
  std::optional<ScalarValue> value_;
};

enum class IterType { Iteration, Reduction, Broadcast, Symbolic };
std::string_view toString(IterType t);

// One axis of a tensor. A broadcast axis has extent 1; an expanded broadcast also
// has an expanded extent (its size as the user sees it, with stride 0).
class IterDomain final : public Val {
 public:
  Scalar* extent() const { return extent_; }
  Scalar* expandedExtent() const { return expanded_extent_; }
  bool hasExpandedExtent() const { return expanded_extent_ != nullptr; }
  // The extent as the user sees it: the expanded extent where there is one.
  Scalar* logicalExtent() const { return expanded_extent_ ? expanded_extent_ : extent_; }
  IterType iterType() const { return iter_type_; }
  bool isReduction() const { return iter_type_ == IterType::Reduction; }
  bool isBroadcast() const { return iter_type_ == IterType::Broadcast; }
  bool isIteration() const { return iter_type_ == IterType::Iteration; }
  bool isSymbolic() const { return iter_type_ == IterType::Symbolic; }
  std::string toString() const override;  // "iS9{i4}", "rS10{i5}", "bS3{1 ex i4}"

 private:
  friend class Fusion;
  IterDomain(Fusion* f, int64_t name, Scalar* extent, IterType type, Scalar* expanded)
      : Val(f, ValKind::IterDomain, DataType::Int64, name),
        extent_(extent),
        expanded_extent_(expanded),
        iter_type_(type) {}
  Scalar* extent_;
  Scalar* expanded_extent_;
  IterType iter_type_;
};

// A tensor. Its logical domain keeps reduction axes (as nvFuser's does): the
// tensor's shape is logicalNoReductions(). The allocation domain, when set, is a
// permutation of logicalNoReductions() giving the memory order, outermost first;
// contiguity has one entry per allocation axis (nullopt for broadcast axes).
class TensorView final : public Val {
 public:
  const std::vector<IterDomain*>& logical() const { return logical_; }
  std::vector<IterDomain*> logicalNoReductions() const;
  // Number of dimensions of the tensor's shape (reduction axes excluded).
  int64_t nDims() const;
  IterDomain* axis(int64_t i) const;  // i-th non-reduction axis; negative counts from the end
  bool hasReduction() const;

  bool hasAllocation() const { return !allocation_.empty(); }
  // Memory order of the non-reduction axes, outermost first (logicalNoReductions()
  // when no allocation domain is set).
  std::vector<IterDomain*> allocation() const;
  // Sets the allocation domain. `alloc` must be a permutation of logicalNoReductions().
  void setAllocation(std::vector<IterDomain*> alloc);
  void clearAllocation() { allocation_.clear(); }
  // nvFuser's stride_order: entry i ranks logical (non-reduction) dim i, 0 = innermost.
  std::vector<int64_t> strideOrder() const;
  void setStrideOrder(const std::vector<int64_t>& stride_order);

  // One entry per allocation() axis: nullopt for broadcast axes.
  const std::vector<std::optional<bool>>& contiguity() const { return contiguity_; }
  void setContiguity(std::vector<std::optional<bool>> contiguity);
  // Contiguous (true for non-broadcast axes) in allocation order.
  void setContiguous();

  std::string toString() const override;      // "T3_g"
  std::string domainString() const;           // "T3_g[ iS9{i4}, rS10{i5} ]"

 private:
  friend class Fusion;
  TensorView(Fusion* f, int64_t name, std::vector<IterDomain*> logical, DataType t);
  std::vector<IterDomain*> logical_;
  std::vector<IterDomain*> allocation_;  // empty = logicalNoReductions()
  std::vector<std::optional<bool>> contiguity_;
};

// Converts between stride orders and allocation permutations.
// allocationPermutation(stride_order)[k] = the logical dim that is k-th outermost.
std::vector<int64_t> strideOrderToAllocationPermutation(const std::vector<int64_t>& stride_order);
std::vector<int64_t> allocationPermutationToStrideOrder(const std::vector<int64_t>& permutation);
// True when v is a permutation of 0..n-1.
bool isPermutation(const std::vector<int64_t>& v);

class Expr {
 public:
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  OpType op() const { return op_; }
  int64_t name() const { return name_; }
  Fusion* fusion() const { return fusion_; }
  const std::vector<Val*>& inputs() const { return inputs_; }
  const std::vector<Val*>& outputs() const { return outputs_; }
  Val* input(size_t i) const { return inputs_.at(i); }
  Val* output(size_t i) const { return outputs_.at(i); }
  const ExprAttrs& attrs() const { return attrs_; }
  template <class A>
  const A& attr() const {
    return std::get<A>(attrs_);
  }
  // True when any output is a tensor (scalar arithmetic is not "math" in the printer).
  bool isTensorOp() const;
  // "add", "reduction", "broadcast", ... (the Python name where there is one).
  std::string opName() const;
  // Where the script wrote it ("fusion.py:7:10"), for run-time errors; not
  // known for expressions a pass or a builder made.
  const SourceLocation& origin() const { return origin_; }
  void setOrigin(SourceLocation where) { origin_ = std::move(where); }

 private:
  friend class Fusion;
  Expr(Fusion* f, int64_t name, OpType op, std::vector<Val*> in, std::vector<Val*> out,
       ExprAttrs attrs)
      : fusion_(f),
        name_(name),
        op_(op),
        inputs_(std::move(in)),
        outputs_(std::move(out)),
        attrs_(std::move(attrs)) {}
  Fusion* fusion_;
  int64_t name_;
  OpType op_;
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
  ExprAttrs attrs_;
  SourceLocation origin_;
};

}  // namespace fusebox
