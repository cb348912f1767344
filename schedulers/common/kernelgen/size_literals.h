// How generated code prints an integer derived from the call's sizes, strides
// or shape scalars (an extent, a stride, a loop bound, a slice start). Static
// (ShapeMode::Static): the literal, as kernels always had it. Symbolic: a
// kernel parameter read from KernelParams::i64 (ParamBinding::Source::Value),
// so that the source is the same for every size the scheduler makes the same
// decisions for and one compiled kernel serves them all. 0 and 1 stay
// literals in both modes: code structure depends on them (a skipped term, a
// bare index, a broadcast), and shape_classes.h puts them in the params.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/scheduler.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kernelgen {

class SizeLiterals {
 public:
  // What a parameter is declared as: the kernel's index type idx_t (a value
  // that does not fit a 32-bit idx_t is declared int64_t), or int64_t (byte
  // offsets, scalars of the kernel's int64_t arithmetic).
  enum class Type { Index, Int64 };

  // `first_slot`: the first KernelParams::i64 slot after the segment's scalar
  // inputs (ParamLayout::intSlots); `index32`: idx_t is int32_t.
  SizeLiterals(ShapeMode mode, int first_slot, bool index32);

  bool symbolic() const { return mode_ == ShapeMode::Symbolic; }

  // `value` in the kernel: the literal (Static, or 0 and 1), else the
  // parameter z<n> holding it. `role` says what the value is ("m1": the
  // extent of merged dim 1; "in0*i1": the coefficient of i1 in in0's offset):
  // parameters are shared per role and value, not by value alone, so that two
  // sizes that happen to be equal in one call (N == M) still get parameters
  // of their own and the source stays the one of N != M.
  kir::Value value(int64_t value, const std::string& role, Type type = Type::Index);
  // The same, but a parameter for 0 and 1 too (Symbolic): for a value the
  // code must not depend on (a pad width from an input, Affine::c_param).
  kir::Value parameter(int64_t value, const std::string& role, Type type = Type::Index);

  // Parameters so far (they take slots [first_slot, first_slot + count())).
  int count() const { return static_cast<int>(lifted_.size()); }
  // `const idx_t z<n> = static_cast<idx_t>(p.i64[<slot>]);` for each, for
  // the top of the kernel body (after `using idx_t`).
  void declare(kir::Block& out) const;
  // ParamBinding{Source::Value, slot, value} for each; throws InternalError
  // on a slot beyond KernelParams (check paramLimitProblem first).
  void addBindings(std::vector<ParamBinding>& bindings) const;

 private:
  kir::Value name(int64_t value, const std::string& role, Type type);

  struct Lifted {
    int64_t value;
    std::string type;  // as declared
  };
  ShapeMode mode_;
  int first_slot_;
  bool index32_;
  std::map<std::tuple<std::string, int64_t, Type>, int> named_;  // -> index into lifted_
  std::vector<Lifted> lifted_;
};

// `literals` may be null: code that prints no parameters (a heuristics walk,
// the persistent schedulers) gets the literal.
kir::Value sizeValue(SizeLiterals* literals, int64_t value, const std::string& role,
                     SizeLiterals::Type type = SizeLiterals::Type::Index);

}  // namespace fusebox::kernelgen
