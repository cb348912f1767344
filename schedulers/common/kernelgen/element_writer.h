// The expression walker every scheduler generates element code with: the
// value of a tensor at an index (one index expression per dim, over the
// caller's iteration space; index_math.h) derived through every op back to
// the segment inputs, as kernel IR statements and values in compute types
// (kernel_ir/element_math.h);
// equal (tensor, index) pairs are computed once. The caller decides
//   - the iteration space (its extents and index variable names);
//   - where the walk stops early: a tensor whose value the kernel already
//     holds (a reduction result in a register) is a value source;
//   - where loads and stores go: a Placement (placement.h, merged_dims.h);
//   - the kernel parameters (kernel_params.h).
// Every access is recorded (access.h) for the heuristics. The walk is in
// element_values.cpp, loads, stores, scalars and creation ops in
// element_sources.cpp, indirect loads in element_indexing.cpp.
#pragma once

#include <fusebox/scheduler.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kernel_ir/element_math.h"
#include "kernelgen/access.h"
#include "kernelgen/approximate_math.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/exact_values.h"
#include "kernelgen/index_math.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/placement.h"
#include "kernelgen/shapes.h"

namespace fusebox::kernelgen {

class ElementWriter {
 public:
  // `sizes` (tensorSizes()), `params` and `info` must outlive the writer.
  ElementWriter(const Fusion& segment, const TensorSizes& sizes, const ParamLayout& params,
                RuntimeInfo& info, IterSpace space);

  // The value of `tv` at an index, in tv's compute type: the walk takes it
  // instead of walking back through tv's definition.
  using ValueSource = std::function<kir::Value(const Index& idx)>;
  void provide(const TensorView* tv, ValueSource source);

  // Called with each tensor value the walk computes (not memo hits, not
  // value sources), once its code is in the sink; `in_branch`: the code is
  // inside a pad or cat bound check, so its variable is not visible after.
  // A scheduler that keeps some values for later code (a persistent kernel's
  // next pass) writes them out here.
  using ValueObserver = std::function<void(const TensorView* tv, const Index& idx,
                                           const kir::Value& value, bool in_branch)>;
  void observe(ValueObserver observer) { observer_ = std::move(observer); }

  const IterSpace& space() const { return space_; }
  // Writes code over another iteration space from now on (a reduction's
  // epilogue over the kept dims, after its loop over the input's dims);
  // forgets the values computed so far, keeps the scalars.
  void setSpace(IterSpace space) {
    space_ = std::move(space);
    beginElement();
  }
  // Forgets the values computed so far: code for a new element (or a new
  // copy of the element loop) follows. Scalars stay in the prologue.
  void beginElement();
  // The value of `tv` at `idx` (in tv's compute type); its code goes to the
  // sink (kernel IR statements), segment inputs are read through `loads`.
  kir::Value value(const TensorView* tv, const Index& idx, Placement& loads);
  // The index of `tv` at the iteration element: the iteration index where
  // tv's sizes are the iteration space's, else the same row-major position.
  Index iterationIndexOf(const TensorView* tv) const;
  // Writes segment output `k` at `idx` (laid out with `strides`).
  void store(size_t k, const Index& idx, const std::vector<int64_t>& strides, Placement& placement);
  // Every output at the iteration element (a new element).
  void storeOutputs(const std::vector<std::vector<int64_t>>& strides, Placement& placement);
  // storeOutputs reads `input` (a segment input) at the element before it
  // writes any output: an output written over its memory then cannot change
  // it before every read of the element (ParamLayout::shareMemory).
  void readFirst(const TensorView* input) { read_first_.push_back(input); }

  const TensorSizes& sizes() const { return sizes_; }
  // The index checks of the indirect loads written so far, by id - 1 (one
  // per op, however many copies of the element code read through it).
  const std::vector<IndexCheck>& indexChecks() const { return index_checks_; }
  // Every access made so far, in order.
  const std::vector<Access>& accesses() const { return accesses_; }
  // `e`, an approximate division (approximates(e)), divides by `prepared`,
  // its divisor prepared once (kir::prepareDivisor) where every element
  // that computes `e` sees it: a row's sum.
  void divideBy(const Expr* e, kir::Value prepared) { prepared_divisors_[e] = std::move(prepared); }
  // Whether `e` (an exp or a division) computes approximately (approximate_math.h).
  bool approximates(const Expr* e) const { return approximate_.count(e) > 0; }

  CodeSink sink;        // the element code, and fresh variable names
  kir::Block prologue;  // scalar parameters and scalar arithmetic: once per kernel

