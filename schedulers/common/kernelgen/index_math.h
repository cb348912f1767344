// Index math of generated kernels: the position a tensor element is read
// from, written as a function of the iteration index (one C++ index variable
// per dim of the iteration space the caller chose: the reference output's
// logical index i0, i1, ... for pointwise). Most ops keep that function affine
// (a constant plus one coefficient per iteration dim), which is what lets a
// scheduler merge dims and vectorize; reshapes that split a dim make it opaque
// text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox::kernelgen {

// c + sum_d coef[d] * <index variable d>
struct Affine {
  int64_t c = 0;
  std::vector<int64_t> coef;
  bool isConstant() const;
};

struct IterSpace;

// One dim's index: affine, or opaque C++ text in terms of the index
// variables and idx_t.
struct IndexExpr {
  bool affine = true;
  Affine a;
  std::string text;  // !affine

  static IndexExpr constant(int64_t c, size_t iter_rank);
  static IndexExpr iterDim(int64_t d, size_t iter_rank);
  static IndexExpr opaque(std::string text);
  // C++ text of the value, in terms of the space's index variables.
  std::string str(const IterSpace& space) const;
  // this + delta
  IndexExpr plus(int64_t delta) const;
  // start + this * step
  IndexExpr scaled(int64_t start, int64_t step) const;
};
using Index = std::vector<IndexExpr>;

// The iteration space element code is written over: its extents and the C++
// names of the index variables the kernel declares for them.
struct IterSpace {
  std::vector<int64_t> sizes;
  std::vector<std::string> names;

  // Dims named <prefix>0, <prefix>1, ...
  static IterSpace named(std::vector<int64_t> sizes, const std::string& prefix = "i");
  size_t rank() const { return sizes.size(); }
  // The index of the iteration element itself: dim d is index variable d, or
  // the constant 0 where the extent is 1 (so size-1 dims never block merging).
  Index index() const;
};

// Memo key of an index: equal keys mean equal index values.
std::string indexKey(const Index& index, const IterSpace& space);

// Operand index of an elementwise op: operands align on the right; a dim of
// size 1 is read at 0 (it broadcasts, as the evaluator's stride-0 rule).
Index alignRight(const Index& out, const std::vector<int64_t>& operand_sizes,
                 const IterSpace& space);
// Reshape: row-major linear position of `out` over out_sizes, delinearized over in_sizes.
Index reshapeIndex(const Index& out, const std::vector<int64_t>& out_sizes,
                   const std::vector<int64_t>& in_sizes, const IterSpace& space);
// Linear memory offset sum_k index[k] * strides[k]: affine when every dim is.
IndexExpr linearOffset(const Index& index, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const IterSpace& space);

}  // namespace fusebox::kernelgen
