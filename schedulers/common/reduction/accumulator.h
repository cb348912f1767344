// What a reduction kernel keeps per reduction while it walks the reduced
// elements: the accumulator state, its type, its identity, how an element
// enters it and how two states combine (the device runtime's functors), and
// the value of each of the reduction's outputs from the final state.
//
// Accumulation types follow the evaluator's rounding closely enough for the
// tolerance model: float for float16, bfloat16 and float32 (the result is
// rounded to the output dtype once, at the end), double for float64 (and for
// the variance of integers), int64 for integer and bool sums (wrapping, as
// the evaluator does).
#pragma once

#include <fusebox/ir/ir.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::reduction {

struct Accumulator {
  const Expr* expr = nullptr;
  bool welford = false;  // Var, VarMean, Welford: mean, M2 and count
  std::string scalar;    // "float", "double" or "int64_t"
  std::string functor;   // the device runtime's: "fusebox::ReduceSum", ...
  int64_t state_bytes = 0;

  std::string stateType() const;
  kir::Value identity() const;
  // Element `x` (in its dtype's compute type) enters state `acc`.
  void update(kir::Block& at, const kir::Value& acc, const kir::Value& x) const;
  // The value of the expr's output `k` from final state `acc`, in the
  // output dtype's compute type.
  kir::Value result(size_t k, const kir::Value& acc) const;
};

Accumulator accumulatorFor(const Expr* reduction);

// Reduction, Var, VarMean and Welford: the exprs that combine many elements
// of their input into one (what every reducing scheduler accumulates).
bool isReductionExpr(const Expr* e);
// The axes such an expr reduces.
const std::vector<int64_t>& reducedAxes(const Expr* e);

}  // namespace fusebox::reduction
