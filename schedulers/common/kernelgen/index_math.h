// Index math of generated kernels: the position a tensor element is read
// from, written as a function of the iteration index (one C++ index variable
// per dim of the iteration space the caller chose: the reference output's
// logical index i0, i1, ... for pointwise). Most ops keep that function affine
// (a constant plus one coefficient per iteration dim), which is what lets a
// scheduler merge dims and vectorize; reshapes that split a dim make it an
// opaque kernel IR value (divisions and remainders of the index variables).
// Size-derived integers (coefficients, constants, divisors) are values of the
// space's SizeLiterals (size_literals.h): literals, or kernel parameters for
// a kernel compiled over symbolic sizes. The affine arithmetic is checked:
// a coefficient or constant that overflows int64 is an error, never wrapped.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kernelgen {

// c + sum_d coef[d] * <index variable d>
struct Affine {
  int64_t c = 0;
  std::vector<int64_t> coef;
  // Over symbolic sizes: c holds a shape scalar the fusion does not fix (a pad
  // width or slice start from an input), so it is a kernel parameter even
  // where it is 0, and the code is the same for every value of it.
  bool c_param = false;
  // Run-time index values times a coefficient: the checked indices of
  // indirect loads (element_indexing.cpp), variables a placement declared
  // (Placement::indexVariable). Only a load of a segment input carries them.
  std::vector<std::pair<std::string, int64_t>> terms;
  bool isConstant() const;
};

struct IterSpace;
class SizeLiterals;

// The kernel's index-typed variable `name` (idx_t), as a value.
kir::Value indexVariable(const std::string& name);

// One dim's index: affine, or an opaque value over the index variables.
struct IndexExpr {
  bool affine = true;
  Affine a;
  kir::Value opaque_value;  // !affine

  static IndexExpr constant(int64_t c, size_t iter_rank);
  static IndexExpr iterDim(int64_t d, size_t iter_rank);
  static IndexExpr opaque(kir::Value value);
  // The index as a kernel IR value over the space's index variables. `role`
  // names what the expression is (a tensor's offset: its pointer) for the
  // parameters of its coefficients (<role>*<index variable>) and constant
  // (<role>+); see SizeLiterals::value.
  kir::Value value(const IterSpace& space, const std::string& role = "") const;
  // this + delta. `param`: delta is a shape scalar the fusion does not fix
  // (Affine::c_param); it only counts over symbolic sizes.
  IndexExpr plus(int64_t delta, const IterSpace& space, const std::string& role,
                 bool param = false) const;
  // start + this * step (`param`: start is such a scalar)
  IndexExpr scaled(int64_t start, int64_t step, const IterSpace& space, const std::string& role,
                   bool param = false) const;
};
using Index = std::vector<IndexExpr>;

// The iteration space element code is written over: its extents, the C++
// names of the index variables the kernel declares for them, and how code over
// it prints size-derived integers.
struct IterSpace {
  std::vector<int64_t> sizes;
  std::vector<std::string> names;
  SizeLiterals* literals = nullptr;  // null: as literals
  // Where set, dim d's index is this value instead of its variable (the
  // first element of a vector chunk, chunk_branches.cpp); names[d] still
  // names the dim's parameters.
  std::vector<kir::Value> values;

  // Whether code over the space takes its sizes as parameters.
  bool symbolic() const;
  // A size-derived integer (SizeLiterals::value), and one that is a
  // parameter even where 0 or 1 (SizeLiterals::parameter).
  kir::Value literal(int64_t value, const std::string& role) const;
  kir::Value parameter(int64_t value, const std::string& role) const;
  // Dim d's index: its variable (or values[d]).
  kir::Value indexVar(size_t d) const;

  // Dims named <prefix>0, <prefix>1, ...
  static IterSpace named(std::vector<int64_t> sizes, const std::string& prefix = "i");
  size_t rank() const { return sizes.size(); }
  // The index of the iteration element itself: dim d is index variable d, or
  // the constant 0 where the extent is 1 (so size-1 dims never block merging).
  Index index() const;
};

// Memo key of an index: equal keys mean equal index values (and, over
// symbolic sizes, the same parameters: a constant that is one is marked).
// Integers are literals in it whatever the affine parts' literals (a key is
// never code).
std::string indexKey(const Index& index, const IterSpace& space);

// Operand index of an elementwise op: operands align on the right; a dim of
// size 1 is read at 0 (it broadcasts, as the evaluator's stride-0 rule).
Index alignRight(const Index& out, const std::vector<int64_t>& operand_sizes,
                 const IterSpace& space);
// Reshape: row-major linear position of `out` over out_sizes, delinearized
// over in_sizes. `role`: the reshaped tensor (names the sizes' parameters).
Index reshapeIndex(const Index& out, const std::vector<int64_t>& out_sizes,
                   const std::vector<int64_t>& in_sizes, const IterSpace& space,
                   const std::string& role = "");
// Linear memory offset sum_k index[k] * strides[k]: affine when every dim is.
// `role`: whose offset (names the strides' parameters where it is opaque).
IndexExpr linearOffset(const Index& index, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const IterSpace& space,
                       const std::string& role = "");

}  // namespace fusebox::kernelgen