 private:
  struct InputArg {
    int index;  // segment input position
    const TensorArgInfo* arg;
  };

  void record(const TensorView* tv, bool is_output, const IndexExpr& off, int64_t alignment,
              int64_t max_offset);
  kir::Value load(const TensorView* tv, const Index& idx);

  // A scalar: a literal, a kernel parameter, or a prologue variable computed
  // from other scalars.
  kir::Value scalarValue(const Val* v);
  // Op `e` on its operands (kernel_ir/element_math.h).
  kir::Value opValue(const Expr* e, const std::vector<kir::Operand>& ops, DataType out);
  // A new const variable of t's compute type holding the value.
  kir::Value declare(DataType t, kir::Value value);
  kir::Value iotaValue(const Expr* e, const Index& idx);
  // An int64 iota every value of which is an int32 (constant start and step
  // over its extent) also declares its value as an int32, by which
  // narrowCompare compares it.
  void declareNarrowIota(const Expr* e, const kir::Value& i, const kir::Value& value);
  // `a == b` / `a != b` of an int64 iota (narrow_iotas_) and another int64,
  // in 32 bits: the other's own test, whether it is an int32, is the same
  // for every element of a row that broadcasts it (a target). Not set: the
  // op is none of these.
  kir::Value narrowCompare(BinaryOpType o, const std::vector<kir::Operand>& ops) const;
  kir::Value randomValue(const Expr* e, const Index& idx);

  const kir::Value* lookup(const std::string& key) const;
  const std::vector<int64_t>& sizesOf(const Val* v) const { return sizes_.at(v->as<TensorView>()); }

  // The walk (element_values.cpp): from a tensor back to the segment inputs
  // with an explicit stack of ValueTasks, so a chain of any length fits.
  kir::Value tensorValue(const TensorView* tv, const Index& idx);
  struct ValueTask;
  struct ValueStep;
  static ValueStep finished(kir::Value value);
  ValueStep advance(ValueTask& t, const kir::Value* operand);
  ValueStep start(ValueTask& t);
  ValueStep nextOperand(ValueTask& t);
  ValueStep forwardTo(ValueTask& t, Index in);
  ValueStep startPad(ValueTask& t);
  ValueStep startCat(ValueTask& t);
  ValueStep openBranch(ValueTask& t);
  ValueStep closeBranch(ValueTask& t, const kir::Value& value);
  ValueStep need(const TensorView* tv, Index idx);
  Index movedIndex(const Expr* e, const Index& idx);
  Index sliceIndex(const Expr* e, const Index& idx);
  // Indirect loads (element_indexing.cpp): index_select, gather and
  // take_along_axis read their index operand first, select its scalar.
  ValueStep startIndexed(ValueTask& t);
  ValueStep finishIndexed(ValueTask& t, const kir::Value& index_value);
  ValueStep startSelect(ValueTask& t);
  // The id of e's index check (recorded on first use).
  int indexCheckId(const Expr* e, int64_t size, int64_t lowest);
  // x^2 and x^3 of a floating tensor: the base tensor, or null.
  static const TensorView* smallPowerBase(const Expr* e);
  kir::Value smallPowerValue(const Expr* e, kir::Value base);

  const Fusion& f_;
  const TensorSizes& sizes_;
  const ParamLayout& params_;
  RuntimeInfo& info_;
  IterSpace space_;
  Placement* loads_ = nullptr;          // during value()
  std::vector<BranchBounds> branches_;  // of the open pad / cat branches, outermost first
  std::vector<BranchBounds> opened_;    // of the branches opened since the last store
  std::unordered_map<const Val*, InputArg> inputs_;
  std::unordered_map<const TensorView*, ValueSource> sources_;
  ValueObserver observer_;
  std::vector<const TensorView*> read_first_;
  std::unordered_map<const Expr*, kir::Value> streams_;  // per random op: its philox::Stream
  std::vector<std::unordered_map<std::string, kir::Value>> memo_;
  std::unordered_map<const Val*, kir::Value> scalar_memo_;
  std::vector<Access> accesses_;
  std::unordered_set<const Expr*> approximate_;  // approximate_math.h
  std::unordered_map<const Expr*, kir::Value> prepared_divisors_;
  // By the printed int64 variable: its int32 twin (declareNarrowIota).
  std::unordered_map<std::string, kir::Value> narrow_iotas_;
  ExactValues exact_;                            // exact_values.h
  std::unordered_map<const Expr*, int> index_check_ids_;
  std::vector<IndexCheck> index_checks_;
};

}  // namespace fusebox::kernelgen
